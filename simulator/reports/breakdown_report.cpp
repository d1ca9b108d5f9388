// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/breakdown_report.hpp"

#include "metrics/ideal_replay.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace popsim::simulator {

namespace {

std::string title(const char* what, const std::string& path, std::size_t count,
                  const TerminalStyle& style) {
    return '\n' +
           wrap_text(fmt::format("Per-{0} breakdown of {1} ({2} {0}{3}, {4} of the traced runtime)",
                                 what, path, count, count == 1 ? "" : "s",
                                 style.fraction ? "fraction" : "%"),
                     style.width);
}

} // namespace

std::string format_rank_breakdown(const metrics::TraceSummary& s, const TerminalStyle& style,
                                  std::size_t max_ranks) {
    const auto ranks = metrics::rank_breakdown(s);
    if (ranks.empty() || s.runtime == 0) return {}; // no runtime to take shares of
    std::string out = title("rank", s.path, ranks.size(), style);
    out += fmt::format("{:>6} | {:>8} | {:>8} | {:>14} | {:>13} | {:>8}\n", "rank", "useful",
                       "start-up", "load imbalance", "serialisation", "transfer");
    const std::size_t shown = std::min(ranks.size(), max_ranks);
    for (std::size_t r = 0; r < shown; ++r) {
        const auto& b = ranks[r];
        out += fmt::format("{:>6} | {:>8} | {:>8} | {:>14} | {:>13} | {:>8}\n", r + 1,
                           share_text(b.useful, s.runtime, style),
                           share_text(b.startup, s.runtime, style),
                           share_text(b.load_imbalance, s.runtime, style),
                           share_text(b.serialization, s.runtime, style),
                           share_text(b.transfer, s.runtime, style));
    }
    if (shown < ranks.size())
        out +=
            fmt::format("  ... {} more ranks in the JSON output (--json)\n", ranks.size() - shown);
    return out;
}

std::string thread_label(const metrics::HybridRun& run, std::size_t t) {
    return fmt::format("{}.{}", run.process_of[t] + 1, run.thread_in_process(t) + 1);
}

std::string format_thread_breakdown(const metrics::HybridRun& run, const TerminalStyle& style,
                                    std::size_t max_threads) {
    const auto threads = metrics::thread_time_split(run);
    if (threads.empty() || run.runtime == 0) return {};
    std::string out = title("thread", run.path, threads.size(), style);
    out += fmt::format("{:>7} | {:>8} | {:>15} | {:>8} | {:>8}\n", "thread", "useful",
                       "idle in regions", "serial", "MPI");
    const std::size_t shown = std::min(threads.size(), max_threads);
    for (std::size_t t = 0; t < shown; ++t) {
        const auto& x = threads[t];
        out += fmt::format("{:>7} | {:>8} | {:>15} | {:>8} | {:>8}\n", thread_label(run, t),
                           share_text(x.useful, run.runtime, style),
                           share_text(x.idle_in_regions, run.runtime, style),
                           share_text(x.serial, run.runtime, style),
                           share_text(x.mpi, run.runtime, style));
    }
    if (shown < threads.size())
        out += fmt::format("  ... {} more threads in the JSON output (--json)\n",
                           threads.size() - shown);
    return out;
}

std::string region_name(std::uint64_t region, const replay::TraceLabels& labels) {
    for (const std::uint32_t type :
         {replay::extrae::k_omp_outlined_function, replay::extrae::k_omp_parallel}) {
        for (const auto& v : labels.event_values)
            if (v.type == type && v.value == region) return v.name;
    }
    return fmt::format("region {}", region);
}

std::vector<metrics::RegionMetrics> regions_longest_first(const metrics::HybridRun& run) {
    auto regions = metrics::region_metrics(run);
    std::stable_sort(regions.begin(), regions.end(),
                     [](const auto& a, const auto& b) { return a.total_length > b.total_length; });
    return regions;
}

std::string format_region_table(const metrics::HybridRun& run, const replay::TraceLabels& labels,
                                const TerminalStyle& style, std::size_t max_regions) {
    const auto regions = regions_longest_first(run);
    if (regions.empty() || run.runtime == 0) return {};
    std::string out =
        '\n' + wrap_text(fmt::format("Parallel regions of {} ({} region{}, longest first)",
                                     run.path, regions.size(), regions.size() == 1 ? "" : "s"),
                         style.width);
    // The name last: as long as the line has room for.
    const std::string columns = "{:>5} | {:>9} | {:>7} | {:>7} | {:>7} | {:>8} | {}\n";
    constexpr std::size_t k_numbers = 5 + 9 + 3 * 7 + 8 + 6 * 3;
    const std::size_t room = style.width > k_numbers + 10 ? style.width - k_numbers : 0;
    out += fmt::format(fmt::runtime(columns), "count", "time (s)", "of run", "PE", "LB", "ORE loss",
                       "region");
    const std::size_t shown = std::min(regions.size(), max_regions);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < shown; ++i) names.push_back(region_name(regions[i].region, labels));
    names = shortened_names(names, room);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& g = regions[i];
        const std::string& name = names[i];
        out += fmt::format(
            fmt::runtime(columns), g.instances,
            fmt::format("{:.6f}", static_cast<double>(g.total_length) / 1e9),
            share_text(g.total_length / std::max<Time>(run.processes, 1), run.runtime, style),
            efficiency_text(g.parallel_efficiency, style), efficiency_text(g.load_balance, style),
            efficiency_text(g.parallel_inefficiency_contribution, style), name);
    }
    if (shown < regions.size())
        out += fmt::format("  ... {} more regions in the JSON output (--json)\n",
                           regions.size() - shown);
    return out;
}

} // namespace popsim::simulator

#include "simulator/root_causes_report.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/warnings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numeric>

namespace popsim::simulator {

namespace {

constexpr auto k_patterns = [] {
    std::array<metrics::WaitPattern, metrics::k_wait_patterns> all{};
    for (std::size_t k = 0; k < all.size(); ++k) all[k] = static_cast<metrics::WaitPattern>(k);
    return all;
}();

nlohmann::json pattern_times_json(const metrics::PatternTimes& times) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto p : k_patterns) j[std::string(metrics::wait_pattern_key(p))] = times[p];
    return j;
}

/// A call site's name from the .pcf ("caller N" without one); empty for none.
std::string site_name(std::uint64_t site, const replay::TraceLabels& labels) {
    if (site == 0) return {};
    for (const auto& v : labels.event_values)
        if (v.type == replay::extrae::k_caller && v.value == site) return v.name;
    return fmt::format("caller {}", site);
}

nlohmann::json wait_states_json(const metrics::WaitStates& w, const replay::TraceLabels& labels) {
    nlohmann::json per_rank = nlohmann::json::array();
    for (const auto& t : w.per_task) per_rank.push_back(pattern_times_json(t));
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& p : metrics::wait_pairs(w)) {
        pairs.push_back({{"waiting_rank", p.task + 1},
                         {"late_rank", p.late_task + 1},
                         {"pattern", metrics::wait_pattern_key(p.pattern)},
                         {"time_ns", p.time},
                         {"calls", p.calls}});
    }
    nlohmann::json calls = nlohmann::json::array();
    for (const auto& c : metrics::wait_calls(w)) {
        const auto site = site_name(c.call_site, labels);
        calls.push_back({{"call", replay::mpi_call_name(c.call_id)},
                         {"call_site", site.empty() ? nlohmann::json() : nlohmann::json(site)},
                         {"pattern", metrics::wait_pattern_key(c.pattern)},
                         {"time_ns", c.time},
                         {"calls", c.calls}});
    }
    return {{"total_ns", pattern_times_json(w.total)},
            {"per_rank_ns", std::move(per_rank)},
            {"pairs", std::move(pairs)},
            {"calls", std::move(calls)}};
}

/// The ranks with the largest non-zero `times` (at most five), largest first, as `describe` says.
template <class Describe>
std::vector<std::string> top_ranks(const std::vector<Time>& times, Describe describe) {
    std::vector<std::uint32_t> ranks(times.size());
    std::iota(ranks.begin(), ranks.end(), 0u);
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](auto a, auto b) { return times[a] > times[b]; });
    std::vector<std::string> shown;
    for (const auto r : ranks) {
        if (shown.size() == 5 || times[r] == 0) break;
        shown.push_back(describe(r));
    }
    return shown;
}

/// The ranks whose computation caused the waiting of the ideal replay, largest first (at most
/// five), as shares of that waiting.
std::string format_delay_costs(const metrics::DelayCosts& d, Time waited,
                               const TerminalStyle& style) {
    if (waited <= 0) return {};
    const auto whole = static_cast<double>(waited);
    const auto shown = top_ranks(d.caused, [&](std::uint32_t r) {
        return fmt::format("rank {} {} ({} directly)", r + 1, share_text(d.caused[r], whole, style),
                           share_text(d.direct[r], whole, style));
    });
    return fmt::format("Root causes of the waiting on the ideal network, the computation of: {}",
                       fmt::join(shown, ", "));
}

/// A critical path as `title` ("Critical path on the ideal network"): its length and jumps, the
/// ranks' `what` on it, largest first (at most five), and after them `more`.
std::string format_path(const metrics::CriticalPath& path, const char* title, const char* what,
                        const std::string& more, const TerminalStyle& style) {
    if (path.length <= 0) return {};
    const auto whole = static_cast<double>(path.length);
    const auto shown = top_ranks(path.per_task, [&](std::uint32_t r) {
        return fmt::format("rank {} {}", r + 1, share_text(path.per_task[r], whole, style));
    });
    return fmt::format("{} ({}, {} jumps between ranks): the {} {}{}", title,
                       replay::seconds(path.length), path.jumps, what, fmt::join(shown, ", "),
                       more);
}

nlohmann::json path_json(const metrics::CriticalPath& path) {
    return {{"length_ns", path.length}, {"jumps", path.jumps}, {"per_rank_ns", path.per_task}};
}

} // namespace

std::string format_root_causes(const metrics::RootCauses& causes, const std::string& path,
                               Time runtime, std::uint32_t tasks, const replay::TraceLabels& labels,
                               const TerminalStyle& style, std::size_t max_pairs) {
    if (runtime <= 0 || tasks == 0) return {};
    const double ranks_time = static_cast<double>(runtime) * tasks;
    const auto share = [&](Time t) { return share_text(t, ranks_time, style); };
    std::string out = '\n' + wrap_text(fmt::format("Wait states of {} ({} of the ranks' time, "
                                                   "{} ranks x the runtime)",
                                                   path, style.fraction ? "fraction" : "%", tasks),
                                       style.width);
    out += fmt::format("{:>15} | {:>8} | {:>13}\n", "pattern", "traced", "ideal network");
    for (const auto p : k_patterns) {
        out += fmt::format("{:>15} | {:>8} | {:>13}\n", metrics::wait_pattern_label(p),
                           share(causes.traced.total[p]), share(causes.ideal.total[p]));
    }
    out += fmt::format("{:>15} | {:>8} | {:>13}\n", "total", share(causes.traced.total.total()),
                       share(causes.ideal.total.total()));
    for (const auto& [label, waits] :
         {std::pair{"traced", &causes.traced}, std::pair{"on the ideal network", &causes.ideal}}) {
        const auto pairs = metrics::wait_pairs(*waits);
        if (pairs.empty()) continue;
        out += fmt::format("Waited longest, {}:\n", label);
        for (std::size_t k = 0; k < std::min(pairs.size(), max_pairs); ++k) {
            const auto& p = pairs[k];
            out += fmt::format("  rank {} for rank {} ({}, {} calls): {}\n", p.task + 1,
                               p.late_task + 1, metrics::wait_pattern_label(p.pattern), p.calls,
                               share(p.time));
        }
        std::vector<std::string> calls;
        for (const auto& c : metrics::wait_calls(*waits)) {
            if (calls.size() == max_pairs) break;
            calls.push_back(fmt::format("{} ({}) {}", call_and_site(c, labels),
                                        metrics::wait_pattern_label(c.pattern), share(c.time)));
        }
        out += fmt::format("  in {}\n", fmt::join(calls, ", "));
    }
    return out +
           wrap_text(format_delay_costs(causes.delays, causes.ideal.total.total(), style),
                     style.width) +
           wrap_text(
               format_path(
                   causes.critical_path, "Critical path on the ideal network", "computation of",
                   fmt::format("; its imbalance (the path less the ranks' mean "
                               "computation): {}",
                               share_text(causes.critical_path.imbalance(),
                                          static_cast<double>(causes.critical_path.length), style)),
                   style),
               style.width) +
           wrap_text(format_path(causes.traced_path, "Critical path of the traced run", "time on",
                                 "", style),
                     style.width);
}

nlohmann::json root_causes_json(const metrics::RootCauses& causes,
                                const replay::TraceLabels& labels) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& [key, time] : causes.delays.pairs) {
        pairs.push_back(
            {{"causing_rank", key.first + 1}, {"waiting_rank", key.second + 1}, {"time_ns", time}});
    }
    auto critical_path = path_json(causes.critical_path);
    critical_path["imbalance_ns"] = causes.critical_path.imbalance();
    return {{"traced", wait_states_json(causes.traced, labels)},
            {"ideal", wait_states_json(causes.ideal, labels)},
            {"delay_costs",
             {{"caused_ns", causes.delays.caused},
              {"direct_ns", causes.delays.direct},
              {"unexplained_ns", causes.delays.unexplained},
              {"pairs", std::move(pairs)}}},
            {"critical_path", std::move(critical_path)},
            {"traced_critical_path", path_json(causes.traced_path)}};
}

std::string call_and_site(const metrics::WaitCall& c, const replay::TraceLabels& labels) {
    const auto site = site_name(c.call_site, labels);
    return site.empty() ? replay::mpi_call_name(c.call_id)
                        : fmt::format("{} in {}", replay::mpi_call_name(c.call_id), site);
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/root_causes_report.hpp"

#include "simulator/reports/csv_table.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/warnings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numeric>
#include <optional>

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

/// A value's name from the .pcf ("TYPE:VALUE" without one); empty for 0: none.
std::string value_name(std::uint32_t type, std::uint64_t value, const replay::TraceLabels& labels) {
    if (value == 0) return {};
    const auto* name = labels.value_name(type, value);
    return name ? *name : fmt::format("{}:{}", type, value);
}

std::string site_name(std::uint64_t site, const replay::TraceLabels& labels) {
    return value_name(replay::extrae::k_caller, site, labels);
}

nlohmann::json region_json(const metrics::RootCauses& causes, std::uint64_t region,
                           const replay::TraceLabels& labels) {
    const auto name = value_name(causes.region_type, region, labels);
    return {{"region", region}, {"name", name.empty() ? nlohmann::json() : nlohmann::json(name)}};
}

/// (task, region) times as JSON rows: `rank_key`, region, name, time_ns; longest first.
nlohmann::json task_regions_json(const metrics::RootCauses& causes, const TaskRegionTimes& times,
                                 const char* rank_key, const replay::TraceLabels& labels) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& [key, t] : longest_first(times)) {
        auto row = region_json(causes, key.second, labels);
        row[rank_key] = key.first + 1;
        row["time_ns"] = t;
        rows.push_back(std::move(row));
    }
    return rows;
}

nlohmann::json wait_states_json(const metrics::RootCauses& causes, const metrics::WaitStates& w,
                                const replay::TraceLabels& labels) {
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
    nlohmann::json regions = nlohmann::json::array();
    for (const auto& r : metrics::wait_regions(w)) {
        auto row = region_json(causes, r.region, labels);
        row["pattern"] = metrics::wait_pattern_key(r.pattern);
        row["time_ns"] = r.time;
        row["calls"] = r.calls;
        regions.push_back(std::move(row));
    }
    return {{"total_ns", pattern_times_json(w.total)},
            {"per_rank_ns", std::move(per_rank)},
            {"pairs", std::move(pairs)},
            {"calls", std::move(calls)},
            {"regions", std::move(regions)}};
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

/// "in" a code region's name, "elsewhere" outside every region.
std::string region_text(const metrics::RootCauses& causes, std::uint64_t region,
                        const replay::TraceLabels& labels) {
    const auto name = value_name(causes.region_type, region, labels);
    return name.empty() ? "elsewhere" : "in " + name;
}

/// The (rank, region) pairs with the most `times` (at most five), as shares of `whole`.
std::string top_task_regions(const metrics::RootCauses& causes, const TaskRegionTimes& times,
                             double whole, const replay::TraceLabels& labels,
                             const TerminalStyle& style) {
    std::vector<std::string> shown;
    for (const auto& [key, t] : longest_first(times)) {
        if (shown.size() == 5 || t == 0) break;
        shown.push_back(fmt::format("rank {} {} {}", key.first + 1,
                                    region_text(causes, key.second, labels),
                                    share_text(t, whole, style)));
    }
    return fmt::format("{}", fmt::join(shown, ", "));
}

/// "; the start-up of rank 3 12.00%, ..." for the ranks whose start-up (StartupBursts) has a share
/// of `whole`, largest first; empty without any.
std::string startup_text(const std::vector<Time>& startup, double whole,
                         const TerminalStyle& style) {
    const auto shown = top_ranks(startup, [&](std::uint32_t r) {
        return fmt::format("rank {} {}", r + 1, share_text(startup[r], whole, style));
    });
    return shown.empty() ? std::string()
                         : fmt::format("; the start-up of {}", fmt::join(shown, ", "));
}

/// The ranks whose computation caused the waiting of the ideal replay, largest first (at most
/// five), as shares of that waiting; then the code regions of that computation.
std::string format_delay_costs(const metrics::RootCauses& causes, const replay::TraceLabels& labels,
                               const TerminalStyle& style) {
    const auto& d = causes.delays;
    const Time waited = causes.ideal.total.total();
    if (waited <= 0) return {};
    const auto whole = static_cast<double>(waited);
    const auto shown = top_ranks(d.caused, [&](std::uint32_t r) {
        return fmt::format("rank {} {} ({} directly)", r + 1, share_text(d.caused[r], whole, style),
                           share_text(d.direct[r], whole, style));
    });
    std::string out =
        wrap_text(fmt::format("Root causes of the waiting on the ideal network, the computation "
                              "of: {}{}",
                              fmt::join(shown, ", "), startup_text(d.startup, whole, style)),
                  style.width);
    if (causes.region_type != 0) {
        out += wrap_text(fmt::format("The same by code region ({}): {}",
                                     code_regions_description(causes, labels),
                                     top_task_regions(causes, d.regions, whole, labels, style)),
                         style.width);
    }
    return out;
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
    return fmt::format("{} ({}, {} jumps between ranks): the {} {}{}{}", title,
                       replay::seconds(path.length), path.jumps, what, fmt::join(shown, ", "),
                       startup_text(path.startup, whole, style), more);
}

nlohmann::json path_json(const metrics::CriticalPath& path) {
    nlohmann::json out = {
        {"length_ns", path.length}, {"jumps", path.jumps}, {"per_rank_ns", path.per_task}};
    if (!path.startup.empty()) out["startup_per_rank_ns"] = path.startup; // the ideal path's
    return out;
}

} // namespace

std::vector<WaitStateRow> wait_state_rows(const metrics::RootCauses& causes) {
    std::vector<WaitStateRow> rows;
    for (const auto p : k_patterns)
        rows.push_back({std::string(metrics::wait_pattern_label(p)), causes.traced.total[p],
                        causes.ideal.total[p]});
    rows.push_back({std::string("total"), causes.traced.total.total(), causes.ideal.total.total()});
    return rows;
}

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
    for (const auto& row : wait_state_rows(causes))
        out += fmt::format("{:>15} | {:>8} | {:>13}\n", row.pattern, share(row.traced),
                           share(row.ideal));
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
        if (causes.region_type == 0 || causes.region_type == replay::extrae::k_caller)
            continue; // the call sites are the regions
        std::vector<std::string> regions;
        for (const auto& r : metrics::wait_regions(*waits)) {
            if (regions.size() == max_pairs) break;
            regions.push_back(fmt::format("{} ({}) {}", code_region_name(causes, r.region, labels),
                                          metrics::wait_pattern_label(r.pattern), share(r.time)));
        }
        out += fmt::format("  in code regions: {}\n", fmt::join(regions, ", "));
    }
    const auto& ideal_path = causes.critical_path;
    std::string path_regions;
    if (causes.region_type != 0 && ideal_path.length > 0) {
        const auto whole = static_cast<double>(ideal_path.length);
        path_regions = wrap_text(
            fmt::format("Its computation by code region: {}",
                        top_task_regions(causes, ideal_path.per_task_region, whole, labels, style)),
            style.width);
        std::vector<std::string> beyond;
        for (const auto& [region, t] : ideal_path.region_imbalance()) {
            if (beyond.size() == 5 || t * 10'000 < ideal_path.length) break; // from 0.01 %
            beyond.push_back(fmt::format("{} {}", code_region_name(causes, region, labels),
                                         share_text(t, whole, style)));
        }
        if (!beyond.empty()) {
            path_regions += wrap_text(
                fmt::format("Beyond the ranks' mean (each region's time on the path less the "
                            "ranks' mean computation in it): {}",
                            fmt::join(beyond, ", ")),
                style.width);
        }
    }
    return out + format_delay_costs(causes, labels, style) +
           wrap_text(
               format_path(ideal_path, "Critical path on the ideal network", "computation of",
                           fmt::format("; its imbalance (the path less the ranks' mean "
                                       "computation): {}",
                                       share_text(ideal_path.imbalance(),
                                                  static_cast<double>(ideal_path.length), style)),
                           style),
               style.width) +
           path_regions +
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
    critical_path["regions"] =
        task_regions_json(causes, causes.critical_path.per_task_region, "rank", labels);
    nlohmann::json beyond = nlohmann::json::array();
    for (const auto& [region, t] : causes.critical_path.region_imbalance()) {
        auto row = region_json(causes, region, labels);
        row["time_ns"] = t;
        beyond.push_back(std::move(row));
    }
    critical_path["region_imbalance"] = std::move(beyond);
    auto traced_path = path_json(causes.traced_path);
    traced_path["regions"] =
        task_regions_json(causes, causes.traced_path.per_task_region, "rank", labels);
    nlohmann::json code_regions = nullptr;
    if (causes.region_type != 0)
        code_regions = {{"event_type", causes.region_type},
                        {"description", code_regions_description(causes, labels)}};
    return {
        {"code_regions", std::move(code_regions)},
        {"traced", wait_states_json(causes, causes.traced, labels)},
        {"ideal", wait_states_json(causes, causes.ideal, labels)},
        {"delay_costs",
         {{"caused_ns", causes.delays.caused},
          {"direct_ns", causes.delays.direct},
          {"startup_ns", causes.delays.startup},
          {"unexplained_ns", causes.delays.unexplained},
          {"pairs", std::move(pairs)},
          {"regions", task_regions_json(causes, causes.delays.regions, "causing_rank", labels)}}},
        {"critical_path", std::move(critical_path)},
        {"traced_critical_path", traced_path}};
}

namespace {

/// One row of the root causes' CSV; the fields the table is not about stay empty.
struct CsvRow {
    std::string table, timeline, pattern = {};
    std::optional<std::uint32_t> rank = {}, late_rank = {}, causing_rank = {}; // 0-based
    std::string call = {}, call_site = {};
    std::optional<std::uint64_t> region = {};
    Time time = 0;
    std::optional<std::uint64_t> calls = {};
};

class CsvWriter {
  public:
    CsvWriter(const RootCausesReport& report, std::string& out) : r_(report), out_(out) {}

    void wait_states(const char* timeline, const metrics::WaitStates& w) {
        for (std::uint32_t task = 0; task < w.per_task.size(); ++task) {
            for (const auto p : k_patterns) {
                row({.table = "wait_states",
                     .timeline = timeline,
                     .pattern = std::string(metrics::wait_pattern_key(p)),
                     .rank = task,
                     .time = w.per_task[task][p]});
            }
        }
        for (const auto& p : metrics::wait_pairs(w)) {
            row({.table = "wait_pairs",
                 .timeline = timeline,
                 .pattern = std::string(metrics::wait_pattern_key(p.pattern)),
                 .rank = p.task,
                 .late_rank = p.late_task,
                 .time = p.time,
                 .calls = p.calls});
        }
        for (const auto& c : metrics::wait_calls(w)) {
            row({.table = "wait_calls",
                 .timeline = timeline,
                 .pattern = std::string(metrics::wait_pattern_key(c.pattern)),
                 .call = replay::mpi_call_name(c.call_id),
                 .call_site = site_name(c.call_site, r_.labels),
                 .time = c.time,
                 .calls = c.calls});
        }
        if (r_.causes.region_type == 0) return;
        for (const auto& c : metrics::wait_regions(w)) {
            row({.table = "wait_regions",
                 .timeline = timeline,
                 .pattern = std::string(metrics::wait_pattern_key(c.pattern)),
                 .region = c.region,
                 .time = c.time,
                 .calls = c.calls});
        }
    }

    void critical_path(const char* timeline, const metrics::CriticalPath& path) {
        for (std::uint32_t task = 0; task < path.per_task.size(); ++task) {
            row({.table = "critical_path",
                 .timeline = timeline,
                 .rank = task,
                 .time = path.per_task[task]});
            if (task < path.startup.size())
                row({.table = "critical_path_startup",
                     .timeline = timeline,
                     .rank = task,
                     .time = path.startup[task]});
        }
        for (const auto& [key, t] : longest_first(path.per_task_region)) {
            row({.table = "critical_path_regions",
                 .timeline = timeline,
                 .rank = key.first,
                 .region = key.second,
                 .time = t});
        }
        for (const auto& [region, t] : path.region_imbalance()) {
            row({.table = "critical_path_region_imbalance",
                 .timeline = timeline,
                 .region = region,
                 .time = t});
        }
    }

    void delay_costs(const metrics::DelayCosts& d) {
        for (std::uint32_t task = 0; task < d.caused.size(); ++task) {
            row({.table = "delay_costs",
                 .timeline = "ideal",
                 .causing_rank = task,
                 .time = d.caused[task]});
            row({.table = "delay_costs_direct",
                 .timeline = "ideal",
                 .causing_rank = task,
                 .time = d.direct[task]});
            row({.table = "delay_costs_startup",
                 .timeline = "ideal",
                 .causing_rank = task,
                 .time = d.startup[task]});
        }
        for (const auto& [key, t] : d.pairs) {
            row({.table = "delay_cost_pairs",
                 .timeline = "ideal",
                 .rank = key.second,
                 .causing_rank = key.first,
                 .time = t});
        }
        for (const auto& [key, t] : longest_first(d.regions)) {
            row({.table = "delay_cost_regions",
                 .timeline = "ideal",
                 .causing_rank = key.first,
                 .region = key.second,
                 .time = t});
        }
    }

  private:
    void row(const CsvRow& row) {
        const auto number = [](const auto& x) { return x ? fmt::format("{}", *x) : std::string(); };
        const auto rank = [](const auto& x) {
            return x ? fmt::format("{}", *x + 1) : std::string();
        };
        std::string region_name;
        if (row.region) region_name = value_name(r_.causes.region_type, *row.region, r_.labels);
        out_ +=
            fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(r_.label), row.table,
                        row.timeline, row.pattern, rank(row.rank), rank(row.late_rank),
                        rank(row.causing_rank), row.call, csv_field(row.call_site),
                        number(row.region), csv_field(region_name), row.time, number(row.calls));
    }

    const RootCausesReport& r_;
    std::string& out_;
};

} // namespace

std::string root_causes_csv(const std::vector<RootCausesReport>& reports) {
    std::string out = "run,table,timeline,pattern,rank,late_rank,causing_rank,call,call_site,"
                      "region,region_name,time_ns,calls\n";
    for (const auto& r : reports) {
        CsvWriter csv(r, out);
        csv.wait_states("traced", r.causes.traced);
        csv.wait_states("ideal", r.causes.ideal);
        csv.delay_costs(r.causes.delays);
        csv.critical_path("ideal", r.causes.critical_path);
        csv.critical_path("traced", r.causes.traced_path);
    }
    return out;
}

std::vector<std::pair<TaskRegion, Time>> longest_first(const TaskRegionTimes& times) {
    std::vector<std::pair<TaskRegion, Time>> out(times.begin(), times.end());
    std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.second > b.second; });
    return out;
}

std::string code_regions_description(const metrics::RootCauses& causes,
                                     const replay::TraceLabels& labels) {
    if (causes.region_type == replay::extrae::k_caller)
        return "the caller of the MPI call it leads to";
    for (const auto& [type, name] : labels.event_types)
        if (type == causes.region_type) return name;
    return fmt::format("event type {}", causes.region_type);
}

std::string code_region_name(const metrics::RootCauses& causes, std::uint64_t region,
                             const replay::TraceLabels& labels) {
    const auto name = value_name(causes.region_type, region, labels);
    return name.empty() ? "elsewhere" : name;
}

std::string call_and_site(const metrics::WaitCall& c, const replay::TraceLabels& labels) {
    const auto site = site_name(c.call_site, labels);
    return site.empty() ? replay::mpi_call_name(c.call_id)
                        : fmt::format("{} in {}", replay::mpi_call_name(c.call_id), site);
}

} // namespace popsim::simulator

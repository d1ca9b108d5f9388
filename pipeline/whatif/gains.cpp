// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/whatif/gains.hpp"

#include "metrics/code_regions.hpp"
#include "metrics/critical_path.hpp"
#include "metrics/ideal_replay.hpp"
#include "metrics/startup.hpp"
#include "pipeline/whatif/code_whatif.hpp"
#include "replay/engine/engine.hpp"
#include "replay/extrae_events.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <oneapi/tbb/parallel_for.h>

namespace popsim::pipeline {

namespace {

/// The code regions (values of `type`, 0 left out) with the most computation on the ideal
/// critical path, most first, at most `count`.
std::vector<std::uint64_t> regions_on_critical_path(const replay::Trace& trace,
                                                    const replay::ReplayProgram& program,
                                                    std::uint32_t type, std::size_t count) {
    const auto result = metrics::ideal_replay_again(trace, program, {.timeline = true});
    const metrics::CodeRegions regions(trace, program, type);
    const metrics::StartupBursts startup(trace, program);
    const auto path = metrics::critical_path(program, result, regions, startup);
    std::map<std::uint64_t, Time> on_path;
    for (const auto& [key, time] : path.per_task_region)
        if (key.second != 0) on_path[key.second] += time;
    std::vector<std::pair<std::uint64_t, Time>> sorted(on_path.begin(), on_path.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::uint64_t> out;
    for (std::size_t k = 0; k < std::min(count, sorted.size()); ++k) out.push_back(sorted[k].first);
    return out;
}

/// A region's name for the fixes' table, or TYPE:VALUE. Extrae names a caller "short [full]": the
/// short one, unless Extrae abbreviated it with "..", then the full one.
std::string region_label(const replay::Trace& trace, std::uint32_t type, std::uint64_t value) {
    const auto* name = trace.labels.value_name(type, value);
    if (!name) return fmt::format("{}:{}", type, value);
    const auto open = name->find(" [");
    if (open == std::string::npos || !name->ends_with(']')) return *name;
    const std::string shortened = name->substr(0, open);
    if (shortened.find("..") == std::string::npos) return shortened;
    return name->substr(open + 2, name->size() - open - 3);
}

} // namespace

Gains rank_gains(const replay::Trace& trace, const replay::ReplayProgram& program,
                 const metrics::TraceSummary& summary, const std::optional<NetworkOptions>& network,
                 std::size_t top_regions) {
    Gains g;
    // The traced network's model, one per replay: a model keeps the state of its run.
    auto on_network = [&](const replay::ProgramArray<double>* durations) {
        return replay::replay_events(program, *make_network(*network, program.tasks),
                                     {.timeline = false, .burst_durations = durations})
            .runtime;
    };
    g.runtime = summary.runtime;
    g.ideal_runtime = summary.ideal ? summary.ideal->runtime : 0;
    const double average = summary.useful_average();
    const auto maximum = static_cast<double>(summary.useful_max());
    g.traced = efficiencies(g.runtime, g.ideal_runtime, average, maximum, g.runtime);
    g.region_type = metrics::default_region_type(trace);
    std::vector<SpeedupOption> speedups;
    std::vector<std::uint64_t> regions;
    if (g.region_type != 0) {
        regions = regions_on_critical_path(trace, program, g.region_type, top_regions);
        for (const auto region : regions)
            speedups.push_back({.region = fmt::format("{}:{}", g.region_type, region),
                                .typed = {"2"},
                                .factors = {2.0},
                                .from_config = false});
    }
    // The regions are ranked by their own computation on the path: that is what each speeds up.
    std::vector<std::string> specs;
    for (const auto& s : speedups) specs.push_back(s.region);
    CodeWhatif code(trace.path, speedups, true, specs, replay::RegionScope::own);
    code.prepare(trace, program);
    // The fixes, each a change of the code (the network's apart: its replay is the ideal one).
    struct Candidate {
        Gain::Kind kind;
        std::string fix, region;
        CodeChange change;
    };
    const CodeChange as_traced = code.as_traced();
    std::vector<Candidate> candidates{
        {Gain::Kind::balance, "balanced computation", "", {as_traced.factors, true}}};
    for (std::size_t k = 0; k < speedups.size(); ++k) {
        candidates.push_back({Gain::Kind::balance,
                              fmt::format("computation of {} balanced",
                                          region_label(trace, g.region_type, regions[k])),
                              speedups[k].region,
                              {as_traced.factors, true, k}});
    }
    for (std::size_t k = 0; k < speedups.size(); ++k) {
        auto change = as_traced;
        change.factors[k] = 2;
        // A call site owns the computation leading to its calls (code_speedup.hpp).
        candidates.push_back(
            {Gain::Kind::speedup,
             fmt::format("{}{} 2x faster", region_label(trace, g.region_type, regions[k]),
                         replay::extrae::is_call_site_type(g.region_type) ? " (call site)"
                                                                          : " (own computation)"),
             speedups[k].region, change});
    }
    // The time a fix saves on the model of the traced network, or without one on the ideal
    // network, is saved on the traced run too; never below the fix's ideal runtime.
    if (network) g.network = Gains::Network{network->config, on_network(nullptr)};
    auto traced_runtime = [&](const Gain& fix) {
        const Time saved = g.network ? g.network->runtime - fix.network_runtime
                                     : g.ideal_runtime - fix.ideal_runtime;
        return std::max(fix.ideal_runtime, g.runtime - saved);
    };
    {
        Gain ideal;
        ideal.fix = "ideal network";
        ideal.ideal_runtime = ideal.network_runtime = ideal.runtime = g.ideal_runtime;
        ideal.e = efficiencies(ideal.runtime, g.ideal_runtime, average, maximum, g.runtime);
        g.fixes.push_back(ideal);
    }
    // Side by side: each replays the one program with its own burst durations.
    std::vector<Gain> fixed(candidates.size());
    oneapi::tbb::parallel_for(std::size_t{0}, candidates.size(), [&](std::size_t i) {
        const auto& c = candidates[i];
        const auto durations = code.burst_durations(c.change);
        auto& gain = fixed[i];
        gain.kind = c.kind;
        gain.fix = c.fix;
        gain.region = c.region;
        gain.ideal_runtime = metrics::ideal_replay_again(
                                 trace, program, {.timeline = false, .burst_durations = &durations})
                                 .runtime;
        if (network) gain.network_runtime = on_network(&durations);
        gain.runtime = traced_runtime(gain);
        const auto [avg, max] = code.useful_spread(summary, c.change, durations);
        gain.useful_change = average == 0 ? 0 : avg / average - 1;
        gain.e = efficiencies(gain.runtime, gain.ideal_runtime, avg, max, g.runtime);
    });
    g.fixes.insert(g.fixes.end(), fixed.begin(), fixed.end());
    std::stable_sort(g.fixes.begin(), g.fixes.end(),
                     [](const Gain& a, const Gain& b) { return a.runtime < b.runtime; });
    return g;
}

std::string moves(const Gains& gains, const Gain& gain) {
    using E = WhatifEfficiencies;
    struct Factor {
        const char* name;
        double E::*field;
    };
    const Factor factors[] = {
        {"LB", &E::load_balance}, {"SerE", &E::serialization}, {"TE", &E::transfer}};
    const Factor* most = &factors[0];
    double largest = -1;
    for (const auto& f : factors) {
        const double change = std::abs(gain.e.*f.field - gains.traced.*f.field);
        if (std::isfinite(change) && change > largest) {
            largest = change;
            most = &f;
        }
    }
    std::string out = fmt::format("{} {:.2f}% -> {:.2f}%", most->name,
                                  100 * (gains.traced.*most->field), 100 * (gain.e.*most->field));
    if (gain.kind == Gain::Kind::speedup)
        out = fmt::format("useful {:+.1f}%, {}", 100 * gain.useful_change, out);
    return out;
}

nlohmann::json gains_json(const Gains& gains) {
    auto effs = [](const WhatifEfficiencies& e) {
        nlohmann::json out;
        add_efficiencies_json(e, out);
        return out;
    };
    nlohmann::json j{{"runtime_ns", gains.runtime},
                     {"network", gains.network
                                     ? nlohmann::json{{"config", gains.network->config},
                                                      {"runtime_ns", gains.network->runtime}}
                                     : nlohmann::json()},
                     {"ideal_runtime_ns", gains.ideal_runtime},
                     {"traced", effs(gains.traced)},
                     {"region_type", gains.region_type},
                     {"fixes", nlohmann::json::array()}};
    for (const auto& g : gains.fixes) {
        static constexpr const char* kinds[] = {"network", "balance", "speedup"};
        nlohmann::json f{
            {"fix", g.fix},
            {"kind", kinds[static_cast<int>(g.kind)]},
            {"ideal_runtime_ns", g.ideal_runtime},
            {"network_runtime_ns",
             gains.network ? nlohmann::json(g.network_runtime) : nlohmann::json()},
            {"runtime_ns", g.runtime},
            {"saved_ns", gains.runtime - g.runtime},
            {"saved_fraction", gains.runtime == 0
                                   ? nlohmann::json()
                                   : nlohmann::json(static_cast<double>(gains.runtime - g.runtime) /
                                                    static_cast<double>(gains.runtime))},
            {"useful_change", g.useful_change},
            {"moves", moves(gains, g)},
            {"efficiencies", effs(g.e)}};
        if (!g.region.empty()) f["region"] = g.region;
        j["fixes"].push_back(std::move(f));
    }
    return j;
}

} // namespace popsim::pipeline

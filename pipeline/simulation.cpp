// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/simulation.hpp"

#include "metrics/critical_path.hpp"
#include "pipeline/console/progress_bar.hpp"
#include "replay/output/simulated_trace.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace popsim::pipeline {

namespace {

/// The critical path of the simulated run as events of each replay thread: 1 where it computes on
/// it, 2 where it is in MPI on it, 0 where it leaves it.
std::vector<std::vector<replay::AddedEvent>> critical_path_events(const replay::ReplayProgram& p,
                                                                  const replay::ReplayResult& r) {
    auto spans = metrics::critical_path_spans(p, r);
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
        return std::tie(a.thread, a.begin) < std::tie(b.thread, b.begin);
    });
    std::vector<std::vector<replay::AddedEvent>> out(p.thread_count());
    for (std::size_t k = 0; k < spans.size(); ++k) {
        const auto& s = spans[k];
        auto& events = out[s.thread];
        const std::uint64_t value = s.computation ? 1 : 2;
        // A span that goes on where the previous one ended changes the value or nothing.
        if (!events.empty() && events.back().time == s.begin && events.back().value == 0)
            events.pop_back();
        if (events.empty() || events.back().value != value)
            events.push_back({s.begin, replay::k_critical_path_event, value});
        events.push_back({s.end, replay::k_critical_path_event, 0});
    }
    return out;
}

/// The predicted run's ideal-network runtime (the same CPUs and code) and its efficiencies
/// (docs/metrics.md, "On another network").
std::pair<Time, WhatifEfficiencies> predicted_efficiencies(
    const SimulateOptions& o, LoadedProgram& loaded, const replay::network::NetworkModel& network,
    const replay::ReplayResult& result, const LiveModels& live, const CodeWhatif& code,
    const CodeChange& change, const replay::ProgramArray<double>* durations) {
    const auto& p = loaded.program;
    const double ratio = dimemas_parameters(o.network, p.tasks).cpu_ratio;
    Time ideal = 0;
    if (network.zero_cost() && network.cpus_per_node() == 0) {
        ideal = result.runtime; // the run is the ideal one
    } else if (ratio == 1 && !durations && loaded.ideal_runtime) {
        ideal = *loaded.ideal_runtime; // the streaming pass replayed it
    } else if (!loaded.live_results.empty()) {
        ideal = live.ideal_runtime(loaded, ratio);
    } else {
        ideal = ideal_runtime_at(loaded, ratio, {.timeline = false, .burst_durations = durations});
    }
    const auto summary = traced_summary(loaded);
    auto traced = traced_useful(summary);
    if (traced && durations)
        std::tie(traced->average, traced->maximum) =
            code.useful_spread(*summary, change, *durations);
    return {ideal, on_network(result, p, traced, ratio, loaded.real_runtime.value_or(0), ideal)};
}

/// The simulation, the trace's reading helped by `helpers` if not null.
void simulate_here(const SimulateOptions& o, Simulation& s, replay::ReadHelpers* helpers) {
    auto& code = *s.code;
    ProgressBar progress({{.label = "reading", .total = input_file_bytes({o.trace})},
                          {.label = "simulating", .unit = ProgressBar::Unit::operations}});
    // -o writes the trace's records at their simulated times: a streamed program's calls are
    // spilled beside the output for it. Without it, code changes or helpers, the network is
    // replayed while the program is written, which is then never held whole (docs/replay.md).
    LiveModels live({o.network});
    const bool replays_live = o.output.empty() && code.empty() && helpers == nullptr;
    s.loaded = std::make_unique<LoadedProgram>(load_program(
        o.trace, program_options(o.network),
        {.window = o.window,
         .in_memory = o.in_memory || !code.empty(), // the regions are found in the trace
         .on_read_progress = progress.running_total(0),
         .spill_calls_for = o.output.empty() ? std::nullopt : std::optional(o.output),
         .event_types = code.event_types(),
         .summarize = true,
         .cut_bursts_for =
             [&](std::uint32_t tasks) { return replays_burst_pieces(o.network, tasks); },
         .helpers = helpers,
         .live = replays_live ? live.live() : replay::LiveNetworks{}}));
    auto& loaded = *s.loaded;
    if (helpers) loaded.pass.processes = 1 + helpers->count();
    auto& change = s.change;
    change = {.factors = {},
              .balanced = o.balance.has_value(),
              .balance_region = balanced_regions(o.balance).empty()
                                    ? std::nullopt
                                    : std::optional<std::size_t>(0)};
    for (const auto& speedup : code.options()) change.factors.push_back(speedup.factors.front());
    std::optional<replay::ProgramArray<double>> durations;
    if (!code.empty()) {
        code.prepare(loaded);
        durations = code.burst_durations(change);
    }
    const replay::Trace* original = loaded.trace_read();
    if (!o.output.empty() && original == nullptr)
        throw std::invalid_argument(
            "-o needs a Paraver trace as input (its calls name the simulated states)");
    const auto network = make_network(o.network, loaded.program.tasks);
    // Reads the original's events again while the program replays.
    std::optional<replay::SimulatedTraceWriter> simulated;
    if (!o.output.empty())
        simulated.emplace(*original, loaded.program, o.output,
                          replay::SimulatedTraceOptions{.calls = loaded.calls.get(),
                                                        .window = loaded.window_bounds});
    progress.add_total(1, loaded.program.op_count());
    if (!loaded.live_results.empty())
        s.result = std::move(loaded.live_results.front());
    else
        s.result =
            replay_reporting(loaded, *network,
                             {.timeline = !o.output.empty(), // each operation's times, for -o
                              .on_progress = [&](std::uint64_t ops) { progress.add(1, ops); },
                              .burst_durations = durations ? &*durations : nullptr});
    std::tie(s.ideal_runtime, s.efficiencies) = predicted_efficiencies(
        o, loaded, *network, s.result, live, code, change, durations ? &*durations : nullptr);
    if (simulated) simulated->write(s.result, critical_path_events(loaded.program, s.result));
}

} // namespace

Simulation simulate(const SimulateOptions& o, WorkDivision* division) {
    check_network_options(o.network); // before reading the trace
    auto speedups = parse_speedups(o.speedups);
    for (auto& m : config_modules(o.network.config)) speedups.push_back(std::move(m));
    Simulation s;
    s.code.emplace(o.trace, std::move(speedups), o.balance.has_value(),
                   balanced_regions(o.balance));
    if (division == nullptr) {
        simulate_here(o, s, nullptr);
        return s;
    }
    // Under mpirun the first process simulates, the others help it read the trace.
    s.reports_here = run_helped(
        *division, o.trace, [&](replay::ReadHelpers* helpers) { simulate_here(o, s, helpers); });
    return s;
}

} // namespace popsim::pipeline

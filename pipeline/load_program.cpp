// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/load_program.hpp"

#include "metrics/streaming_analysis.hpp"
#include "replay/focus/trace_window.hpp"
#include "replay/input/dimemas_trace.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/network/dimemas.hpp"
#include "replay/program/cycle_breaking.hpp"
#include "replay/streaming/background_replay.hpp"
#include "replay/traced_windows.hpp"

#include "pipeline/console/diagnostics.hpp"
#include "pipeline/options/global_options.hpp"

#include <algorithm>
#include <set>

namespace popsim::pipeline {

LoadedProgram load_program(const std::string& path, const replay::ProgramOptions& options,
                           const LoadOptions& load) {
    replay::ReadOptions read = read_options();
    read.on_progress = load.on_read_progress;
    read.helpers = load.helpers;
    read.tracked_event_types.insert(read.tracked_event_types.end(), load.event_types.begin(),
                                    load.event_types.end());
    if (load.cut_bursts_for) { // the application is chosen later: with several, cut anyway
        read.cut_bursts_if = [&](const replay::ParaverHeader& header) {
            return header.applications.size() != 1 ||
                   load.cut_bursts_for(
                       static_cast<std::uint32_t>(header.applications.front().tasks.size()));
        };
    }
    LoadedProgram loaded;
    loaded.path = path;
    const auto& window = load.window;
    if (path.ends_with(".dim")) {
        if (window.any())
            throw replay::TraceError(path, 0, "--from/--to need a Paraver trace, not a .dim");
        loaded.program = replay::read_dimemas_trace(path, options);
        return loaded;
    }
    // A whole trace's program is written down in one streaming pass, which keeps only the
    // trace's header, counts and warnings. The live replays' errors name the trace.
    const bool streamed = !load.in_memory && !window.any() && try_streaming(path, loaded.pass, [&] {
        metrics::SummaryRecorder totals;
        auto [trace, run, live_results, calls] = naming_trace(path, [&] {
            return replay::stream_program(
                path, read, options, load.spill_calls_for,
                load.summarize ? replay::BesideReplay([&](const auto& t, auto& replay) -> auto& {
                    return totals.beside(t, replay);
                })
                               : replay::BesideReplay(),
                load.live);
        });
        loaded.live_results = std::move(live_results);
        if (load.summarize) loaded.summary = totals.finish(trace).summary;
        loaded.program = std::move(*run.program);
        loaded.ideal_runtime = run.runtime;
        loaded.streamed_trace = std::move(trace);
        loaded.calls = std::move(calls);
    });
    if (!streamed) {
        if (window.any()) { // the reader reads the window alone
            auto [trace, focus] = read_focused(path, window, read);
            loaded.trace = std::move(trace);
            loaded.window = focus.description;
            loaded.window_bounds = focus.parts.front().window;
        } else {
            loaded.trace = replay::read_paraver(path, read);
        }
        loaded.program = replay::build_replay_program(*loaded.trace, options);
    }
    const replay::Trace& trace = *loaded.trace_read();
    loaded.communicators = trace.header.communicators;
    // Spans with tracing off on every thread are left out of the replay, and of the real run.
    loaded.real_runtime = replay::traced_time(trace, loaded.program.untraced);
    loaded.warnings = trace.warnings;
    loaded.warnings.merge(loaded.program.warnings);
    print_warnings(path, loaded.warnings);
    return loaded;
}

std::optional<metrics::TraceSummary> traced_summary(const LoadedProgram& loaded) {
    if (loaded.summary) return loaded.summary;
    if (loaded.trace) return metrics::summarize(*loaded.trace, loaded.program.untraced);
    return std::nullopt;
}

replay::LeftEarly left_early(const LoadedProgram& loaded) {
    if (loaded.trace) return replay::left_early_in(*loaded.trace, loaded.program);
    if (loaded.left_early.empty()) return {};
    return [&kept = loaded.left_early](replay::CollectiveIndex c, std::string* description) {
        const auto found = kept.find(c);
        if (found == kept.end()) return false;
        if (description) *description = found->second;
        return true;
    };
}

std::map<replay::CollectiveIndex, std::string> collectives_left_early(const LoadedProgram& loaded) {
    if (!loaded.trace) return loaded.left_early; // what was kept of the trace, if anything
    std::map<replay::CollectiveIndex, std::string> out;
    const auto left = replay::left_early_in(*loaded.trace, loaded.program);
    std::string description;
    for (replay::CollectiveIndex c = 0; c < loaded.program.collectives.size(); ++c)
        if (left(c, &description)) out.emplace(c, description);
    return out;
}

replay::ReplayResult replay_on(const LoadedProgram& loaded, replay::network::NetworkModel& model,
                               const replay::EngineOptions& options, replay::WarningLog* warnings) {
    return naming_trace(loaded.path, [&] {
        return replay::replay_breaking_cycles(
            left_early(loaded), loaded.program,
            [&](const replay::ReplayProgram& p) {
                return replay::replay_events(p, model, options);
            },
            warnings);
    });
}

std::unique_ptr<replay::network::NetworkModel> ideal_network_at(double cpu_ratio) {
    replay::network::DimemasParameters ideal; // no latency, infinite bandwidth
    ideal.in_links = ideal.out_links = 0;
    ideal.cpu_ratio = cpu_ratio;
    return std::make_unique<replay::network::DimemasNetwork>(ideal);
}

Time ideal_runtime_at(const LoadedProgram& loaded, double cpu_ratio,
                      const replay::EngineOptions& options) {
    return replay_on(loaded, *ideal_network_at(cpu_ratio), options, nullptr).runtime;
}

replay::LiveNetworks LiveModels::live() {
    return {.networks = [this](std::uint32_t tasks) { return make(tasks); },
            .options = {.timeline = false}};
}

std::vector<replay::network::NetworkModel*> LiveModels::make(std::uint32_t tasks) {
    std::set<double> other_ratios;
    try {
        for (const auto& network : networks_) {
            models_.push_back(make_network(network, tasks));
            if (!replay::LiveReplays::replays_live(*models_.back(), tasks)) {
                models_.clear();
                return {};
            }
            const double ratio = dimemas_parameters(network, tasks).cpu_ratio;
            if (ratio != 1) other_ratios.insert(ratio);
        }
    } catch (const std::exception&) {
        models_.clear();
        return {};
    }
    for (const double ratio : other_ratios) {
        models_.push_back(ideal_network_at(ratio));
        ratios_.push_back(ratio);
    }
    std::vector<replay::network::NetworkModel*> out;
    for (const auto& m : models_) out.push_back(m.get());
    return out;
}

Time LiveModels::ideal_runtime(const LoadedProgram& loaded, double ratio) const {
    const auto k = static_cast<std::size_t>(std::ranges::find(ratios_, ratio) - ratios_.begin());
    return loaded.live_results.at(networks_.size() + k).runtime;
}

replay::ReplayResult replay_reporting(LoadedProgram& loaded, replay::network::NetworkModel& model,
                                      const replay::EngineOptions& options) {
    replay::WarningLog relaxed;
    auto result = replay_on(loaded, model, options, &relaxed);
    print_warnings(loaded.path, relaxed);
    loaded.warnings.merge(relaxed);
    return result;
}

} // namespace popsim::pipeline

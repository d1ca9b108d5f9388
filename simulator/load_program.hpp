#pragma once
// What `simulate` and `whatif` replay: a Paraver trace (translated to a replay program) or a
// Dimemas .dim trace (read as one).
#include "replay/engine/engine.hpp"
#include "replay/focus/time_window.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/trace.hpp"
#include "replay/trace_error.hpp"
#include "simulator/focus.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace popsim::simulator {

struct LoadedProgram {
    std::string path;
    std::optional<replay::Trace> trace; // absent for .dim input
    replay::ReplayProgram program;
    std::optional<Time> real_runtime; // the traced runtime, when known
    replay::WarningLog warnings;      // the reader's and the program builder's
    std::string window;               // "window [1 s, 2 s)" with --from/--to, else empty
    std::optional<replay::TimeWindow> window_bounds; // that window of the trace file
};

/// Runs `run` (a replay of the trace at `path`), its errors naming the trace as every error does
/// (exit 2): a deadlock of the trace's dependencies, or a replayed time past 2^62 ns.
template <class Run> auto naming_trace(const std::string& path, Run&& run) {
    try {
        return run();
    } catch (const replay::ReplayDeadlock& e) {
        throw e.in(path);
    } catch (const TimeOverflow& e) {
        throw replay::TraceError(path, 0, e.what());
    }
}

/// Reads `path` (.prv, .prv.gz or .dim), printing the warnings to stderr (unless --quiet); with a
/// `window` (--from/--to), the program of that window of a Paraver trace. `on_read_progress` gets
/// the bytes of the Paraver file read so far (ReadOptions::on_progress).
LoadedProgram load_program(const std::string& path, const replay::ProgramOptions& options,
                           const FocusOptions& window = {},
                           const std::function<void(std::uint64_t)>& on_read_progress = {});

/// Replays the loaded program on `model`, breaking the dependency cycles a trace of a program
/// that ran can form (replay/program/cycle_breaking.hpp); what it relaxes goes to `warnings`.
replay::ReplayResult replay_on(const LoadedProgram& loaded, replay::network::NetworkModel& model,
                               const replay::EngineOptions& options, replay::WarningLog* warnings);

/// replay_on, reporting what it relaxes: printed to stderr (unless --quiet) and added to
/// `loaded.warnings`.
replay::ReplayResult replay_reporting(LoadedProgram& loaded, replay::network::NetworkModel& model,
                                      const replay::EngineOptions& options);

} // namespace popsim::simulator

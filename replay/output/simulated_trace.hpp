// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writes a replay's simulated timeline as a Paraver trace (.prv/.pcf/.row): per task, Running
// states for its bursts, the MPI call's state and call events for its MPI operations, and one
// communication record per message, so it opens in Paraver beside the original, like Dimemas'
// output.
#include "replay/engine/replay_result.hpp"
#include "replay/focus/time_window.hpp"
#include "replay/output/traced_calls.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/trace.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::replay {

/// The comment line after a simulated trace's header, followed by the original trace's path: tells
/// simulated runs from traced ones (popsim analyze leaves them out of a folder's series).
inline constexpr std::string_view k_simulated_trace_mark = "#popsim:simulated:";

/// popsim's event marking the simulated run's critical path (metrics/critical_path.hpp) on each
/// thread: 1 while it computes on the path, 2 while it is in MPI on it, 0 off it.
inline constexpr std::uint32_t k_critical_path_event = 91000001;

/// An event popsim adds to a replay thread of the simulated trace.
struct AddedEvent {
    Time time;
    std::uint32_t type;
    std::uint64_t value;
};

struct SimulatedTraceOptions {
    /// The original's calls, when the original Trace holds none (a program the streaming pass
    /// wrote down: pipeline/load_program.hpp); else its own.
    const TracedCalls* calls = nullptr;
    /// The original was read in that window (--from/--to).
    std::optional<TimeWindow> window;
};

/// A simulated trace of `program`, written at `path` once a replay of it is done. Like Dimemas'
/// simulated trace it keeps what the original holds: its events (MPI calls with their
/// attributes, hardware counters, callers, user functions) at their simulated times, its .pcf
/// names, its date; `original` gives its header, labels, path, threads' names and ends.
///
/// Nothing grows with the trace: the original's events are read from its file again and spilled
/// to disk beside `path` (SpillFile), on a thread of their own from construction so that it
/// happens while the program replays; write() makes each thread's records in order as it writes
/// them.
class SimulatedTraceWriter {
  public:
    SimulatedTraceWriter(const Trace& original, const ReplayProgram& program, std::string path,
                         const SimulatedTraceOptions& options = {});
    ~SimulatedTraceWriter();
    SimulatedTraceWriter(const SimulatedTraceWriter&) = delete;
    SimulatedTraceWriter& operator=(const SimulatedTraceWriter&) = delete;

    /// Writes the trace (and its .pcf/.row; or an OTF2 archive for a path ending in .otf2) of
    /// `result`, a replay of the program. `added`: per replay thread, popsim's own events, in
    /// time order (e.g. k_critical_path_event).
    void write(const ReplayResult& result, const std::vector<std::vector<AddedEvent>>& added = {});

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// SimulatedTraceWriter(original, program, path, options).write(result, added).
void write_simulated_paraver(const Trace& original, const ReplayProgram& program,
                             const ReplayResult& result, const std::string& path,
                             const SimulatedTraceOptions& options = {},
                             const std::vector<std::vector<AddedEvent>>& added = {});

} // namespace popsim::replay

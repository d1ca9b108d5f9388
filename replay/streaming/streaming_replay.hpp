// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The ideal-network replay computed while the trace is read, in memory bounded by the trace's
// width (threads, messages in flight, open collectives), not its length (docs/replay.md,
// "Streaming").
//
// On the ideal network the replay is a longest path, and every dependency of an operation comes
// earlier in the trace: a call's operations are made once the file has passed its end (all its
// records are read by then), and each thread runs them as far as their dependencies are known.
// The program is the in-memory one's (replay_program.hpp) operation for operation, so the times
// are equal to the ns. OpenMP worker threads are not replayed one by one: between a region's fork
// and join they only compute, so the join waits for the longest of their work, known once the
// file has passed the region's exit (their operations are written down then, when the program is
// kept). What that program does in rarer cases (spans with tracing off, records left out or
// re-paired, collectives cut short, dependency cycles, worker threads calling MPI) is not
// streamed: StreamingUnsupported says which, and the caller replays the trace in memory.
//
// Example (the reader feeds it as a TimelineObserver; metrics/streaming_analysis.hpp drives it):
//   StreamingReplay replay(trace, options);
//   ... records ...
//   StreamedRun run = replay.finish(trace);
#include "replay/engine/replay_result.hpp"
#include "replay/input/timeline_observer.hpp"
#include "replay/program/replay_program.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace popsim::replay {

/// The trace needs what only the in-memory replay does; what() says what.
class StreamingUnsupported : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct StreamedRun {
    std::vector<ThreadTimes> tasks; // per MPI task, its first thread's
    /// Per MPI task, its first thread's time in the MPI calls it began outside parallel regions
    /// (IdealRun::task_mpi_outside_omp).
    std::vector<Time> task_mpi_outside_omp;
    Time runtime = 0;
    /// Collectives whose members left, in the trace, before the last one arrived (as
    /// left_before_last_arrived), and the first of them in the in-memory program's order.
    std::size_t collectives_left_early = 0;
    std::string first_left_early;
    WarningLog warnings; // as the in-memory program's
    /// The in-memory program (build_replay_program's, equal in every array), when kept.
    std::optional<ReplayProgram> program;
};

class LiveReplays;

class StreamingReplay final : public TimelineObserver {
  public:
    /// `trace`: its header read and its threads named (the reader's, before its records; not
    /// kept). `keep_program`: also write the program down (StreamedRun::program), for replays
    /// on other networks.
    /// `live`: its replays run on the program as it is written (with `keep_program`).
    StreamingReplay(const Trace& trace, const ProgramOptions& options, bool keep_program = false,
                    LiveReplays* live = nullptr);
    ~StreamingReplay() override;

    void entered(ThreadIndex thread, Time time, std::uint16_t id) override;
    void state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) override;
    void call(ThreadIndex thread, const ObservedCall& call) override;
    void event(ThreadIndex thread, Time time, std::uint32_t type, std::uint64_t value) override;
    void burst_cut(ThreadIndex thread, Time time) override;
    void comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& record,
              std::uint64_t number) override;
    void reached(Time time) override;
    /// Which states it reads (the others can be left out of what it is given): a copy for the
    /// thread that reads the trace, which asking the replay itself would make read memory the
    /// thread applying it writes to.
    class StateFilter {
      public:
        explicit StateFilter(std::vector<bool> tracks_work)
            : tracks_work_(std::move(tracks_work)) {}
        bool reads(ThreadIndex thread, std::uint8_t value) const;

      private:
        std::vector<bool> tracks_work_; // per trace thread: in a task with fork/join
    };
    StateFilter state_filter() const;
    static bool reads_event(std::uint32_t type);

    /// After the last record (the reader's builder finished `trace`): the last bursts and the
    /// result.
    StreamedRun finish(const Trace& trace);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace popsim::replay

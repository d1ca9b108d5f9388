// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Start-up and shut-down of an MPI run: the time before a task's first record ("Not created"),
// in MPI_Init and MPI_Finalize, and after its last record. Score-P records the whole of MPI_Init
// (the MPI library's and the measurement's own set-up), which the ideal replay makes free, so
// without this split it would land in Transfer (docs/metrics.md, "Start-up and shut-down").
//
// Example:
//   popsim::metrics::StartupRecorder recorder(trace);
//   ... recorder.state(thread, begin, end, value); recorder.call(thread, begin, end, id); ...
//   const auto s = recorder.finish(summary.windows);
//   // s.traced: time in which every task was starting or stopping
#include "replay/program/openmp_regions.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/time.hpp"
#include "replay/trace.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace popsim::metrics {

struct StartupShutdown {
    /// S: the time of the traced run (within the analysed windows) in which every task was
    /// starting or stopping: not created yet, in MPI_Init, in MPI_Finalize or past its last record.
    Time traced = 0;
    /// S_id: the same in the ideal replay, where MPI_Init is a barrier of no cost and MPI_Finalize
    /// costs nothing: the time every task is either not created yet or waiting in MPI_Init's
    /// barrier for a task not created yet.
    Time ideal = 0;
    /// Where the run proper begins and ends: the last task's exit from MPI_Init (0 without one)
    /// and the last task's entry into MPI_Finalize (the trace's end without one); the window
    /// analysts keep (POP's focus of analysis) and `--from`/`--to` take.
    Time init_end = 0;
    Time finalize_begin = 0;
    std::vector<Time> task_startup;  // per MPI task: not created + MPI_Init
    std::vector<Time> task_shutdown; // per MPI task: MPI_Finalize + past its last record
    /// Per MPI task, the time before its first record (part of its first burst in the replay).
    std::vector<Time> task_not_created;
    /// Per MPI task, its useful time (Running) before MPI_Init, when MPI_Init is its first call:
    /// the tool's and the runtime's initialisation, start-up rather than the program's work.
    std::vector<Time> task_useful_before_init;
    /// Per MPI task, its start-up in the ideal replay: not created, then waiting in MPI_Init's
    /// barrier for the last task to enter it.
    std::vector<Time> task_ideal_startup;
    /// Per MPI task, the time of its MPI_Init and MPI_Finalize calls: the part of its MPI time
    /// that is start-up and shut-down (the hybrid models take it out of the MPI time).
    std::vector<Time> task_in_init_finalize;
};

/// The start-up bursts of a replay program of `trace`: a thread's bursts before the barrier of its
/// MPI_Init (prv2dim's first burst, from time 0: the time the task was not created yet). Root
/// causes and the critical path report them as start-up, not computation.
class StartupBursts {
  public:
    StartupBursts(const replay::Trace& trace, const replay::ReplayProgram& program);
    bool contains(replay::OpIndex op) const;

  private:
    const replay::ReplayProgram& program_;
    std::vector<replay::OpIndex> end_; // per replay thread: its first operation after start-up
};

/// Collects, per MPI task (its first thread), what StartupShutdown is computed from, fed with a
/// thread's states and calls in its time order (streamed or from a trace in memory).
class StartupRecorder {
  public:
    explicit StartupRecorder(const replay::Trace& trace);

    void state(replay::ThreadIndex thread, Time begin, Time end, std::uint8_t value);
    void call(replay::ThreadIndex thread, Time begin, Time end, std::uint16_t id);
    /// Starts loading the state a record of `thread` will touch (TimelineObserver::prefetch).
    void prefetch(replay::ThreadIndex thread) const {
        if (threads_are_tasks_)
            __builtin_prefetch(&tasks_[thread]);
        else
            __builtin_prefetch(&task_of_thread_[thread]);
    }
    /// `windows`: the analysed spans of the trace (TraceSummary::windows).
    StartupShutdown finish(const replay::Intervals& windows) const;

  private:
    struct Task {
        // What every state and call reads first, together in the struct's first 32 bytes (at
        // thousands of tasks each record's task is a cache miss; split over two lines, two).
        Time first_active =
            k_never;          // begin of its first state that is neither absent nor not created
        Time last_active = 0; // end of its last such state
        Time running_before_call = 0;
        bool called = false;        // a call has been seen
        bool init_first = false;    // the first call is MPI_Init
        replay::Intervals init;     // its MPI_Init calls
        replay::Intervals finalize; // its MPI_Finalize calls
    };
    static constexpr Time k_never = std::numeric_limits<Time>::max();

    /// The task whose first thread `thread` is, or -1.
    std::int32_t task_of(replay::ThreadIndex thread) const;

    bool threads_are_tasks_; // replay::Trace::threads_are_tasks: the task is the thread
    std::vector<std::int32_t> task_of_thread_; // else: -1 when not a task's first thread
    std::vector<Task> tasks_;
};

/// The same from a trace held in memory.
StartupShutdown startup_shutdown(const replay::Trace& trace, const replay::Intervals& windows);

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The OpenMP quantities of the thread breakdowns and of HybridRun (thread_breakdown.hpp,
// pop_openmp.hpp) computed as the records go by, for the streaming analysis: each thread's
// OpenMP stack with its useful time inside, its MPI time outside, and each process's parallel
// regions with every thread's useful time in them. Equal to the in-memory ones to the ns.
//
// It needs the records in time order, as Extrae's merger writes them: the useful time before a
// region's entry is then known at the entry. A state or an OpenMP event earlier than a record
// already read throws replay::StreamingUnsupported.
//
// Example (metrics/streaming_analysis.cpp feeds it):
//   HybridRun run;
//   run.set_shape(trace);
//   run.threads.resize(trace.thread_count());
//   StreamingOpenMp omp(run);
//   ... records ...
//   omp.finish(trace.end_time());
#include "metrics/pop_openmp.hpp"
#include "replay/cache_line.hpp"
#include "replay/program/openmp_regions.hpp"

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace popsim::metrics {

class StreamingOpenMp {
  public:
    /// `run`: shaped (set_shape) with its threads' breakdowns, to which it adds.
    explicit StreamingOpenMp(HybridRun& run);

    void entered(replay::ThreadIndex t, Time time);
    void state(replay::ThreadIndex t, Time begin, Time end, std::uint8_t value);
    void call(replay::ThreadIndex t, Time begin, Time end);
    /// Events of the OpenMP stack's types (is_openmp_stack_type); others are ignored.
    void event(replay::ThreadIndex t, Time time, std::uint32_t type, std::uint64_t value);
    void reached(Time time);
    /// Starts loading the state a record of `t` will touch (TimelineObserver::prefetch).
    void prefetch(replay::ThreadIndex t) const { __builtin_prefetch(&threads_[t]); }

    /// After the last record: what is still open ends at `trace_end`.
    void finish(Time trace_end);

  private:
    static constexpr Time k_never = std::numeric_limits<Time>::min();

    /// A thread's useful time so far, as a function of time.
    struct RunningClock {
        Time total = 0, last_begin = 0, last_end = 0; // the latest Running state
        void add(Time begin, Time end);
        /// Useful time before `t`, once every state beginning before `t` has come and none
        /// beginning after it.
        Time before(Time t) const;
    };
    struct StackChange {
        std::uint8_t order; // the type's place in the stack's types: ties at one time go so
        bool push;
    };
    /// A thread's OpenMP stack, made at its first stack event: most threads of most traces have
    /// none (MPI only), and with tens of thousands of ranks, state touched by every call is a
    /// cache miss per call. Before it, the thread's calls are all outside OpenMP.
    struct Thread {
        Time instant = k_never; // of the changes not yet applied: more may come at that time
        boost::container::small_vector<StackChange, 4> changes;
        int depth = 0;
        Time open = 0, useful_at_open = 0; // of the stack's current span, when depth > 0
        std::vector<std::pair<Time, Time>> closed_in_call; // spans closed since the call's entry
        boost::container::small_vector<std::pair<Time, Time>, 1> calls_at_instant; // undecided
    };
    /// A process's parallel regions (its master's 60000001 events) and their keys
    /// (region_key: the first outlined function at or after the entry, else the region's value).
    struct Process {
        replay::RegionEdges edges;
        std::vector<Time> useful_at_entry;              // per thread of the process
        std::optional<std::uint64_t> key, fallback_key; // of the open region
        /// Executions ended before an outlined function told their key: kept until one comes.
        struct Unkeyed {
            std::uint64_t fallback_key;
            Time length;
            std::vector<Time> useful;
        };
        std::vector<Unkeyed> unkeyed;
        Time outlined_time = k_never, parallel_time = k_never; // the first non-zero values at
        std::uint64_t outlined_value = 0, parallel_value = 0;  // the latest times seen
    };

    void refuse_earlier(Time time) const;
    void settle(replay::ThreadIndex t, Time time);
    void apply_changes(replay::ThreadIndex t);
    void decide_call(replay::ThreadIndex t, Time begin, Time end);
    void region_event(std::uint32_t process, Time time, std::uint32_t type, std::uint64_t value);
    void close_region(std::uint32_t process, Time begin, Time end);

    HybridRun& run_;
    /// What every record of a thread touches, in one cache line: with tens of thousands of
    /// threads, each array of them was a miss per record.
    struct alignas(replay::k_cache_line) PerThread {
        RunningClock running;
        Time mpi_outside_omp = 0;      // added to run_'s breakdowns by finish()
        std::unique_ptr<Thread> stack; // null until the thread's first stack event
        bool in_call = false;
    };
    std::vector<PerThread> threads_;
    std::vector<Process> processes_;
    Time watermark_ = k_never;
};

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the trace builder derives from a trace's records, handed over as it goes instead of kept:
// for analyses that stream a trace (replay/streaming/) in memory bounded by its width, not its
// length. A builder given an observer checks every record as always but fills no columns.
#include "replay/cache_line.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/trace.hpp"

#include <cstdint>
#include <functional>
#include <optional>

namespace popsim::replay {

/// A finished MPI call of one thread, with its collective attributes when its entry had any.
struct ObservedCall {
    Time begin = 0;
    Time end = 0;
    std::uint16_t id = 0;
    std::optional<CollectiveAttributes> attributes; // `call` is the call's number on its thread
};

/// On cache lines of its own (cache_line.hpp): the observers of a reader run in different stages
/// of its pipeline, each writing its own on every record.
class alignas(k_cache_line) TimelineObserver {
  public:
    virtual ~TimelineObserver() = default;
    /// `thread` enters MPI call `id` at `time` (call() follows once it leaves).
    virtual void entered(ThreadIndex thread, Time time, std::uint16_t id) = 0;
    /// State `value` covers [begin, end) of `thread` (k_no_state: a gap no record covers).
    virtual void state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) = 0;
    /// Calls come in each thread's order, once left (or closed at the trace's end).
    virtual void call(ThreadIndex thread, const ObservedCall& call) = 0;
    /// Where prv2dim ends a CPU burst of `thread` besides at its calls (the end of a piece, in
    /// time order), when ReadOptions::cut_bursts_if asked for the cuts.
    virtual void burst_cut(ThreadIndex /*thread*/, Time /*time*/) {}
    /// An event of a tracked type (ReadOptions::tracked_event_types).
    virtual void event(ThreadIndex thread, Time time, std::uint32_t type, std::uint64_t value) = 0;
    /// A communication record, numbered in file order from 0.
    virtual void comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& record,
                      std::uint64_t number) = 0;
    /// Every record of the file up to here has been handed over; `time` is this record's place
    /// in the file's time order: a state's begin, an event's time, the earlier of a
    /// communication's sends (Extrae's merger sorts communications by their physical send,
    /// popsim synth by their logical one).
    virtual void reached(Time time) = 0;
    /// A record of `thread` comes soon (a few records ahead): start loading the state it will
    /// touch. With thousands of threads each thread's state is a cache miss per record, which
    /// the processor then overlaps with the work on the records before.
    virtual void prefetch(ThreadIndex /*thread*/) const {}
    /// Asked by a reader that reads in a pipeline (the Paraver reader), before the first record
    /// and once the records of each block are handed over: the work the observer would rather
    /// not do in the reader's ordered stage, which the reader then runs in a later ordered stage,
    /// block after block, beside the parsing of later blocks (an empty function: none).
    virtual std::function<void()> work_after_block() { return {}; }
};

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Cuts a stream of Paraver records to a time window: states clipped to its edges, events and
// messages inside it kept, times rebased to its start; what is in effect at the start (the open
// MPI call with its collective attributes, regions, OpenMP constructs) set again there, and every
// value still set at the end reset to 0 there, so the cut opens and closes cleanly. A counter
// read that closes a useful burst begun before the window is set to 0, as Paraver's cutter does:
// its delta counts work before the window. The one
// mechanism behind `popsim cut` (records from a file) and the in-memory windows of `--from/--to`,
// `--region` and `--phases` (records from the trace model): both give the same trace.
#include "replay/focus/time_window.hpp"
#include "replay/input/paraver_header.hpp"
#include "replay/input/paraver_records.hpp"

#include "replay/trace.hpp"

#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

namespace popsim::replay {

/// Where the window's records go (a TraceBuilder, a ParaverWriter).
class RecordSink {
  public:
    virtual ~RecordSink() = default;
    virtual void state(const StateRecord& record) = 0;
    virtual void event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) = 0;
    virtual void comm(const CommRecord& record) = 0;
};

/// A record at or before the window's start that comes after a record past it: the stream is not
/// sorted by time across threads, so what was in effect at the start is no longer known.
class UnsortedRecords : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class RecordWindow final : public RecordSink {
  public:
    /// `header` gives the threads the records name (their owners must be valid for it).
    RecordWindow(const ParaverHeader& header, TimeWindow window, RecordSink& sink);

    /// Each thread's records in time order; every record at or before `from` before any record
    /// after it (as in a trace sorted by time). Throws UnsortedRecords otherwise.
    void state(const StateRecord& record) override;
    void event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) override;
    void comm(const CommRecord& record) override;
    /// Sets what is in effect at the start (if no record after it came) and resets at the end
    /// what is still set.
    void finish();
    /// Per task and communicator, the collectives that ended at or before `from` (seen so far).
    std::vector<CollectivesBeforeCut> collectives_before() const;

  private:
    struct ThreadEffects {
        std::optional<RecordOwner> owner;  // as its latest record names it
        std::vector<EventPair> call_entry; // the open MPI call's entry and collective attributes
        Time call_entry_time = 0;
        std::vector<EventPair> set_values;        // other event types with a value other than 0
        std::optional<StateRecord> opening;       // the state in effect at `from`, clipped
        bool running_before_start = false;        // a useful burst that began before `from`
        std::vector<std::uint32_t> counters_read; // counter types read since `from`
    };

    ThreadEffects& thread(const RecordOwner& owner);
    void apply(ThreadEffects& t, Time time, std::span<const EventPair> pairs);
    void count_collective_before(const ThreadEffects& t);
    void start();
    void check_before_start(const char* what, Time time) const;

    CollectiveCounts before_;
    TimeWindow window_;
    RecordSink& sink_;
    ThreadNumbering numbering_;
    std::vector<ThreadEffects> threads_;
    bool started_ = false;
    std::vector<EventPair> kept_; // scratch
};

} // namespace popsim::replay

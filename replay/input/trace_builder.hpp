// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Turns parsed Paraver records, in file order, into the compact Trace model, checking them against
// the header and each other. Every violation is a TraceError naming the file and line.
#include "replay/cache_line.hpp"
#include "replay/focus/record_window.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/input/prv2dim_cuts.hpp"
#include "replay/input/timeline_observer.hpp"
#include "replay/trace.hpp"

#include <limits>
#include <span>

namespace popsim::replay {

class TraceBuilder;

/// The builder fed as a RecordSink (by the reader, a RecordWindow, the in-memory windows), each
/// record named by `line`, the line of the record that made it (0: none).
class BuilderInput final : public RecordSink {
  public:
    explicit BuilderInput(TraceBuilder& builder) : builder_(builder) {}
    void state(const StateRecord& r) override;
    void event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) override;
    void comm(const CommRecord& r) override;
    TraceBuilder& builder() { return builder_; }
    std::uint64_t line = 0;

  private:
    TraceBuilder& builder_;
};

class alignas(k_cache_line) TraceBuilder { // its stage writes it on every record
  public:
    /// `trace.header` and `trace.path` must be set; the builder creates the thread timelines.
    /// `allow_truncated`: a trace whose records stop before the end its header declares is
    /// analysed up to its last record, with a warning, instead of refused.
    TraceBuilder(Trace& trace, std::vector<std::uint32_t> tracked_event_types,
                 bool allow_truncated);
    /// From now on states, calls, tracked events and communications go to `observer` instead of
    /// the timelines (call it before the first record).
    void hand_over_to(TimelineObserver& observer) { observer_ = &observer; }
    /// Records where prv2dim cuts each thread's CPU bursts (ThreadTimeline::burst_cuts, or the
    /// observer's burst_cut); call it before the first record.
    void cut_bursts_as_prv2dim() { cutters_.resize(trace_.threads.size()); }
    /// The observer's work after a block of records (TimelineObserver::work_after_block).
    std::function<void()> work_after_block() {
        return observer_ ? observer_->work_after_block() : std::function<void()>();
    }

    /// Starts loading what a record of `owner` will touch, a few records ahead of it: with
    /// thousands of threads each record's thread state is a cache miss (TimelineObserver::
    /// prefetch). An owner the header does not declare is refused when its record comes.
    void prefetch(const RecordOwner& owner) const;

    void add_state(const StateRecord& record, std::uint64_t line);
    void add_event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs,
                   std::uint64_t line);
    void add_comm(const CommRecord& record, std::uint64_t line);
    /// The file's last line has no newline: it was cut in the middle (it is not parsed).
    void ends_mid_line(std::uint64_t line);
    /// Closes what the body left open; call once after the last record, with the file's last
    /// line number.
    void finish(std::uint64_t last_line);

  private:
    /// Running bursts still waiting for their counter read, per counter (see attribute_counter).
    struct PendingReads {
        std::uint32_t earlier = 0; // bursts that began before `latest_begin`
        bool latest = false;       // the burst that began at `latest_begin`
    };
    /// A thread's checks, in the order a record reads them: what every state and event reads
    /// first, within the first cache line (at thousands of threads, each line a record touches
    /// is a miss).
    struct alignas(k_cache_line) ThreadScratch {
        // Each thread's records come in time order (as Extrae and Paraver's tools write them).
        Time latest_state_begin = 0;
        Time latest_event = 0;
        Time latest_running_begin = 0;
        // The latest state and call, which the checks need (with an observer, no column has them).
        Time last_state_begin = 0;
        PendingReads instructions;
        PendingReads cycles;
        std::uint32_t calls = 0; // entered so far
        std::uint8_t last_state_value = k_no_state;
        bool any_state = false;
        bool call_open = false;
        bool cut_start_noted = false; // its cut-start exit is in the warnings already
        // Reads that fall inside a Running burst rather than at its end: counters sampled at
        // sample points (e.g. folding's NAMD trace), summed as a fallback (finish()).
        std::uint64_t sampled_instructions = 0;
        std::uint64_t sampled_cycles = 0;
        ObservedCall latest_call;
    };

    /// The thread `owner` names, or k_undeclared: not a std::optional, which GCC returns through
    /// the stack in two narrow stores and one wide load that the processor cannot forward (the
    /// stall had 13 % of analyze's samples at 16,384 ranks).
    static constexpr ThreadIndex k_undeclared = std::numeric_limits<ThreadIndex>::max();
    ThreadIndex declared_thread(const RecordOwner& owner) const;
    /// The thread `owner` names, else a TraceError saying what the header lacks.
    ThreadIndex resolve(const RecordOwner& owner, std::uint64_t line) const;
    [[noreturn]] void refuse_owner(const RecordOwner& owner, std::uint64_t line) const;
    void note_time(Time time, std::uint64_t line);
    void check_order(Time time, Time& latest, const char* record, ThreadIndex thread,
                     std::uint64_t line);
    void check_truncation(std::uint64_t last_line);
    void attribute_counter(ThreadIndex thread, Time time, const EventPair& pair,
                           std::uint64_t line);
    /// total += reads * value, or a TraceError at `line` past 2^64.
    void add_count(std::uint64_t& total, std::uint64_t reads, std::uint64_t value,
                   std::uint64_t line) const;
    void enter_call(ThreadIndex thread, Time time, const EventPair& pair, std::uint64_t line);
    void leave_call(ThreadIndex thread, Time time, const EventPair& pair, bool reset_record,
                    std::uint64_t line);
    void add_collective_attribute(ThreadIndex thread, Time time, const EventPair& pair,
                                  std::uint64_t line);
    void track(ThreadIndex thread, Time time, const EventPair& pair);
    bool tracks(std::uint32_t type) const; // one of ReadOptions::tracked_event_types
    void keep_state(ThreadIndex thread, Time begin, Time end, std::uint8_t value);
    /// The thread's latest call is over: into its timeline, or to the observer.
    void keep_call(ThreadIndex thread);
    void use_sampled_counters_if_needed();
    void note_overlap(const ThreadTimeline& tl, const StateRecord& r, std::uint64_t line);
    [[noreturn]] void fail(std::uint64_t line, const std::string& cause) const;
    /// "thread 1.2.1 at 0.5 s (line 12)", for warnings.
    static std::string where(const ThreadTimeline& tl, Time time, std::uint64_t line);

    Trace& trace_;
    std::vector<std::uint32_t> tracked_types_;
    bool allow_truncated_;
    bool tracks_counters_; // windows need every counter read kept (focus_event_types)
    TimelineObserver* observer_ = nullptr;
    /// A task's threads: the number of its first and how many the header declares. One table
    /// for both, so that a record's owner is checked and numbered with one cache line: with
    /// thousands of tasks, the header's tasks and the numbering's were a miss each.
    struct TaskThreads {
        std::uint32_t first, count;
    };
    /// An application's tasks; where each has one thread, their numbers follow its first task's
    /// and the table is not read (with tens of thousands of tasks, a miss per record).
    struct ApplicationThreads {
        bool one_per_task = false;
        std::uint32_t first = 0; // its first task's thread
        std::vector<TaskThreads> tasks;
        /// The threads of task `task` (1-based, declared).
        TaskThreads of_task(std::uint32_t task) const {
            return one_per_task ? TaskThreads{first + task - 1, 1} : tasks[task - 1];
        }
    };
    static std::vector<ApplicationThreads> task_threads(const ParaverHeader& header);
    std::vector<ApplicationThreads> task_threads_; // [application], 0-based
    std::uint32_t total_cpus_; // the header's, checked against every record's CPU
    std::vector<ThreadScratch> scratch_;
    std::vector<Prv2dimCuts> cutters_; // per thread, with cut_bursts_as_prv2dim(); else empty
    std::vector<Time> new_cuts_;       // what a record's cutter found, handed on by keep_cuts
    void keep_cuts(ThreadIndex t);
    std::uint64_t overlaps_ = 0;
    std::string first_overlap_;
    // What a cutter leaves (Paraver's cutter; docs/replay.md, "Cut traces").
    Time last_record_ = 0; // the latest time of any record: past the header's end in a cut
                           // trace, before it in a truncated one
    std::uint64_t mid_line_cut_ = 0; // the unterminated last line, if any
    std::uint64_t records_after_end_ = 0;
    std::string first_after_end_;
};

} // namespace popsim::replay

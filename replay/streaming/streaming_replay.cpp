// SPDX-License-Identifier: BSD-3-Clause
#include "replay/streaming/streaming_replay.hpp"

#include "replay/cache_line.hpp"
#include "replay/extrae_events.hpp"
#include "replay/program/call_roles.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/program/openmp_regions.hpp"
#include "replay/ring.hpp"
#include "replay/streaming/program_recorder.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <boost/pool/pool.hpp>
#include <deque>
#include <fmt/format.h>
#include <queue>
#include <tuple>

namespace popsim::replay {

namespace {

constexpr Time k_unset = -1;

const char* role_name(Role role) {
    switch (role) {
    case Role::send:
        return "send";
    case Role::post:
        return "receive's post";
    case Role::complete:
        return "receive's completion";
    }
    return "?";
}

[[noreturn]] void unsupported(const std::string& why) {
    throw StreamingUnsupported(why);
}

struct StreamMessage;
using RegionStep = ProgramRecorder::RegionStep;

std::size_t index(Role role) {
    return static_cast<std::size_t>(role);
}

/// A call of a replayed thread, from when it is left until no record is expected to refer to it
/// (Impl::history calls after the replay reached it). Small and trivially destructible: a thread
/// keeps up to a thousand of them, and a trace has millions; with tens of thousands of threads
/// (at least 32 calls each) they are most of the replay's memory.
struct StreamCall {
    Time begin = 0, end = 0;
    Time reached = k_unset; // when the replay reached it
    std::uint16_t id = 0;
};

/// The messages a call sends, posts and completes (by Role), each list linked through the
/// messages (StreamMessage::next): the sends and completions until the call is emitted, the posts
/// until the replay reaches it. Only calls not yet reached have them (StreamThread::placed).
using PlacedMessages = std::array<StreamMessage*, 3>;

/// What the program records of a call once it leaves the history (with a ProgramRecorder only):
/// how much of what it left when it was emitted waits, in emission order, in its thread's queues
/// (ThreadRecord). Its receive posts, which records add until it leaves the history,
/// wait there too. With tens of thousands of threads, 42 calls each, a call with its own lists
/// held 115 MB; this one is 32 bytes.
struct RecordedCall {
    static constexpr std::uint64_t k_no_collective = std::numeric_limits<std::uint64_t>::max();
    Time burst_before = 0;
    std::uint64_t collective = k_no_collective; // the collective it joins
    std::uint32_t regions = 0;                  // the first thread's region steps before it
    std::uint32_t pieces = 0;                   // prv2dim's pieces before burst_before (burst_cut)
    std::uint32_t sent = 0, completed = 0;
};

/// A multiset of times that answers its earliest: a min-heap whose erased entries wait in a second
/// heap until they reach the top. With thousands of ranks inside sending calls, a sorted array
/// moved its whole tail each time the earliest left.
class EarliestOpen {
  public:
    void insert(Time t) { open_.push(t); }
    /// Erases one entry equal to `t`, which must be in the set.
    void erase(Time t) {
        erased_.push(t);
        settle();
    }
    bool empty() const { return open_.empty(); }
    Time earliest() const { return open_.top(); }

  private:
    using MinHeap = std::priority_queue<Time, std::vector<Time>, std::greater<>>;
    void settle() {
        while (!erased_.empty() && open_.top() == erased_.top()) {
            open_.pop();
            erased_.pop();
        }
    }
    MinHeap open_, erased_;
};

struct PendingRole {
    Time time;
    Role role;
    StreamMessage* message;
};

/// An operation of the program (replay_program.hpp), with `enter` standing for the call's
/// receive posts: they all happen when the thread reaches the call; `fork` and `thread_join` for
/// a parallel region's barriers among the task's threads.
enum class StepKind : std::uint8_t { burst, enter, send, wait, join, fork, thread_join };
/// 16 bytes: a thread's steps are written once per operation, tens of thousands of queues apart.
struct Step {
    std::uint64_t value = 0;  // burst: duration; enter: call number; send: its message (message());
                              // wait: how many messages (in wait_messages); join: collective id;
                              // thread_join: the longest work of a worker thread in the region
    std::uint32_t member = 0; // join: the thread's place among the collective's members
    StepKind kind = StepKind::burst;
    bool in_region = false; // of a call begun in a parallel region

    static std::uint64_t of(StreamMessage* m) { return std::bit_cast<std::uint64_t>(m); }
    StreamMessage& message() const { return *std::bit_cast<StreamMessage*>(value); }
};
static_assert(sizeof(Step) == 16);

/// A parallel region of a task's first thread, from its entry until its barriers are emitted.
struct StreamRegion {
    std::uint32_t number = 0;      // on its task, from 0
    Time begin = 0, end = k_unset; // end: once its exit is read
    Time arrival = 0;              // the first thread's at the join, from its states
    Time last_arrival = 0;         // the latest at the join of the other threads, and the entry
    Time workers_work = 0;         // the longest work of another thread in it
    Time last_call_end = k_unset;  // of the first thread's last call begun in it
    bool forked = false;
};

/// A thread's latest two states that do work (not waits_for_work): enough to find when it
/// reached a region's join once the region's exit is read (at most one state begins there).
class RecentWork {
  public:
    void add(Time begin, Time end) {
        states_[0] = states_[1];
        states_[1] = {begin, end};
    }
    /// As barrier_arrival, from the states: the end of the latest that begins in the region
    /// before its end, clipped to it; the region's entry when there is none.
    Time arrival(Time begin, Time end) const {
        for (auto it = states_.rbegin(); it != states_.rend(); ++it) {
            if (it->first == k_unset || it->first >= end) continue;
            return std::max(begin, std::min(it->second, end));
        }
        return begin;
    }

  private:
    std::array<std::pair<Time, Time>, 2> states_{{{k_unset, k_unset}, {k_unset, k_unset}}};
};

/// A thread's replay state. Aligned to a cache line, and what running its steps reads (the steps,
/// its clock, its times) side by side: with tens of thousands of threads each record's thread is a
/// cache miss, one per line it reads (bench/cache.py: 11.69 -> 11.44 L1d misses per record at
/// 16,384 ranks).
struct alignas(k_cache_line) StreamThread {
    ThreadIndex trace_thread = 0;
    std::uint32_t task = 0;
    Ring<StreamCall> calls;
    Ring<PlacedMessages> placed_lists; // of the calls from next_reach on
    // The attributes of the collectives among the calls not yet emitted, with their numbers.
    Ring<std::pair<std::uint64_t, CollectiveAttributes>> attributes;
    std::uint64_t first_call = 0; // number of calls.front()
    std::uint64_t next_emit = 0;  // number of the next call to emit
    std::uint64_t next_reach = 0; // number of the next call the replay reaches
    bool in_call = false;         // entered a call not yet left
    Time entered_at = 0;
    std::optional<Time> open_send; // the entry of its call that sends, in Impl::open_sends
    std::vector<PendingRole> pending;
    Time previous_end = 0; // traced end of the last emitted call
    Ring<Time> cuts;       // where prv2dim cuts its bursts, not yet reached (burst_cut)
    Ring<Step> steps;
    Time now = 0;
    Time step_begin = 0;
    bool step_begun = false;
    bool scheduled = false;
    ThreadTimes times;
    Time mpi_outside_omp = 0;
    Ring<StreamMessage*> wait_messages;
    std::uint64_t joins = 0; // collectives joined so far (the in-memory program's order)
    RegionEdges region_edges;
    Ring<StreamRegion> regions; // begun, their barriers not yet emitted
    std::uint32_t regions_begun = 0;
    bool fork_join = false; // the task's other threads are replayed in its regions
    Time fork_time = 0;     // when it left the fork of its current region

    StreamCall& call(std::uint64_t number) { return calls[number - first_call]; }
    /// Of a call not yet reached.
    PlacedMessages& placed(std::uint64_t number) { return placed_lists[number - next_reach]; }
    bool emitted(std::uint64_t number) const { return number < next_emit; }
};

/// What a thread's calls leave for the program until they leave the history (with a
/// ProgramRecorder only): its kept calls, beside StreamThread::calls; what they left when they
/// were emitted, in order, then the region steps and pieces emitted since the last call; and the
/// receives they post.
struct ThreadRecord {
    Ring<RecordedCall> calls;
    Ring<RegionStep> regions;
    Ring<Time> pieces;
    Ring<MessageIndex> messages;                        // each call's sends, then its completions
    Ring<std::pair<std::uint64_t, MessageIndex>> posts; // (call, message), in that order
    std::uint32_t regions_since_call = 0;               // region steps at the back of `regions`
};

struct StreamMessage {
    std::uint64_t record = 0; // its record's number
    ReplayThread sender = 0, receiver = 0;
    Time logical_send = 0, logical_recv = 0, physical_recv = 0;
    std::uint64_t bytes = 0;
    std::uint32_t tag = 0;
    bool rendezvous = false;
    bool immediate_send = false;
    bool sent = false, received = false; // the sender, the receiver left the operation
    Time issue = k_unset, post = k_unset, arrival = k_unset;
    std::array<StreamMessage*, 3> next{}; // in the lists of the calls it is placed in, by Role

    auto key() const {
        return std::tuple(sender, receiver, logical_send, logical_recv, physical_recv, bytes, tag);
    }
};

struct Member {
    ReplayThread thread;
    std::uint64_t join_number; // its thread's joins before it
    Time call_begin, call_end;
    bool is_root;
    Time arrival = k_unset;
    Time leave = k_unset;
};

struct StreamCollective {
    Collective shape;           // the program's: call, communicator, sizes, root; members once all
    std::uint64_t sequence = 0; // from 1
    std::size_t expected = 0;
    std::vector<Member> members; // as they join
    std::size_t arrived = 0, left = 0;
};

/// Warning instances met in any order but listed in the in-memory program's (thread, then
/// number on the thread): the first WarningLog::k_kept_instances of them are kept.
class OrderedInstances {
  public:
    using Key = std::pair<ReplayThread, std::uint64_t>;
    void add(Key key, std::string text) {
        ++count_;
        kept_.emplace(key, std::move(text));
        if (kept_.size() > WarningLog::k_kept_instances) kept_.erase(std::prev(kept_.end()));
    }
    bool empty() const { return count_ == 0; }
    Key first() const { return kept_.begin()->first; }
    void into(WarningLog& log, const ProgramWarning& w) const {
        std::vector<std::string> texts;
        for (const auto& [key, text] : kept_) texts.push_back(text);
        log.add_many(w.kind, w.summary, count_, std::move(texts));
    }

  private:
    std::uint64_t count_ = 0;
    std::map<Key, std::string> kept_;
};

} // namespace

struct alignas(k_cache_line) StreamingReplay::Impl { // written by its stage on every callback
    std::vector<ThreadName> names; // of the trace's threads (the reader's Trace moves on)
    const ProgramOptions options;
    std::vector<ReplayThread> thread_of_trace; // k_none for threads not replayed
    bool threads_are_tasks = false; // Trace::threads_are_tasks: replay thread t is trace thread t
    std::vector<StreamThread> threads;     // one per task
    std::vector<ThreadIndex> task_threads; // task k: [task_threads[k], task_threads[k + 1])
    bool cutting = false;                  // bursts are cut where prv2dim cuts them
    std::vector<bool> tracks_work;         // per trace thread: in a task with fork/join
    std::vector<RecentWork> work;          // per trace thread, when any tracks it
    std::size_t history;                   // calls kept per thread once replayed
    ProgramCommunicators communicators;
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint64_t> sequence; // (comm, task)
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> open_collectives;
    std::unordered_map<std::uint64_t, StreamCollective> collectives; // by id
    std::uint64_t next_collective = 0;
    // The messages in flight, made and forgotten millions of times: one pool of fixed-size slots
    // rather than a heap allocation (and a hash table) each.
    boost::pool<> messages{sizeof(StreamMessage)};
    // When work becomes possible: (time the file must pass, thread).
    std::priority_queue<std::pair<Time, ReplayThread>, std::vector<std::pair<Time, ReplayThread>>,
                        std::greater<>>
        wakeups;
    Time watermark = std::numeric_limits<Time>::min();
    std::vector<ReplayThread> runnable;
    // When the threads inside calls that send began: a record comes at its physical send, which
    // for a blocking send is the call's exit, after its receive may have completed. A call that
    // completes receives waits until the file has passed the exit of every sending call begun
    // before its end.
    EarliestOpen open_sends;
    using OpenSend = std::pair<Time, Time>; // (its exit, its entry)
    std::priority_queue<OpenSend, std::vector<OpenSend>,
                        decltype(
                            [](const OpenSend& a, const OpenSend& b) { return a.first > b.first; })>
        left_sends;
    std::vector<ReplayThread> stalled; // threads whose next call waits so
    std::vector<ReplayThread> due;     // threads to advance as the file moves on (reused)
    OrderedInstances calls_without_record, roots;
    std::size_t left_early_count = 0;
    std::pair<ReplayThread, std::uint64_t> first_left_early_key{};
    std::string first_left_early;
    std::optional<ProgramRecorder> recorder;          // writes the program down, when it is kept
    std::vector<ThreadRecord> records;                // per task, with the recorder
    std::vector<StreamMessage*> sends_, completions_; // of the call emitted (reused)
    // What record_front hands the recorder, taken out of a thread's queues (reused).
    std::vector<RegionStep> scratch_regions;
    std::vector<Time> scratch_pieces;
    std::vector<MessageIndex> scratch_messages, scratch_posts;
    std::vector<std::uint32_t> member_tasks; // complete()'s, kept for its capacity
    /// `live` replays the recorder's program as it is written.
    Impl(const Trace& t, const ProgramOptions& o, bool keep_program, LiveReplays* live)
        : options(o) {
        for (const auto& thread : t.threads) names.push_back(thread.name);
        if (t.header.applications.size() != 1) unsupported("the trace has several applications");
        const auto tasks = t.task_count();
        communicators = program_communicators(t.header, tasks, nullptr);
        if (!communicators.foreign_task.empty())
            unsupported("communicator lines name foreign tasks");
        thread_of_trace.assign(t.thread_count(), k_none);
        const auto first = t.first_threads();
        task_threads.assign(first.begin(), first.end());
        task_threads.push_back(static_cast<ThreadIndex>(t.thread_count()));
        tracks_work.assign(t.thread_count(), false);
        threads.resize(tasks);
        for (std::uint32_t task = 0; task < tasks; ++task) {
            thread_of_trace[first[task]] = task;
            threads[task].trace_thread = first[task];
            threads[task].task = task;
            // As build_replay_program: a task's other threads are replayed in its regions.
            threads[task].fork_join = o.threads && task_threads[task + 1] - first[task] > 1;
            for (ThreadIndex th = first[task]; th < task_threads[task + 1]; ++th)
                tracks_work[th] = threads[task].fork_join;
        }
        threads_are_tasks = t.threads_are_tasks();
        if (std::find(tracks_work.begin(), tracks_work.end(), true) != tracks_work.end())
            work.resize(t.thread_count());
        if (keep_program) {
            recorder.emplace(first, live);
            records.resize(tasks);
        }
        // Enough for an Irecv posted many calls before its message is sent; a record referring
        // further back sends the trace to the in-memory replay. About 40,000 calls in all (2.6 MB
        // with what the recorder keeps of them; with or without it, the same traces stream), and
        // at least 32 however many tasks: among the real traces of ../shared/data a record
        // refers back up to 18 calls past the one the replay reached (cgpop, 24 tasks).
        constexpr std::size_t k_calls_kept = 40'000;
        history = std::clamp<std::size_t>(k_calls_kept / std::max(tasks, 1u), 32, 1024);
    }

    ReplayThread replayed(ThreadIndex t, const char* what) const {
        if (threads_are_tasks) return t;
        const ReplayThread th = thread_of_trace[t];
        if (th == k_none) {
            unsupported(
                fmt::format("thread {} is not its task's first and {}", to_string(names[t]), what));
        }
        return th;
    }

    // --- placing records in calls -------------------------------------------------------------

    /// The number of the latest call of `th` beginning at or before `t`, k_no_call if none.
    std::uint64_t latest_beginning_by(const StreamThread& th, Time t) const {
        // Records mostly name the latest calls: look there first.
        constexpr std::size_t k_near = 8;
        auto it = th.calls.end();
        for (std::size_t k = 0; k < k_near && it != th.calls.begin() && std::prev(it)->begin > t;
             ++k)
            --it;
        if (it != th.calls.begin() && std::prev(it)->begin > t) {
            it = std::upper_bound(th.calls.begin(), it, t,
                                  [](Time x, const StreamCall& c) { return x < c.begin; });
        }
        if (it == th.calls.begin()) {
            if (th.first_call > 0) unsupported("a record refers to a call replayed long before");
            return k_no_call;
        }
        return th.first_call + static_cast<std::uint64_t>(it - th.calls.begin()) - 1;
    }

    void place(StreamThread& th, const PendingRole& r) {
        const std::uint64_t last = latest_beginning_by(th, r.time);
        if (last != k_no_call && last == th.first_call && last > 0)
            unsupported("a record refers to a call replayed long before");
        const std::uint64_t c = call_playing(
            r.time, r.role, last, [&](std::uint64_t i) { return th.call(i).begin; },
            [&](std::uint64_t i) { return th.call(i).end; },
            [&](std::uint64_t i) { return th.call(i).id; });
        if (c == k_no_call || !can_play(call_class(th.call(c).id), r.role)) {
            unsupported(fmt::format("communication record {} lies outside calls that carry it "
                                    "(its {} on task {} at {} ns)",
                                    r.message->record + 1, role_name(r.role), th.task + 1, r.time));
        }
        StreamCall& call = th.call(c);
        StreamMessage& m = *r.message;
        switch (r.role) {
        case Role::send:
            if (th.emitted(c)) unsupported("a record arrives after its send was replayed");
            m.immediate_send = call_class(call.id) == CallClass::immediate_send;
            if (m.immediate_send && recorder)
                recorder->sent_immediately(static_cast<MessageIndex>(m.record));
            link(th.placed(c), m, Role::send);
            break;
        case Role::complete:
            if (th.emitted(c)) unsupported("a record arrives after its receive was replayed");
            link(th.placed(c), m, Role::complete);
            break;
        case Role::post:
            if (recorder) record_post(th, c, static_cast<MessageIndex>(m.record));
            if (call.reached != k_unset) {
                set_post(m, call.reached);
            } else {
                link(th.placed(c), m, Role::post);
            }
            break;
        }
    }

    static void link(PlacedMessages& placed, StreamMessage& m, Role role) {
        m.next[index(role)] = std::exchange(placed[index(role)], &m);
    }

    /// Takes the call's messages of the role out of it, into `out` in record order (the
    /// in-memory program's); its completions in wait_order, as the in-memory program lists them.
    static void take(PlacedMessages& placed, Role role, std::vector<StreamMessage*>& out) {
        out.clear();
        for (auto* m = std::exchange(placed[index(role)], nullptr); m; m = m->next[index(role)])
            out.push_back(m);
        if (role == Role::complete) {
            std::sort(out.begin(), out.end(), [](auto* a, auto* b) {
                return wait_order(a->physical_recv, a->record) <
                       wait_order(b->physical_recv, b->record);
            });
        } else {
            std::sort(out.begin(), out.end(),
                      [](auto* a, auto* b) { return a->record < b->record; });
        }
    }

    bool placeable(const StreamThread& th, const PendingRole& r, Time limit) const {
        return r.time < limit && !(th.in_call && th.entered_at <= r.time);
    }

    /// Places the thread's records and emits its calls as far as the file has been read.
    void advance(ReplayThread t, Time limit) {
        StreamThread& th = threads[t];
        Time earliest_left = std::numeric_limits<Time>::max(); // of the records not placed
        std::erase_if(th.pending, [&](const PendingRole& r) {
            if (!placeable(th, r, limit)) {
                earliest_left = std::min(earliest_left, r.time);
                return false;
            }
            place(th, r);
            return true;
        });
        while (th.next_emit < th.first_call + th.calls.size()) {
            StreamCall& call = th.call(th.next_emit);
            if (call.end >= limit) break;
            if (can_play(call_class(call.id), Role::complete) && !open_sends.empty() &&
                open_sends.earliest() <= call.end) {
                stalled.push_back(t);
                break;
            }
            if (earliest_left <= call.end) break; // the call waits for a record
            const bool in_region = pass_regions_before(th, call);
            emit(th, th.next_emit++, in_region);
        }
        if (th.next_emit == th.first_call + th.calls.size()) pass_ended_regions(th);
        schedule(t);
    }

    // --- parallel regions ---------------------------------------------------------------------

    void refuse_earlier(Time time) const {
        if (time < watermark) unsupported("OpenMP records are not in time order");
    }

    /// The task's first thread's region events (60000001), as RegionEdges reads them.
    void region_event(ReplayThread t, Time time, std::uint64_t value) {
        StreamThread& th = threads[t];
        const bool was_open = th.region_edges.open().has_value();
        if (const auto region = th.region_edges.event(time, value)) {
            close_region(th, region->second);
            wake_at(time, t);
        } else if (!was_open && th.region_edges.open()) {
            if (cutting) unsupported("OpenMP regions, with bursts cut where prv2dim cuts them");
            th.regions.emplace_back() = {.number = th.regions_begun++, .begin = time};
        }
    }

    /// The region's exit at `end` is read, and every state before it: when each of the task's
    /// threads reached the join, as barrier_arrival has it (the first thread's calls are added
    /// as they are emitted).
    void close_region(StreamThread& th, Time end) {
        StreamRegion& r = th.regions.back();
        r.end = end;
        if (!th.fork_join) return;
        const ThreadIndex first = task_threads[th.task];
        r.arrival = work[first].arrival(r.begin, end);
        r.last_arrival = r.begin;
        std::vector<Time> workers; // each one's work, for the recorder only
        for (ThreadIndex w = first + 1; w < task_threads[th.task + 1]; ++w) {
            const Time arrival = work[w].arrival(r.begin, end);
            r.workers_work = std::max(r.workers_work, arrival - r.begin);
            r.last_arrival = std::max(r.last_arrival, arrival);
            if (recorder) workers.push_back(arrival - r.begin);
        }
        if (recorder) recorder->region_workers(th.task, r.number, workers);
    }

    /// Emits the barriers of the regions before `call`; returns whether the call lies in a region
    /// (also when the region's exit is not read yet: the call ended before it).
    bool pass_regions_before(StreamThread& th, const StreamCall& call) {
        while (!th.regions.empty()) {
            StreamRegion& r = th.regions.front();
            if (call.begin < r.begin) return false;
            fork(th, r);
            if (r.end == k_unset || call.begin < r.end) {
                r.last_call_end = call.end;
                return true;
            }
            join(th, r);
            th.regions.pop_front();
        }
        return false;
    }

    /// Every call read is emitted: emits the barriers of the regions whose exit is read, unless
    /// the thread is in a call begun before that exit.
    void pass_ended_regions(StreamThread& th) {
        while (!th.regions.empty()) {
            StreamRegion& r = th.regions.front();
            if (r.end == k_unset || (th.in_call && th.entered_at < r.end)) return;
            fork(th, r);
            join(th, r);
            th.regions.pop_front();
        }
    }

    void fork(StreamThread& th, StreamRegion& r) {
        if (std::exchange(r.forked, true) || !th.fork_join) return;
        region_burst(th, r.begin - th.previous_end);
        th.previous_end = std::max(th.previous_end, r.begin);
        add_step(th, StepKind::fork, 0);
        record_region_step(th, {RegionStep::Kind::fork, r.number});
    }

    /// As build_replay_program: the first thread computes until its own arrival, waits at the
    /// join for the others' work, then replays the traced time from the last arrival to the
    /// region's exit.
    void join(StreamThread& th, const StreamRegion& r) {
        if (!th.fork_join) return;
        Time arrival = r.arrival;
        if (r.last_call_end != k_unset)
            arrival = std::max(arrival, std::min(r.last_call_end, r.end));
        region_burst(th, arrival - th.previous_end);
        th.previous_end = std::max(th.previous_end, arrival);
        add_step(th, StepKind::thread_join, static_cast<std::uint64_t>(r.workers_work));
        record_region_step(th, {RegionStep::Kind::join, r.number});
        region_burst(th, r.end - std::max(r.last_arrival, arrival));
        th.previous_end = std::max(th.previous_end, r.end);
    }

    /// The first thread's computation at a region, also written down with its steps.
    void region_burst(StreamThread& th, Time duration) {
        put_burst(th, duration);
        if (duration > 0) record_region_step(th, {RegionStep::Kind::burst, duration});
    }

    void record_region_step(const StreamThread& th, const RegionStep& step) {
        if (!recorder) return;
        auto& record = records[th.task];
        record.regions.push_back(step);
        ++record.regions_since_call;
    }

    // --- the program --------------------------------------------------------------------------

    void emit(StreamThread& th, std::uint64_t number, bool in_region) {
        StreamCall& call = th.call(number);
        ThreadRecord* record = recorder ? &records[th.task] : nullptr;
        RecordedCall* kept = record ? &record->calls[number - th.first_call] : nullptr;
        const std::size_t pieces_before = record ? record->pieces.size() : 0;
        const Time last_piece = put_pieces(th, th.previous_end, call.begin);
        const Time burst_before = call.begin - last_piece;
        if (kept) {
            kept->regions = std::exchange(record->regions_since_call, 0);
            kept->pieces = static_cast<std::uint32_t>(record->pieces.size() - pieces_before);
            kept->burst_before = burst_before;
        }
        put_burst(th, burst_before);
        const std::size_t first_step = th.steps.size();
        th.previous_end = call.end;
        add_step(th, StepKind::enter, number);
        take(th.placed(number), Role::send, sends_);
        take(th.placed(number), Role::complete, completions_);
        for (auto* m : sends_) add_step(th, StepKind::send, Step::of(m));
        if (kept) {
            for (auto* m : sends_) record->messages.push_back(static_cast<MessageIndex>(m->record));
            for (auto* m : completions_)
                record->messages.push_back(static_cast<MessageIndex>(m->record));
            kept->sent = static_cast<std::uint32_t>(sends_.size());
            kept->completed = static_cast<std::uint32_t>(completions_.size());
        }
        if (!completions_.empty()) {
            refuse_duplicates(completions_);
            add_step(th, StepKind::wait, completions_.size());
            for (auto* m : completions_) th.wait_messages.emplace_back() = m;
        }
        const auto cls = call_class(call.id);
        if (lacks_record(cls, !sends_.empty(), !completions_.empty())) {
            calls_without_record.add(
                {th.task, number},
                call_without_record(call.id, call.begin, names[th.trace_thread]));
        }
        // The attributes of calls before this one (of no collective) are not read.
        auto& attributes = th.attributes;
        while (!attributes.empty() && attributes.front().first < number) attributes.pop_front();
        const bool has_attributes = !attributes.empty() && attributes.front().first == number;
        std::optional<std::uint64_t> collective;
        if (cls == CallClass::collective || cls == CallClass::immediate_collective) {
            collective =
                join(th, call.id, has_attributes ? &attributes.front().second : nullptr, call);
        } else if (cls == CallClass::init && options.init_barrier) {
            collective = join(th, k_mpi_barrier, nullptr, call);
        }
        if (kept && collective) kept->collective = *collective;
        for (std::size_t i = first_step; i < th.steps.size(); ++i)
            th.steps[i].in_region = in_region;
    }

    static Step& add_step(StreamThread& th, StepKind kind, std::uint64_t value) {
        Step& step = th.steps.emplace_back();
        step.kind = kind;
        step.value = value;
        return step;
    }

    void put_burst(StreamThread& th, Time duration) {
        if (duration > 0) add_step(th, StepKind::burst, static_cast<std::uint64_t>(duration));
    }

    /// The pieces prv2dim cuts the thread's computation in [from, to] into, but the last: each
    /// cut there ends one, empty ones included (written down too, with a recorder), as
    /// build_replay_program cuts them. Returns where the last piece begins.
    Time put_pieces(StreamThread& th, Time from, Time to) {
        while (!th.cuts.empty() && th.cuts.front() < from) th.cuts.pop_front(); // in calls
        for (; !th.cuts.empty() && th.cuts.front() <= to; th.cuts.pop_front()) {
            put_burst(th, th.cuts.front() - from);
            if (recorder) records[th.task].pieces.push_back(th.cuts.front() - from);
            from = th.cuts.front();
        }
        return from;
    }

    /// A merge that wrote a record twice: the in-memory reader leaves the copy out.
    void refuse_duplicates(const std::vector<StreamMessage*>& list) {
        if (list.size() < 2) return;
        std::vector<decltype(list.front()->key())> keys;
        for (const auto* m : list) keys.push_back(m->key());
        std::sort(keys.begin(), keys.end());
        if (std::adjacent_find(keys.begin(), keys.end()) != keys.end())
            unsupported("communication records are repeated");
    }

    /// Joins the thread's next collective on its communicator; returns the collective's id.
    std::uint64_t join(StreamThread& th, std::uint16_t call_id, const CollectiveAttributes* attrs,
                       const StreamCall& call) {
        const auto& comms = communicators.members;
        if (attrs && !comms.contains(attrs->communicator))
            unsupported("a collective names an undefined communicator");
        const std::uint64_t comm = attrs ? attrs->communicator : communicators.world;
        const std::uint64_t seq = sequence[{comm, th.task}]++;
        auto [it, created] = open_collectives.try_emplace({comm, seq}, next_collective);
        if (created) {
            auto& c = collectives[next_collective++];
            c.shape = {.call_id = call_id, .communicator = comm};
            c.sequence = seq + 1;
            c.expected = comms.at(comm).size();
        }
        auto& c = collectives.at(it->second);
        if (c.shape.call_id != call_id) unsupported("tasks call different collectives");
        if (attrs) take_member_attributes(c.shape, th.task, *attrs); // roots warned on completion
        const auto member = static_cast<std::uint32_t>(c.members.size());
        const std::uint64_t id = it->second;
        c.members.push_back({th.task, th.joins++, call.begin, call.end, attrs && attrs->is_root});
        add_step(th, StepKind::join, id).member = member;
        if (c.members.size() == c.expected) open_collectives.erase(it);
        return id;
    }

    // --- running the program ------------------------------------------------------------------

    void schedule(ReplayThread t) {
        if (std::exchange(threads[t].scheduled, true)) return;
        runnable.push_back(t);
    }

    void run_all() {
        while (!runnable.empty()) {
            const ReplayThread t = runnable.back();
            runnable.pop_back();
            threads[t].scheduled = false;
            run(t);
        }
    }

    void run(ReplayThread t) {
        StreamThread& th = threads[t];
        while (!th.steps.empty()) {
            const Step step = th.steps.front();
            if (!std::exchange(th.step_begun, true)) th.step_begin = th.now;
            if (!execute(th, step)) return;
        }
    }

    /// The thread leaves its current step at `at`: an MPI operation's time counts as waiting (a
    /// burst's is useful; the posts at a call's entry take none).
    void finish_step(StreamThread& th, Time at) {
        const Step& step = th.steps.front();
        switch (step.kind) {
        case StepKind::burst:
            th.times.useful += at - th.step_begin;
            break;
        case StepKind::enter:
            break;
        case StepKind::fork:
        case StepKind::thread_join:
            th.times.fork_join += at - th.step_begin;
            break;
        default:
            th.times.waiting += at - th.step_begin;
            if (!step.in_region) th.mpi_outside_omp += at - th.step_begin;
            break;
        }
        if (th.steps.front().kind != StepKind::enter) th.times.end = at;
        th.now = at;
        th.step_begun = false;
        th.steps.pop_front();
    }

    bool execute(StreamThread& th, const Step& step) {
        switch (step.kind) {
        case StepKind::burst:
            finish_step(th, add_times(th.now, static_cast<Time>(step.value)));
            return true;
        case StepKind::enter: {
            // Calls are reached in order, each once: this is the front of placed_lists.
            th.call(step.value).reached = th.now;
            for (auto* m = th.placed(step.value)[index(Role::post)]; m;) {
                auto* next = m->next[index(Role::post)];
                set_post(*m, th.now);
                m = next;
            }
            th.placed_lists.pop_front();
            th.next_reach = step.value + 1;
            finish_step(th, th.now);
            trim_history(th);
            return true;
        }
        case StepKind::send:
            return send(th, step.message());
        case StepKind::wait:
            return wait(th, step.value);
        case StepKind::join:
            return arrive(th, step.value, step.member);
        case StepKind::fork:
            // The other threads left the last join with it: they are never later here.
            th.fork_time = th.now;
            finish_step(th, th.now);
            return true;
        case StepKind::thread_join:
            finish_step(th,
                        std::max(th.now, add_times(th.fork_time, static_cast<Time>(step.value))));
            return true;
        }
        return false;
    }

    /// A rendezvous message leaves once its receive is posted; a blocking sender waits until then.
    bool send(StreamThread& th, StreamMessage& m) {
        if (m.issue == k_unset) {
            m.issue = th.now;
            if (!m.rendezvous) {
                deliver(m, m.issue);
            } else if (m.post != k_unset) {
                deliver(m, std::max(m.issue, m.post));
            }
        }
        const bool blocks = m.rendezvous && !m.immediate_send;
        if (blocks && m.arrival == k_unset) return false; // set_post wakes it
        const Time leave = blocks ? m.arrival : th.now;
        m.sent = true;
        forget_if_done(m); // m is gone once both ends are done
        finish_step(th, leave);
        return true;
    }

    void forget_if_done(StreamMessage& m) {
        static_assert(std::is_trivially_destructible_v<StreamMessage>);
        if (m.sent && m.received) messages.free(&m);
    }

    bool wait(StreamThread& th, std::uint64_t count) {
        Time latest = th.now;
        for (std::uint64_t i = 0; i < count; ++i) {
            const Time a = th.wait_messages[i]->arrival;
            if (a == k_unset) return false; // deliver wakes it
            latest = std::max(latest, a);
        }
        for (std::uint64_t i = 0; i < count; ++i) {
            StreamMessage& m = *th.wait_messages[i];
            m.received = true;
            forget_if_done(m);
        }
        th.wait_messages.erase_begin(count);
        finish_step(th, latest);
        return true;
    }

    void set_post(StreamMessage& m, Time at) {
        m.post = at;
        if (m.rendezvous && m.issue != k_unset && m.arrival == k_unset) {
            deliver(m, std::max(m.issue, at));
            schedule(m.sender); // a blocking sender goes on
        }
    }

    void deliver(StreamMessage& m, Time at) {
        m.arrival = at;
        schedule(m.receiver);
    }

    bool arrive(StreamThread& th, std::uint64_t id, std::uint32_t member) {
        StreamCollective& c = collectives.at(id);
        if (c.members[member].arrival == k_unset) {
            c.members[member].arrival = th.now;
            if (++c.arrived == c.expected) complete(id, c);
        }
        const Time leave = c.members[member].leave;
        if (leave == k_unset) return false; // complete wakes it
        finish_step(th, leave);
        if (++c.left == c.expected) collectives.erase(id);
        return true;
    }

    /// Every member has arrived: when each leaves, as the engine's ideal replay has it.
    void complete(std::uint64_t id, StreamCollective& c) {
        // The root is the lowest task naming itself one; the others naming themselves are warned
        // about, as the in-memory program does.
        Collective& shape = c.shape;
        shape.member_count = static_cast<std::uint32_t>(c.members.size());
        for (const auto& m : c.members) {
            if (m.is_root && m.thread != shape.root_task) {
                roots.add({m.thread, m.join_number},
                          collective_roots(shape.call_id, c.sequence, shape.communicator,
                                           shape.root_task, m.thread));
            }
        }
        const auto flow = shape.flow = collective_flow(shape, options.collectives);
        if (recorder) {
            member_tasks.clear();
            for (const auto& m : c.members) member_tasks.push_back(m.thread);
            recorder->collective(id, shape, lowest_member(c), member_tasks);
        }
        Time latest = 0, root_arrival = 0;
        for (const auto& m : c.members) {
            latest = std::max(latest, m.arrival);
            if (m.thread == shape.root_task) root_arrival = m.arrival;
        }
        for (auto& m : c.members) {
            const bool root = m.thread == shape.root_task;
            switch (flow) {
            case CollectiveFlow::all_members:
                m.leave = latest;
                break;
            case CollectiveFlow::to_root:
                m.leave = root ? latest : m.arrival;
                break;
            case CollectiveFlow::from_root:
                m.leave = root ? m.arrival : std::max(m.arrival, root_arrival);
                break;
            }
            schedule(m.thread);
        }
        if (flow == CollectiveFlow::all_members) note_left_early(c);
    }

    /// Where the in-memory program numbers collective `c`: by its lowest member, then that
    /// member's joins before it.
    static std::pair<ReplayThread, std::uint64_t> lowest_member(const StreamCollective& c) {
        const auto lowest = std::min_element(c.members.begin(), c.members.end(),
                                             [](auto& a, auto& b) { return a.thread < b.thread; });
        return {lowest->thread, lowest->join_number};
    }

    /// As left_before_last_arrived (which meets the members in thread order), keeping the first
    /// such collective in the in-memory program's order.
    void note_left_early(const StreamCollective& c) {
        const Member* late = &c.members.front();
        const Member* early = late;
        for (const auto& m : c.members) {
            if (std::pair(-m.call_begin, m.thread) < std::pair(-late->call_begin, late->thread))
                late = &m;
            if (std::pair(m.call_end, m.thread) < std::pair(early->call_end, early->thread))
                early = &m;
        }
        const Time last_entry = late->call_begin, first_exit = early->call_end;
        if (first_exit >= last_entry) return;
        const auto key = lowest_member(c);
        if (left_early_count++ == 0 || key < first_left_early_key) {
            first_left_early_key = key;
            first_left_early =
                left_early(c.shape.call_id, early->thread, first_exit, late->thread, last_entry);
        }
    }

    /// The file has passed the exits of sending calls: the calls they held back may go on.
    void forget_left_sends() {
        bool earliest = false;
        while (!left_sends.empty() && left_sends.top().first < watermark) {
            const Time entry = left_sends.top().second;
            earliest = earliest || entry == open_sends.earliest();
            open_sends.erase(entry);
            left_sends.pop();
        }
        if (!earliest || stalled.empty()) return;
        std::vector<ReplayThread> retry;
        retry.swap(stalled);
        std::sort(retry.begin(), retry.end());
        retry.erase(std::unique(retry.begin(), retry.end()), retry.end());
        for (const auto t : retry) advance(t, watermark);
    }

    void trim_history(StreamThread& th) {
        while (th.calls.size() > history && th.first_call < th.next_reach) forget_front(th);
    }

    /// The thread's first call kept, which no record changes any more: into the program (when it
    /// is kept), and forgotten.
    void forget_front(StreamThread& th) {
        if (recorder) record_front(th, records[th.task]);
        th.calls.pop_front();
        ++th.first_call;
    }

    void record_front(const StreamThread& th, ThreadRecord& record) {
        const RecordedCall call = record.calls.front();
        record.calls.pop_front();
        scratch_posts.clear();
        for (auto& posts = record.posts; !posts.empty() && posts.front().first == th.first_call;
             posts.pop_front())
            scratch_posts.push_back(posts.front().second);
        const auto messages =
            take_front(record.messages, call.sent + call.completed, scratch_messages);
        recorder->call(th.task,
                       {.number = static_cast<std::uint32_t>(th.first_call),
                        .regions = take_front(record.regions, call.regions, scratch_regions),
                        .pieces = take_front(record.pieces, call.pieces, scratch_pieces),
                        .burst_before = call.burst_before,
                        .posts = scratch_posts,
                        .sends = messages.first(call.sent),
                        .completions = messages.subspan(call.sent),
                        .collective = call.collective == RecordedCall::k_no_collective
                                          ? std::nullopt
                                          : std::optional(call.collective)});
    }

    /// Message `m` is posted by call `call` of the thread, which has not left the history: kept in
    /// order by call, then message (records come mostly in that order: from the back).
    void record_post(const StreamThread& th, std::uint64_t call, MessageIndex m) {
        auto& posts = records[th.task].posts;
        const std::pair entry{call, m};
        std::size_t at = posts.size();
        while (at > 0 && posts[at - 1] > entry) --at;
        posts.insert_at(at, entry);
    }

    /// The first `n` of `queue`, taken out of it into `scratch` (the queue's elements may wrap
    /// around its end).
    template <class T>
    static std::span<const T> take_front(Ring<T>& queue, std::size_t n, std::vector<T>& scratch) {
        scratch.assign(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(n));
        queue.erase_begin(n);
        return scratch;
    }

    // --- input --------------------------------------------------------------------------------

    void wake_at(Time time, ReplayThread t) { wakeups.emplace(time, t); }

    void reached(Time time) {
        if (time <= watermark) return;
        watermark = time;
        forget_left_sends();
        if (!wakeups.empty() && wakeups.top().first < watermark) {
            due.clear();
            while (!wakeups.empty() && wakeups.top().first < watermark) {
                due.push_back(wakeups.top().second);
                wakeups.pop();
            }
            std::sort(due.begin(), due.end());
            due.erase(std::unique(due.begin(), due.end()), due.end());
            for (const auto t : due) advance(t, watermark);
        }
        run_all();
    }
};

StreamingReplay::StreamingReplay(const Trace& trace, const ProgramOptions& options,
                                 bool keep_program, LiveReplays* live)
    : impl_(std::make_unique<Impl>(trace, options, keep_program, live)) {}

StreamingReplay::~StreamingReplay() = default;

void StreamingReplay::entered(ThreadIndex thread, Time time, std::uint16_t id) {
    auto& th = impl_->threads[impl_->replayed(thread, "calls MPI")];
    th.in_call = true;
    th.entered_at = time;
    if (can_play(call_class(id), Role::send)) {
        impl_->open_sends.insert(time);
        th.open_send = time;
    }
}

void StreamingReplay::state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) {
    auto& impl = *impl_;
    if (value == extrae::k_state_tracing_disabled && !impl.options.whole_trace)
        unsupported("tracing is disabled for a while");
    if (!impl.tracks_work[thread] || waits_for_work(value)) return;
    impl.refuse_earlier(begin);
    impl.work[thread].add(begin, end);
}

void StreamingReplay::call(ThreadIndex thread, const ObservedCall& c) {
    const ReplayThread t = impl_->replayed(thread, "calls MPI");
    if (c.id == k_mpi_cancel) unsupported("MPI_Cancel is called (receives may be re-paired)");
    auto& th = impl_->threads[t];
    th.in_call = false;
    if (th.open_send) impl_->left_sends.emplace(c.end, *std::exchange(th.open_send, std::nullopt));
    const std::uint64_t number = th.first_call + th.calls.size();
    ThreadRecord* record = impl_->recorder ? &impl_->records[th.task] : nullptr;
    // As many calls as are kept once the history is full, and one arriving: grown by halves from
    // a few, a ring held a third more (42 calls at 16,384 tasks) and left every smaller block
    // behind in the heap. The recorder's calls go beside them.
    if (th.calls.capacity() == 0) {
        th.calls.set_capacity(impl_->history + 2);
        if (record) record->calls.set_capacity(impl_->history + 2);
    }
    StreamCall& kept = th.calls.emplace_back();
    kept.begin = c.begin;
    kept.end = c.end;
    kept.id = c.id;
    th.placed_lists.emplace_back();
    if (record) record->calls.emplace_back();
    if (c.attributes) th.attributes.emplace_back() = {number, *c.attributes};
    impl_->wake_at(c.end, t);
}

void StreamingReplay::burst_cut(ThreadIndex thread, Time time) {
    auto& impl = *impl_;
    const ReplayThread t = impl.thread_of_trace[thread];
    if (t == k_none) return;
    impl.cutting = true;
    impl.threads[t].cuts.push_back(time);
}

void StreamingReplay::event(ThreadIndex thread, Time time, std::uint32_t type,
                            std::uint64_t value) {
    auto& impl = *impl_;
    const ReplayThread t = impl.thread_of_trace[thread];
    if (type != extrae::k_omp_parallel || t == k_none) return; // regions are the first thread's
    impl.refuse_earlier(time);
    impl.region_event(t, time, value);
}

bool StreamingReplay::StateFilter::reads(ThreadIndex thread, std::uint8_t value) const {
    return value == extrae::k_state_tracing_disabled ||
           (tracks_work_[thread] && !waits_for_work(value));
}

StreamingReplay::StateFilter StreamingReplay::state_filter() const {
    return StateFilter(impl_->tracks_work);
}

bool StreamingReplay::reads_event(std::uint32_t type) {
    return type == extrae::k_omp_parallel;
}

void StreamingReplay::comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& r,
                           std::uint64_t number) {
    auto& impl = *impl_;
    const ReplayThread from = impl.replayed(sender, "sends messages");
    const ReplayThread to = impl.replayed(receiver, "receives messages");
    if (r.physical_recv < r.logical_send)
        unsupported("a message is received before it is sent (re-paired in memory)");
    if (impl.recorder) {
        impl.recorder->message({.bytes = r.size,
                                .sender = from,
                                .receiver = to,
                                .tag = static_cast<std::uint32_t>(r.tag),
                                .record = static_cast<std::uint32_t>(number),
                                .immediate_send = false, // until its send is placed
                                .rendezvous = r.size >= impl.options.eager_limit_bytes});
    }
    void* slot = impl.messages.malloc();
    if (!slot) throw std::bad_alloc();
    StreamMessage& m =
        *new (slot) StreamMessage{.record = number,
                                  .sender = from,
                                  .receiver = to,
                                  .logical_send = r.logical_send,
                                  .logical_recv = r.logical_recv,
                                  .physical_recv = r.physical_recv,
                                  .bytes = r.size,
                                  .tag = static_cast<std::uint32_t>(r.tag),
                                  .rendezvous = r.size >= impl.options.eager_limit_bytes};
    for (const auto& [t, role, time] :
         {std::tuple{from, Role::send, r.logical_send}, std::tuple{to, Role::post, r.logical_recv},
          std::tuple{to, Role::complete, r.physical_recv}}) {
        // Placed when the thread's calls around `time` are known: its next call's wakeup.
        impl.threads[t].pending.push_back({time, role, &m});
    }
}

void StreamingReplay::reached(Time time) {
    impl_->reached(time);
}

StreamedRun StreamingReplay::finish(const Trace& trace) {
    auto& impl = *impl_;
    if (trace.cut_at_end) unsupported("the trace is cut or truncated at its end");
    impl.watermark = std::numeric_limits<Time>::max(); // every record is read
    impl.forget_left_sends();
    for (auto& th : impl.threads)
        if (th.region_edges.open()) impl.close_region(th, trace.end_time());
    for (ReplayThread t = 0; t < impl.threads.size(); ++t) {
        auto& th = impl.threads[t];
        th.in_call = false;
        impl.advance(t, std::numeric_limits<Time>::max());
        const Time last_record = trace.threads[th.trace_thread].last_record;
        th.previous_end = impl.put_pieces(th, th.previous_end, last_record);
        impl.put_burst(th, last_record - th.previous_end);
    }
    impl.run_all();
    StreamedRun out;
    for (const auto& th : impl.threads) {
        if (!th.steps.empty())
            unsupported("the replay deadlocks or a collective misses members (handled in memory)");
        out.tasks.push_back(th.times);
        out.task_mpi_outside_omp.push_back(th.mpi_outside_omp);
        out.runtime = std::max(out.runtime, th.times.end);
    }
    if (!impl.open_collectives.empty() || !impl.collectives.empty())
        unsupported("collectives miss members");
    // The kinds in the in-memory program's order: per thread, its roots before its calls.
    const bool roots_first = !impl.roots.empty() &&
                             (impl.calls_without_record.empty() ||
                              impl.roots.first().first <= impl.calls_without_record.first().first);
    if (roots_first) impl.roots.into(out.warnings, k_collective_roots);
    if (!impl.calls_without_record.empty())
        impl.calls_without_record.into(out.warnings, k_call_without_record);
    if (!roots_first && !impl.roots.empty()) impl.roots.into(out.warnings, k_collective_roots);
    out.collectives_left_early = impl.left_early_count;
    out.first_left_early = impl.first_left_early;
    if (impl.recorder) {
        for (auto& th : impl.threads) {
            while (!th.calls.empty()) impl.forget_front(th);
            // What is left after the last call: its region steps and pieces.
            auto& record = impl.records[th.task];
            impl.recorder->region_steps(
                th.task,
                impl.take_front(record.regions, record.regions.size(), impl.scratch_regions));
            impl.recorder->pieces(
                th.task, impl.take_front(record.pieces, record.pieces.size(), impl.scratch_pieces));
            impl.recorder->burst(th.task,
                                 trace.threads[th.trace_thread].last_record - th.previous_end);
        }
        out.program = impl.recorder->finish(impl.options.collectives, out.warnings);
    }
    return out;
}

} // namespace popsim::replay

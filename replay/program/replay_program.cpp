// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/replay_program.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/call_roles.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/program/openmp_regions.hpp"
#include "replay/trace_error.hpp"
#include "replay/traced_windows.hpp"

#include <algorithm>
#include <array>
#include <boost/container/flat_map.hpp>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <numeric>
#include <oneapi/tbb/parallel_for.h>
#include <optional>
#include <span>

namespace popsim::replay {

ReplayThread ReplayProgram::thread_of(OpIndex op) const {
    const auto it = std::upper_bound(thread_first_op.begin(), thread_first_op.end(), op);
    return static_cast<ReplayThread>(it - thread_first_op.begin() - 1);
}

void ReplayProgram::one_thread_per_task() {
    thread_task.resize(tasks);
    std::iota(thread_task.begin(), thread_task.end(), 0u);
    trace_thread = thread_task;
    task_first_thread.resize(tasks + 1);
    std::iota(task_first_thread.begin(), task_first_thread.end(), 0u);
}

MessageOps message_ops(const ReplayProgram& p) {
    MessageOps out;
    for (auto* ops : {&out.send, &out.post, &out.wait}) ops->resize(p.messages.size(), k_none);
    // Per replay thread: each message is sent, posted and waited for by one thread only.
    oneapi::tbb::parallel_for(ReplayThread{0}, p.thread_count(), [&](ReplayThread th) {
        for (OpIndex op = p.thread_first_op[th]; op < p.thread_end_op(th); ++op) {
            const std::uint32_t ref = p.op_ref[op];
            switch (p.op_kind[op]) {
            case OpKind::send:
                out.send[ref] = op;
                break;
            case OpKind::recv_post:
                out.post[ref] = op;
                break;
            case OpKind::recv_wait:
                for (auto i = p.wait_first[ref]; i < p.wait_first[ref + 1]; ++i)
                    out.wait[p.wait_messages[i]] = op;
                break;
            default:
                break;
            }
        }
    });
    return out;
}

namespace {

/// One walker's place in a replay thread's calls (CallIndex::find): where its last lookup of each
/// role ended, and column readers that keep the chunk they last read.
struct CallWalk {
    std::array<std::uint32_t, 3> at{}; // per Role
    Column<Time>::Reader begin, end;
    Column<std::uint16_t>::Reader id;
};

/// A task's MPI calls, searched from a walker's place per role: communication records come almost
/// in time order, so most lookups are O(1) and touch memory the previous one touched.
class CallIndex {
  public:
    explicit CallIndex(const ThreadTimeline& tl)
        : begin_(tl.call_begin), end_(tl.call_end), id_(tl.call_id) {}

    std::uint32_t size() const { return static_cast<std::uint32_t>(id_.size()); }
    Time begin(std::uint32_t c) const { return begin_[c]; }
    Time end(std::uint32_t c) const { return end_[c]; }
    std::uint16_t id(std::uint32_t c) const { return id_[c]; }
    CallWalk walk() const {
        return {{},
                Column<Time>::Reader(begin_),
                Column<Time>::Reader(end_),
                Column<std::uint16_t>::Reader(id_)};
    }

    /// The call that plays `role` for a record time `t` (k_none: no call there): call_playing.
    std::uint32_t find(Time t, Role role, CallWalk& walk) const {
        const std::uint32_t last = latest_beginning_by(t, walk, walk.at[static_cast<int>(role)]);
        const std::uint64_t c = call_playing(
            t, role, last == k_none ? k_no_call : last,
            [&](std::uint64_t i) { return walk.begin[i]; },
            [&](std::uint64_t i) { return walk.end[i]; },
            [&](std::uint64_t i) { return walk.id[i]; });
        return c == k_no_call ? k_none : static_cast<std::uint32_t>(c);
    }

  private:
    /// The latest call beginning at or before `t` (k_none: none), looking near the cursor first:
    /// records of one task arrive in nearly, not exactly, increasing time (messages from several
    /// partners).
    std::uint32_t latest_beginning_by(Time t, CallWalk& walk, std::uint32_t& cursor) const {
        constexpr std::uint32_t k_window = 8;
        const auto n = size();
        auto is_latest = [&](std::uint32_t c) {
            return c < n && walk.begin[c] <= t && (c + 1 == n || walk.begin[c + 1] > t);
        };
        const std::uint32_t low = cursor > k_window ? cursor - k_window : 0;
        for (std::uint32_t c = cursor; c < std::min(n, cursor + k_window); ++c)
            if (is_latest(c)) return cursor = c;
        for (std::uint32_t c = cursor; c-- > low;)
            if (is_latest(c)) return cursor = c;
        const auto it = std::upper_bound(begin_.begin(), begin_.end(), t);
        if (it == begin_.begin()) return k_none;
        return cursor = static_cast<std::uint32_t>(it - begin_.begin() - 1);
    }

    const Column<Time>& begin_;
    const Column<Time>& end_;
    const Column<std::uint16_t>& id_;
};

/// The messages each call of a task plays one role for (posts, sends or completes), sorted by
/// call (messages keep their record order within a call) and read back in call order.
class RoleTable {
  public:
    /// Sizes the table, uninitialised: the caller sets every place.
    void resize(std::size_t n) { pairs_.resize(n, boost::container::default_init); }
    void set(std::size_t place, std::uint32_t call, MessageIndex m) { pairs_[place] = {call, m}; }

    /// Stable. Records are out of order only locally (a call's messages from several partners), so
    /// an insertion sort does it in linear time; it hands over to a merge sort on a long move.
    void sort() {
        constexpr std::size_t k_longest_move = 64;
        for (std::size_t i = 1; i < pairs_.size(); ++i) {
            const auto item = pairs_[i];
            std::size_t j = i;
            for (; j > 0 && pairs_[j - 1].call > item.call; --j) {
                if (i - j == k_longest_move) {
                    pairs_[j] = item; // a permutation again, with `item` still after its equals
                    std::stable_sort(pairs_.begin(), pairs_.end(),
                                     [](const auto& x, const auto& y) { return x.call < y.call; });
                    return;
                }
                pairs_[j] = pairs_[j - 1];
            }
            pairs_[j] = item;
        }
    }

    /// Calls `emit(message)` for each message of `call`; calls must be asked in increasing order.
    template <class Emit> void for_each_of(std::uint32_t call, Emit emit) {
        while (next_ < pairs_.size() && pairs_[next_].call == call) emit(pairs_[next_++].message);
    }
    bool has(std::uint32_t call) const {
        return next_ < pairs_.size() && pairs_[next_].call == call;
    }
    void rewind() { next_ = 0; }

  private:
    struct CallMessage {
        std::uint32_t call;
        MessageIndex message;
    };
    ProgramArray<CallMessage> pairs_;
    std::size_t next_ = 0;
};

/// Per replay thread: its calls, and which messages each call posts, sends and completes.
struct ThreadRoles {
    explicit ThreadRoles(const ThreadTimeline& tl) : calls(tl) {}
    CallIndex calls;
    RoleTable posts, sends, completions;
    std::array<RoleTable*, 3> tables() { return {&posts, &sends, &completions}; }
};

/// Where one replay thread is in its trace calls while its operations are emitted.
struct CallCursor {
    std::uint32_t next_call = 0;
    Time previous_end = 0;                // the end of the last emitted call or burst
    std::size_t next_collective_attr = 0; // the thread's collective attributes, read in call order
    const Column<Time>* cuts = nullptr;   // where prv2dim cuts the thread's bursts, if recorded
    std::size_t next_cut = 0;
};

/// A collective call met while emitting, matched across tasks once every thread is emitted.
struct CollectiveJoin {
    OpIndex op;
    std::uint32_t call;
    std::uint16_t call_id;
    const CollectiveAttributes* attrs;
};

struct OpPositions {
    OpIndex op = 0;
    std::uint32_t burst = 0, wait_list = 0, wait_message = 0;
};

/// One replay thread's operations. Threads are emitted in parallel, twice: a first pass counts
/// what each emits, a second writes it in place at the thread's offsets (`counting` false). What
/// needs the other threads (collective matching, barrier members, warnings) is kept for a
/// sequential pass in thread order.
struct ThreadOps {
    bool counting = true;
    OpPositions next; // counts, then the next places to write
    std::vector<CollectiveJoin> joins;
    std::vector<std::pair<CollectiveIndex, OpIndex>> barrier_members;
    std::vector<std::uint32_t> calls_without_record;
};

class ProgramBuilder {
  public:
    ProgramBuilder(const Trace& trace, const ProgramOptions& options)
        : trace_(trace), options_(options) {}

    ReplayProgram build() {
        if (trace_.header.applications.size() != 1) {
            throw TraceError(trace_.path, 0,
                             fmt::format("the trace has {} applications; popsim replays one "
                                         "(read it with ReadOptions::application)",
                                         trace_.header.applications.size()));
        }
        if (!options_.whole_trace) p_.untraced = untraced_spans(trace_, &p_.warnings);
        p_.tasks = trace_.task_count();
        choose_replay_threads();
        read_communicators();
        continue_cut_collectives();
        plan_thread_barriers();
        roles_.reserve(p_.thread_count());
        for (ReplayThread th = 0; th < p_.thread_count(); ++th)
            roles_.emplace_back(trace_.threads[p_.trace_thread[th]]);
        assign_messages();
        oneapi::tbb::parallel_for(ReplayThread{0}, p_.thread_count(), [&](ReplayThread th) {
            for (RoleTable* table : roles_[th].tables()) table->sort();
        });
        emit_threads();
        finish_collectives();
        return std::move(p_);
    }

  private:
    /// Per task: its first thread, then (with options.threads) its other threads when the first one
    /// opens parallel regions or they call MPI themselves.
    void choose_replay_threads() {
        const auto first = trace_.first_threads();
        thread_of_trace_.assign(trace_.thread_count(), k_none);
        regions_.resize(p_.tasks);
        for (std::uint32_t task = 0; task < p_.tasks; ++task) {
            p_.task_first_thread.push_back(p_.thread_count());
            const ThreadIndex end = task + 1 < p_.tasks
                                        ? first[task + 1]
                                        : static_cast<ThreadIndex>(trace_.thread_count());
            const auto regions = parallel_regions(trace_.threads[first[task]], trace_.end_time());
            for (ThreadIndex t = first[task]; t < end; ++t) {
                const bool replayed =
                    t == first[task] ||
                    (options_.threads && (!regions.empty() || !trace_.threads[t].call_id.empty()));
                if (!replayed) continue;
                thread_of_trace_[t] = p_.thread_count();
                p_.thread_task.push_back(task);
                p_.trace_thread.push_back(t);
            }
            if (p_.thread_count() - p_.task_first_thread[task] > 1)
                regions_[task] = regions; // one thread needs no fork/join
        }
        p_.task_first_thread.push_back(p_.thread_count());
    }

    std::uint32_t threads_of(std::uint32_t task) const {
        return p_.task_first_thread[task + 1] - p_.task_first_thread[task];
    }

    /// A fork and a join barrier per parallel region of each task that replays several threads,
    /// and when each thread reached each join in the trace.
    void plan_thread_barriers() {
        arrivals_.resize(p_.thread_count());
        last_arrival_.resize(p_.tasks);
        fork_join_.resize(p_.tasks);
        for (std::uint32_t task = 0; task < p_.tasks; ++task) {
            for (const auto& region : regions_[task]) {
                Time last = region.first;
                for (ReplayThread th = p_.task_first_thread[task];
                     th < p_.task_first_thread[task + 1]; ++th) {
                    arrivals_[th].push_back(
                        barrier_arrival(trace_.threads[p_.trace_thread[th]], region));
                    last = std::max(last, arrivals_[th].back());
                }
                last_arrival_[task].push_back(last);
                // The fork first, then the join (two statements: arguments come in any order).
                const auto fork =
                    new_collective(Collective{.thread_barrier = true}, threads_of(task));
                const auto join =
                    new_collective(Collective{.thread_barrier = true}, threads_of(task));
                fork_join_[task].emplace_back(fork, join);
            }
        }
    }

    CollectiveIndex new_collective(Collective c, std::size_t members) {
        p_.collectives.push_back(c);
        members_.emplace_back();
        expected_members_.push_back(members);
        return static_cast<CollectiveIndex>(p_.collectives.size() - 1);
    }

    /// A cut trace's collectives keep their numbers in the whole run (trace.hpp). Tasks may have
    /// made very different numbers before the cut (a task's collectives that the others made
    /// before or make after the cut complete without them), so the numbers are kept sparse.
    void continue_cut_collectives() {
        for (const auto& before : trace_.collectives_before_cut) {
            if (before.application != trace_.application || before.task > p_.tasks) continue;
            const std::uint64_t comm =
                before.communicator == k_default_communicator ? *world_ : before.communicator;
            auto& sequence = comm_sequence_[{comm, before.task - 1}]; // MPI_Init joins the world
            cut_count_line_[{comm, before.task - 1}] = before.line;
            if (__builtin_add_overflow(sequence, before.calls, &sequence)) {
                throw TraceError(trace_.path, before.line,
                                 fmt::format("the collectives-before-cut counts of task {} on "
                                             "communicator {} add up past 2^64",
                                             before.task, comm));
            }
        }
    }

    void read_communicators() {
        auto c = program_communicators(trace_.header, p_.tasks, &p_.warnings);
        communicators_ = std::move(c.members);
        foreign_task_ = std::move(c.foreign_task);
        world_ = c.world;
    }

    std::string where(ThreadIndex thread, Time t) const {
        return fmt::format("thread {} at {} ns", to_string(trace_.threads[thread].name), t);
    }

    /// Which call of its sender sends each record and which calls of its receiver post and
    /// complete it (k_none: no call at that time).
    struct RecordCalls {
        explicit RecordCalls(std::uint32_t records) {
            for (auto* role : {&send, &post, &done})
                role->resize(records, boost::container::default_init); // locate_chunk sets all
        }
        ProgramArray<std::uint32_t> send, post, done;
    };

    enum class RecordFate : std::uint8_t {
        message,
        thread_not_replayed,
        outside_calls,
        wrong_calls
    };

    /// The fate of record `i`, sent by replay thread `from` to `to` (k_none: not replayed).
    RecordFate fate_of(std::uint32_t i, ReplayThread from, ReplayThread to,
                       const RecordCalls& calls) const {
        if (from == k_none || to == k_none) return RecordFate::thread_not_replayed;
        if (calls.send[i] == k_none || calls.post[i] == k_none || calls.done[i] == k_none)
            return RecordFate::outside_calls;
        const bool fits = can_play(call_class(roles_[from].calls.id(calls.send[i])), Role::send) &&
                          can_play(call_class(roles_[to].calls.id(calls.post[i])), Role::post) &&
                          can_play(call_class(roles_[to].calls.id(calls.done[i])), Role::complete);
        return fits ? RecordFate::message : RecordFate::wrong_calls;
    }

    Message message_of(std::uint32_t record, const RecordCalls& calls) const {
        const auto& c = trace_.comms;
        const ReplayThread sender = thread_of_trace_[c.sender[record]];
        return Message{.bytes = c.bytes[record],
                       .sender = sender,
                       .receiver = thread_of_trace_[c.receiver[record]],
                       .tag = c.tag[record],
                       .record = record,
                       .immediate_send = call_class(roles_[sender].calls.id(calls.send[record])) ==
                                         CallClass::immediate_send,
                       .rendezvous = c.bytes[record] >= options_.eager_limit_bytes};
    }

    /// The records cut in equal chunks, walked in parallel. Chunks are long against the per-thread
    /// state each one sets up.
    struct RecordChunks {
        std::uint32_t records, length;
        // In 64 bits: near 2^32 records, the last chunk's end does not fit in 32.
        std::uint32_t count() const {
            return static_cast<std::uint32_t>((std::uint64_t{records} + length - 1) / length);
        }
        std::uint32_t begin(std::uint32_t k) const { return k * length; }
        std::uint32_t end(std::uint32_t k) const {
            return static_cast<std::uint32_t>(
                std::min<std::uint64_t>(records, (std::uint64_t{k} + 1) * length));
        }
    };

    /// Per chunk: its messages, and per replay thread the messages it sends and receives there;
    /// once summed over the chunks before, where the chunk writes them.
    struct ChunkCounts {
        std::uint32_t messages = 0;
        std::vector<std::uint32_t> sent, received;
    };

    /// First pass, per chunk: each record's calls and fate, and the chunk's counts. Walked in file
    /// order, records' times are read in sequence (walked per replay thread they were scattered:
    /// 0.24 s instead of 0.16 s on the benchmark trace), and each thread's walker moves little,
    /// records coming nearly in time order.
    void locate_chunk(std::uint32_t begin, std::uint32_t end, RecordCalls& calls,
                      std::vector<RecordFate>& fate, ChunkCounts& counts) const {
        const auto& c = trace_.comms;
        std::vector<CallWalk> walks;
        walks.reserve(p_.thread_count());
        for (const auto& r : roles_) walks.push_back(r.calls.walk());
        counts.sent.assign(p_.thread_count(), 0);
        counts.received.assign(p_.thread_count(), 0);
        for (auto i = begin; i < end; ++i) {
            const ReplayThread from = thread_of_trace_[c.sender[i]];
            const ReplayThread to = thread_of_trace_[c.receiver[i]];
            calls.send[i] = from == k_none ? k_none
                                           : roles_[from].calls.find(c.logical_send[i], Role::send,
                                                                     walks[from]);
            calls.post[i] = calls.done[i] = k_none;
            if (to != k_none) {
                calls.post[i] = roles_[to].calls.find(c.logical_recv[i], Role::post, walks[to]);
                calls.done[i] =
                    roles_[to].calls.find(c.physical_recv[i], Role::complete, walks[to]);
            }
            fate[i] = fate_of(i, from, to, calls);
            if (fate[i] != RecordFate::message) continue;
            ++counts.messages;
            ++counts.sent[from];
            ++counts.received[to];
        }
    }

    /// Second pass, per chunk: its messages, numbered in file order, and their places in the role
    /// tables of their sender and receiver (in file order within each table, as the sort needs).
    void write_chunk(std::uint32_t begin, std::uint32_t end, const RecordCalls& calls,
                     const std::vector<RecordFate>& fate, ChunkCounts& at) {
        MessageIndex m = at.messages;
        for (auto i = begin; i < end; ++i) {
            if (fate[i] != RecordFate::message) continue;
            const Message& msg = p_.messages[m] = message_of(i, calls);
            roles_[msg.sender].sends.set(at.sent[msg.sender]++, calls.send[i], m);
            roles_[msg.receiver].posts.set(at.received[msg.receiver], calls.post[i], m);
            roles_[msg.receiver].completions.set(at.received[msg.receiver]++, calls.done[i], m);
            ++m;
        }
    }

    /// One message per record that sits in calls that can carry it, in file order; each replay
    /// thread's role tables list its messages by call. Records left out are listed in warnings.
    void assign_messages() {
        const auto n = static_cast<std::uint32_t>(trace_.comms.size());
        const RecordChunks chunks{n, std::max(std::uint32_t{1} << 16, 16 * p_.thread_count())};
        RecordCalls calls(n);
        std::vector<RecordFate> fate(n);
        std::vector<ChunkCounts> counts(chunks.count());
        oneapi::tbb::parallel_for(std::uint32_t{0}, chunks.count(), [&](std::uint32_t k) {
            locate_chunk(chunks.begin(k), chunks.end(k), calls, fate, counts[k]);
        });
        // Counts become places: each chunk starts where the chunks before it end.
        ChunkCounts total{0, std::vector<std::uint32_t>(p_.thread_count(), 0),
                          std::vector<std::uint32_t>(p_.thread_count(), 0)};
        for (auto& chunk : counts) {
            std::swap(chunk.messages, total.messages);
            total.messages += chunk.messages;
            for (ReplayThread th = 0; th < p_.thread_count(); ++th) {
                std::swap(chunk.sent[th], total.sent[th]);
                total.sent[th] += chunk.sent[th];
                std::swap(chunk.received[th], total.received[th]);
                total.received[th] += chunk.received[th];
            }
        }
        p_.resize_messages(total.messages);
        for (ReplayThread th = 0; th < p_.thread_count(); ++th) {
            roles_[th].sends.resize(total.sent[th]);
            roles_[th].posts.resize(total.received[th]);
            roles_[th].completions.resize(total.received[th]);
        }
        oneapi::tbb::parallel_for(std::uint32_t{0}, chunks.count(), [&](std::uint32_t k) {
            write_chunk(chunks.begin(k), chunks.end(k), calls, fate, counts[k]);
        });
        for (std::uint32_t i = 0; i < n; ++i)
            if (fate[i] != RecordFate::message) warn_left_out(i, fate[i], calls);
    }

    void warn_left_out(std::uint32_t i, RecordFate fate, const RecordCalls& calls) {
        const auto& c = trace_.comms;
        const auto from = to_string(trace_.threads[c.sender[i]].name),
                   to = to_string(trace_.threads[c.receiver[i]].name);
        switch (fate) {
        case RecordFate::thread_not_replayed:
            p_.warnings.add("records-without-call",
                            "communication records match no MPI call and are left out of the "
                            "replay",
                            fmt::format("record {} involves a thread that makes no MPI calls "
                                        "({} -> {})",
                                        i + 1, from, to));
            break;
        case RecordFate::outside_calls:
            p_.warnings.add(
                "records-without-call",
                "communication records match no MPI call and are left out of the replay",
                fmt::format("record {} ({} -> {}, {} bytes) is outside any MPI call: send {}, "
                            "receive {}-{} ns",
                            i + 1, from, to, c.bytes[i], where(c.sender[i], c.logical_send[i]),
                            c.logical_recv[i], c.physical_recv[i]));
            break;
        case RecordFate::wrong_calls: {
            const auto& sender = roles_[thread_of_trace_[c.sender[i]]].calls;
            const auto& receiver = roles_[thread_of_trace_[c.receiver[i]]].calls;
            p_.warnings.add(
                "records-in-wrong-calls",
                "communication records sit in calls that carry no messages and are left out of "
                "the replay",
                fmt::format("record {} is sent in {} and received in {} / {}: not calls that carry "
                            "messages",
                            i + 1, mpi_call_name(sender.id(calls.send[i])),
                            mpi_call_name(receiver.id(calls.post[i])),
                            mpi_call_name(receiver.id(calls.done[i]))));
            break;
        }
        case RecordFate::message:
            break;
        }
    }

    /// Every replay thread's operations, in parallel: count, size the arrays, write in place.
    void emit_threads() {
        std::vector<ThreadOps> out(p_.thread_count());
        oneapi::tbb::parallel_for(ReplayThread{0}, p_.thread_count(), [&](ReplayThread th) {
            emit_thread(th, out[th]);
            for (RoleTable* table : roles_[th].tables())
                table->rewind(); // the writing pass reads them again
        });
        OpPositions total;
        for (auto& o : out) {
            p_.thread_first_op.push_back(total.op);
            const OpPositions counts = o.next;
            o.counting = false;
            o.next = total;
            total.op += counts.op;
            total.burst += counts.burst;
            total.wait_list += counts.wait_list;
            total.wait_message += counts.wait_message;
        }
        p_.thread_first_op.push_back(total.op);
        // Uninitialised (ProgramArray): the writing pass fills every place.
        constexpr auto uninitialised = boost::container::default_init;
        p_.op_kind.resize(total.op, uninitialised);
        p_.op_ref.resize(total.op, uninitialised);
        p_.op_call.resize(total.op, uninitialised);
        p_.burst_durations.resize(total.burst, uninitialised);
        p_.wait_first.resize(total.wait_list + 1, uninitialised);
        p_.wait_first[0] = 0;
        p_.wait_messages.resize(total.wait_message, uninitialised);
        oneapi::tbb::parallel_for(ReplayThread{0}, p_.thread_count(),
                                  [&](ReplayThread th) { emit_thread(th, out[th]); });
        for (ReplayThread th = 0; th < p_.thread_count(); ++th) {
            for (const auto& [barrier, op] : out[th].barrier_members)
                members_[barrier].push_back(op);
            for (const auto call : out[th].calls_without_record) {
                p_.warnings.add(k_call_without_record.kind, k_call_without_record.summary,
                                call_without_record(roles_[th].calls.id(call),
                                                    roles_[th].calls.begin(call),
                                                    trace_.threads[p_.trace_thread[th]].name));
            }
        }
        join_collectives_in_time_order(out);
    }

    /// A task's collectives are numbered in the order its threads call them, as MPI orders a
    /// communicator's collectives and as a window counts those before it (TraceWindows): one
    /// verdict for a trace and its windows when several threads of a task call collectives.
    void join_collectives_in_time_order(const std::vector<ThreadOps>& out) {
        std::vector<std::pair<ReplayThread, const CollectiveJoin*>> joins;
        for (ReplayThread th = 0; th < p_.thread_count();) {
            ReplayThread end = th + 1; // the task's replay threads, consecutive
            while (end < p_.thread_count() && p_.thread_task[end] == p_.thread_task[th]) ++end;
            joins.clear();
            for (ReplayThread t = th; t < end; ++t)
                for (const auto& j : out[t].joins) joins.emplace_back(t, &j);
            if (end - th > 1) {
                std::stable_sort(joins.begin(), joins.end(), [&](const auto& a, const auto& b) {
                    return call_begin(a.first, a.second->call) <
                           call_begin(b.first, b.second->call);
                });
            }
            for (const auto& [t, j] : joins) join_collective(t, *j);
            th = end;
        }
    }

    OpIndex put_op(ThreadOps& out, OpKind kind, std::uint32_t ref, std::uint32_t call) {
        if (!out.counting) {
            p_.op_kind[out.next.op] = kind;
            p_.op_ref[out.next.op] = ref;
            p_.op_call[out.next.op] = call;
        }
        return out.next.op++;
    }

    /// The computation between two trace times, less the spans where tracing was off; in the
    /// pieces prv2dim cuts it into, when they were recorded, an empty piece included (Dimemas
    /// gives each a turn on a shared CPU). Cuts before `from` lie in calls: prv2dim cuts no
    /// burst there.
    void put_burst_between(ThreadOps& out, CallCursor& at, Time from, Time to) {
        const Column<Time>& cuts = *at.cuts;
        while (at.next_cut < cuts.size() && cuts[at.next_cut] < from) ++at.next_cut;
        for (; at.next_cut < cuts.size() && cuts[at.next_cut] <= to; ++at.next_cut) {
            put_burst(out, computation(from, cuts[at.next_cut]), true);
            from = cuts[at.next_cut];
        }
        if (to > from) put_burst(out, computation(from, to), false);
    }

    Time computation(Time from, Time to) const {
        return to - from - overlap(p_.untraced, from, to);
    }

    void put_burst(ThreadOps& out, Time duration, bool even_empty) {
        if (duration <= 0 && !even_empty) return;
        if (!out.counting) p_.burst_durations[out.next.burst] = duration;
        put_op(out, OpKind::burst, out.next.burst++, k_none);
    }

    /// A replay thread's operations: its calls in order with the bursts between them; in each
    /// parallel region of its task, a fork barrier, its work until it reached the region's
    /// implicit barrier, and a join barrier. Only the task's first thread computes outside
    /// regions, and it also replays the traced time between the last arrival and the region's end.
    void emit_thread(ReplayThread th, ThreadOps& out) {
        const std::uint32_t task = p_.thread_task[th];
        const bool master = th == p_.master_thread(task);
        const auto& regions = regions_[task];
        CallCursor at{.cuts = &trace_.threads[p_.trace_thread[th]].burst_cuts};
        for (std::size_t k = 0; k < regions.size(); ++k) {
            const auto [begin, end] = regions[k];
            emit_calls_before(th, out, begin, at, master ? std::optional(begin) : std::nullopt);
            join_thread_barrier(out, fork_join_[task][k].first);
            at.previous_end = std::max(at.previous_end, begin);
            emit_calls_before(th, out, end, at, arrivals_[th][k]);
            join_thread_barrier(out, fork_join_[task][k].second);
            if (master) put_burst_between(out, at, last_arrival_[task][k], end);
            at.previous_end = std::max(at.previous_end, end);
        }
        const Time last_record = trace_.threads[p_.trace_thread[th]].last_record;
        emit_calls_before(th, out, std::numeric_limits<Time>::max(), at,
                          master ? std::optional(last_record) : std::nullopt);
    }

    /// Emits the thread's calls that begin before `limit`. With `bursts_until`, each call comes
    /// after the burst since the previous one, and a last burst runs until `bursts_until`.
    void emit_calls_before(ReplayThread th, ThreadOps& out, Time limit, CallCursor& at,
                           std::optional<Time> bursts_until) {
        auto& r = roles_[th];
        while (at.next_call < r.calls.size() && r.calls.begin(at.next_call) < limit) {
            const std::uint32_t call = at.next_call++;
            if (bursts_until) put_burst_between(out, at, at.previous_end, r.calls.begin(call));
            at.previous_end = r.calls.end(call);
            emit_call(th, out, call, at);
        }
        if (!bursts_until) return;
        put_burst_between(out, at, at.previous_end, *bursts_until);
        at.previous_end = std::max(at.previous_end, *bursts_until);
    }

    void emit_call(ReplayThread th, ThreadOps& out, std::uint32_t call, CallCursor& at) {
        auto& r = roles_[th];
        const auto cls = call_class(r.calls.id(call));
        const bool sends = r.sends.has(call), completes = r.completions.has(call);
        if (!out.counting && lacks_record(cls, sends, completes))
            out.calls_without_record.push_back(call);
        r.posts.for_each_of(call, [&](MessageIndex m) { put_op(out, OpKind::recv_post, m, call); });
        r.sends.for_each_of(call, [&](MessageIndex m) { put_op(out, OpKind::send, m, call); });
        emit_completions(out, r.completions, call);
        if (cls == CallClass::collective || cls == CallClass::immediate_collective) {
            const auto& attrs = trace_.threads[p_.trace_thread[th]].collectives;
            auto& next = at.next_collective_attr;
            while (next < attrs.size() && attrs[next].call < call) ++next;
            const bool has_attrs = next < attrs.size() && attrs[next].call == call;
            join_collective_later(out, call, r.calls.id(call), has_attrs ? &attrs[next] : nullptr);
        } else if (cls == CallClass::init && options_.init_barrier) {
            join_collective_later(out, call, k_mpi_barrier, nullptr);
        }
    }

    void join_collective_later(ThreadOps& out, std::uint32_t call, std::uint16_t call_id,
                               const CollectiveAttributes* attrs) {
        const OpIndex op = put_op(out, OpKind::collective, k_none,
                                  call); // its collective is set by join_collective
        if (!out.counting) out.joins.push_back({op, call, call_id, attrs});
    }

    void join_thread_barrier(ThreadOps& out, CollectiveIndex barrier) {
        const OpIndex op = put_op(out, OpKind::collective, barrier, k_none);
        if (!out.counting) out.barrier_members.emplace_back(barrier, op);
    }

    void emit_completions(ThreadOps& out, RoleTable& completions, std::uint32_t call) {
        if (!completions.has(call)) return;
        const std::uint32_t list = out.next.wait_list++;
        put_op(out, OpKind::recv_wait, list, call);
        const std::uint32_t first = out.next.wait_message;
        completions.for_each_of(call, [&](MessageIndex m) {
            if (!out.counting) p_.wait_messages[out.next.wait_message] = m;
            ++out.next.wait_message;
        });
        if (out.counting) return;
        p_.wait_first[list + 1] = out.next.wait_message;
        in_trace_arrival_order(first, out.next.wait_message);
    }

    /// Puts a wait's messages, wait_messages[begin, end), in wait_order. The list's start is
    /// passed, not read from wait_first: threads are emitted in parallel, and another thread may
    /// not have written it yet.
    void in_trace_arrival_order(std::uint32_t begin, std::uint32_t end) {
        const auto first = p_.wait_messages.begin() + begin;
        const auto last = p_.wait_messages.begin() + end;
        const auto key = [&](MessageIndex m) {
            const std::uint64_t record = p_.messages[m].record;
            return wait_order(trace_.comms.physical_recv[record], record);
        };
        const auto earlier = [&](MessageIndex a, MessageIndex b) { return key(a) < key(b); };
        if (!std::is_sorted(first, last, earlier)) std::stable_sort(first, last, earlier);
    }

    Time call_begin(ReplayThread th, std::uint32_t call) const {
        return trace_.threads[p_.trace_thread[th]].call_begin[call];
    }

    /// Matches a collective call with the other tasks' (per communicator, in call order).
    void join_collective(ReplayThread th, const CollectiveJoin& join) {
        const auto [op, call, call_id, attrs] = join;
        const std::uint32_t task = p_.thread_task[th];
        const std::uint64_t comm =
            attrs && communicators_.contains(attrs->communicator) ? attrs->communicator : *world_;
        if (attrs && !communicators_.contains(attrs->communicator)) {
            const auto foreign = foreign_task_.find(attrs->communicator);
            throw TraceError(
                trace_.path, 0,
                fmt::format(
                    "task {} calls {} at {} ns on communicator {}, {}", task + 1,
                    mpi_call_name(call_id), call_begin(th, call), attrs->communicator,
                    foreign == foreign_task_.end()
                        ? std::string("which no `c:` line defines")
                        : fmt::format("whose `c:` line lists task {} of the application's {}, "
                                      "and is left out",
                                      foreign->second, p_.tasks)));
        }
        auto& sequence = comm_sequence_[{comm, task}];
        if (sequence == std::numeric_limits<std::uint64_t>::max()) {
            throw TraceError(trace_.path, cut_count_line_[{comm, task}],
                             fmt::format("task {} calls {} at {} ns on communicator {} after "
                                         "2^64 - 1 collectives (its collectives-before-cut count)",
                                         task + 1, mpi_call_name(call_id), call_begin(th, call),
                                         comm));
        }
        auto [it, added] = comm_collectives_[comm].try_emplace(sequence, k_none);
        if (added)
            it->second = new_collective(Collective{.call_id = call_id, .communicator = comm},
                                        communicators_.at(comm).size());
        const CollectiveIndex ci = it->second;
        ++sequence;
        auto& coll = p_.collectives[ci];
        if (coll.call_id != call_id) {
            throw TraceError(trace_.path, 0,
                             fmt::format("collective #{} on communicator {}: task {} calls {} at "
                                         "{} ns where others call {}",
                                         sequence, comm, task + 1, mpi_call_name(call_id),
                                         call_begin(th, call), mpi_call_name(coll.call_id)));
        }
        if (attrs && !take_member_attributes(coll, task, *attrs)) { // the first named is kept
            p_.warnings.add(k_collective_roots.kind, k_collective_roots.summary,
                            collective_roots(call_id, sequence, comm, coll.root_task, task));
        }
        p_.op_ref[op] = ci;
        members_[ci].push_back(op);
    }

    void finish_collectives() {
        for (CollectiveIndex ci = 0; ci < p_.collectives.size(); ++ci) {
            auto& coll = p_.collectives[ci];
            coll.flow = collective_flow(coll, options_.collectives);
            if (members_[ci].size() != expected_members_[ci]) {
                const OpIndex first = members_[ci].front();
                const ReplayThread th = p_.thread_of(first);
                if (trace_.cut_at_end) { // the others called it before or after the cut
                    p_.warnings.add(
                        "collectives-cut-at-end",
                        "collectives at the trace's edges are called by only some of their tasks "
                        "(the others called them before the cut's start or after its end); they "
                        "complete without waiting for the missing tasks",
                        fmt::format("{} on communicator {}, called by {} of its {} tasks, the "
                                    "first at {}",
                                    mpi_call_name(coll.call_id), coll.communicator,
                                    members_[ci].size(), expected_members_[ci],
                                    seconds(call_begin(th, p_.op_call[first]))));
                } else {
                    throw TraceError(
                        trace_.path, 0,
                        fmt::format("{} on communicator {} (first called by task {} at {} ns) is "
                                    "called by {} of its {} tasks: "
                                    "the tasks call different numbers of collectives on it",
                                    mpi_call_name(coll.call_id), coll.communicator,
                                    p_.thread_task[th] + 1, call_begin(th, p_.op_call[first]),
                                    members_[ci].size(), expected_members_[ci]));
                }
            }
            coll.first_member = static_cast<std::uint32_t>(p_.collective_members.size());
            coll.member_count = static_cast<std::uint32_t>(members_[ci].size());
            p_.collective_members.insert(p_.collective_members.end(), members_[ci].begin(),
                                         members_[ci].end());
        }
    }

    const Trace& trace_;
    const ProgramOptions& options_;
    ReplayProgram p_;
    std::vector<ReplayThread> thread_of_trace_; // k_none for threads not replayed
    std::vector<Intervals> regions_;            // per task, when it replays several threads
    std::vector<std::vector<Time>>
        arrivals_; // per replay thread and region: its arrival at the join
    std::vector<std::vector<Time>> last_arrival_; // per task and region: the latest arrival
    std::vector<std::vector<std::pair<CollectiveIndex, CollectiveIndex>>>
        fork_join_; // per task and region
    std::map<std::uint64_t, std::vector<std::uint32_t>> communicators_;
    std::map<std::uint64_t, std::uint32_t> foreign_task_; // ProgramCommunicators::foreign_task
    std::optional<std::uint64_t> world_;                  // set by read_communicators
    std::vector<ThreadRoles> roles_;
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint64_t>
        comm_sequence_; // (communicator, task) -> collectives so far
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint64_t>
        cut_count_line_; // (communicator, task) -> the line of its collectives-before-cut count
    /// Per communicator, its collectives by number (in order, as most are added).
    std::map<std::uint64_t, boost::container::flat_map<std::uint64_t, CollectiveIndex>>
        comm_collectives_;
    std::vector<std::vector<OpIndex>> members_;
    std::vector<std::size_t> expected_members_;
};

} // namespace

ProgramCommunicators program_communicators(const ParaverHeader& header, std::uint32_t tasks,
                                           WarningLog* warnings) {
    ProgramCommunicators out;
    std::optional<std::uint64_t> world;
    for (const auto& c : header.communicators) {
        // PROFET's traces list the other application's communicators under this one: they are
        // left out, and a collective on one of them is an error (join_collective).
        const auto outside = std::find_if(c.tasks.begin(), c.tasks.end(),
                                          [&](auto task) { return task == 0 || task > tasks; });
        if (outside != c.tasks.end()) {
            out.foreign_task.emplace(c.id, *outside);
            if (warnings) {
                warnings->add(
                    "foreign-communicators",
                    "communicator lines list tasks the application does not have "
                    "and are left out",
                    fmt::format("communicator {} lists task {} of {}", c.id, *outside, tasks));
            }
            continue;
        }
        std::vector<std::uint32_t> members;
        for (auto task : c.tasks) members.push_back(task - 1);
        if (!world && members.size() == tasks) world = c.id; // prv2dim's rule for MPI_COMM_WORLD
        out.members[c.id] = std::move(members);
    }
    if (!world) { // no `c:` lines: assume one communicator with every task
        world = 0;
        auto& all = out.members[0];
        for (std::uint32_t t = 0; t < tasks; ++t) all.push_back(t);
    }
    out.world = *world;
    return out;
}

std::string call_without_record(std::uint16_t call_id, Time begin, const ThreadName& thread) {
    return fmt::format("{} at {} on thread {}", mpi_call_name(call_id), seconds(begin),
                       to_string(thread));
}

std::string collective_roots(std::uint16_t call_id, std::uint64_t sequence,
                             std::uint64_t communicator, std::uint32_t root_task,
                             std::uint32_t task) {
    return fmt::format("{} #{} on communicator {}: tasks {} and {}", mpi_call_name(call_id),
                       sequence, communicator, root_task + 1, task + 1);
}

std::string left_early(std::uint16_t call_id, std::uint32_t early_task, Time first_exit,
                       std::uint32_t late_task, Time last_entry) {
    return fmt::format("{}: task {} left it at {}, before task {} entered at {}",
                       mpi_call_name(call_id), early_task + 1, seconds(first_exit), late_task + 1,
                       seconds(last_entry));
}

bool take_member_attributes(Collective& c, std::uint32_t task, const CollectiveAttributes& attrs) {
    c.send_bytes = std::max(c.send_bytes, attrs.send_bytes);
    c.recv_bytes = std::max(c.recv_bytes, attrs.recv_bytes);
    if (!attrs.is_root) return true;
    c.root_task = std::min(c.root_task, task);
    return c.root_task == task;
}

CollectiveFlow data_flow(const Collective& coll) {
    if (coll.thread_barrier || coll.root_task == k_none) return CollectiveFlow::all_members;
    switch (coll.call_id) {
    case 9:  // Reduce
    case 13: // Gather
    case 14: // Gatherv
        return CollectiveFlow::to_root;
    case 7:  // Bcast
    case 15: // Scatter
    case 16: // Scatterv
        return CollectiveFlow::from_root;
    default:
        return CollectiveFlow::all_members;
    }
}

CollectiveFlow collective_flow(const Collective& coll, CollectiveSync sync) {
    return sync == CollectiveSync::mpi ? data_flow(coll) : dimemas_flow(coll);
}

CollectiveFlow dimemas_flow(const Collective& coll) {
    constexpr std::uint16_t k_reduce = 9;
    return coll.call_id == k_reduce && data_flow(coll) == CollectiveFlow::to_root
               ? CollectiveFlow::to_root
               : CollectiveFlow::all_members;
}

bool left_before_last_arrived(const Trace& trace, const ReplayProgram& p, CollectiveIndex c,
                              std::string* description) {
    const auto& coll = p.collectives[c];
    if (coll.thread_barrier) return false;
    Time last_entry = 0, first_exit = std::numeric_limits<Time>::max();
    std::uint32_t early_task = 0, late_task = 0;
    for (auto i = coll.first_member; i < coll.first_member + coll.member_count; ++i) {
        const OpIndex op = p.collective_members[i];
        const ReplayThread thread = p.thread_of(op);
        const std::uint32_t call = p.op_call[op];
        if (call == k_none) continue;
        const auto& tl = trace.threads[p.trace_thread[thread]];
        if (tl.call_begin[call] > last_entry) {
            last_entry = tl.call_begin[call];
            late_task = p.thread_task[thread];
        }
        if (tl.call_end[call] < first_exit) {
            first_exit = tl.call_end[call];
            early_task = p.thread_task[thread];
        }
    }
    if (first_exit >= last_entry) return false;
    if (description) {
        *description = left_early(coll.call_id, early_task, first_exit, late_task, last_entry);
    }
    return true;
}

ReplayProgram build_replay_program(const Trace& trace, const ProgramOptions& options) {
    return ProgramBuilder(trace, options).build();
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The program as it is written while the trace is read, the event engine's second source
// (engine/whole_program.hpp is the first): each thread's operations from where every replay of
// it stands to where the writer is, the messages still under way in some replay, and the
// collectives met so far (docs/replay.md, "Replaying the networks while the program is written").
//
// A thread's places count its operations from its first, 0, as written; a collective's number
// is the order its first member was met in. What the engine reads is the in-memory program's
// (build_replay_program) operation for operation, only numbered so; every replay of it is equal.
//
// An operation of a collective is visible to the replays only once the collective's members are
// all known, and a replay runs a thread's step (its operations at one instant, up to a burst or
// a collective) only once that step is visible whole (ready()): so it processes its events in the
// order it would on the whole program, and only pauses.
#include "replay/engine/engine.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/ring.hpp"

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace popsim::replay::engine {

class WrittenProgram {
  public:
    /// One replay thread per task.
    explicit WrittenProgram(std::uint32_t tasks);

    // --- What the writer calls, each thread's operations in its order.
    void burst(ReplayThread t, Time duration);
    /// Posts, sends and waits of call `call` (the thread's number for it).
    void post(ReplayThread t, MessageIndex m, std::uint32_t call) {
        put(t, {call, m, OpKind::recv_post});
    }
    void send(ReplayThread t, MessageIndex m) { put(t, {0, m, OpKind::send}); }
    void wait(ReplayThread t, std::span<const MessageIndex> messages, std::uint32_t call);
    /// Thread t joins collective `id` (numbered as met), whose shape may be known later.
    void join(ReplayThread t, CollectiveIndex id) { put(t, {0, id, OpKind::collective}); }
    /// The message of communication record `m.record`, in record order.
    void message(const Message& m);
    void sent_immediately(MessageIndex m);
    /// Collective `id`'s shape, every member met: its member tasks, in any order.
    void collective(CollectiveIndex id, const Collective& shape,
                    std::span<const std::uint32_t> member_tasks);
    /// Every thread's operations are written.
    void complete();

    // --- What the engine reads (as WholeProgram).
    static constexpr bool whole = false; // the replays pause where it is not written yet
    std::uint32_t task_count() const { return static_cast<std::uint32_t>(threads_.size()); }
    std::uint32_t thread_count() const { return task_count(); }
    std::uint32_t task_of(ReplayThread t) const { return t; }
    ReplayThread master_thread(std::uint32_t task) const { return task; }
    OpIndex first_op(ReplayThread /*t*/) const { return 0; }
    /// The end of thread t's operations visible so far.
    OpIndex end_op(ReplayThread t) const { return threads_[t].visible; }
    OpKind kind(ReplayThread t, OpIndex op) const { return at(t, op).kind; }
    /// A burst's is its own place, a wait's the place of its list's length in wait messages.
    std::uint32_t ref(ReplayThread t, OpIndex op) const { return at(t, op).ref; }
    Time burst_duration(ReplayThread t, OpIndex burst) const { return at(t, burst).value; }
    std::span<const MessageIndex> wait_list(ReplayThread t, std::uint32_t list) const {
        const auto& thread = threads_[t];
        const auto length = thread.wait_messages.data() + (list - thread.first_wait_message);
        return {length + 1, *length};
    }
    /// The thread's number for the MPI call a post or a wait belongs to.
    std::uint32_t call(ReplayThread t, OpIndex op) const {
        return static_cast<std::uint32_t>(at(t, op).value);
    }
    const Message& message(MessageIndex m) const { return messages_[m - first_message_]; }
    /// Members' data sent to roots are numbered from here: message() refuses more messages
    /// (over 200 GB of communication records, which the writer replays on the whole program).
    static constexpr std::uint32_t first_root_transfer() { return 1u << 31; }
    /// Collectives known so far, counted in the order they became known (not their numbers).
    std::uint64_t known_collectives() const { return first_known_ + known_.size(); }
    CollectiveIndex known_collective(std::uint64_t k) const { return known_[k - first_known_]; }
    /// A collective's shape and members stay in place until forgotten (a network may keep a
    /// pointer to the shape while the collective waits for buses).
    const Collective& collective(CollectiveIndex c) const { return entry(c).shape; }
    std::span<const ReplayThread> members(CollectiveIndex c) const { return entry(c).members; }
    /// Whether a replay may run thread t's step from place `op`: its operations are written up
    /// to its next burst or collective, or all of them.
    bool ready(ReplayThread t, OpIndex op) const {
        return complete_ || (threads_[t].last_stop != k_none && threads_[t].last_stop >= op);
    }

    /// Threads blocked at `position` forever: the operations before them are forgotten, so the
    /// deadlock says only that there is one (the in-memory program describes it).
    ReplayDeadlock deadlock(const std::vector<OpIndex>& position,
                            const std::vector<Time>& reached_at) const;

    // --- What every replay has passed: forgotten.
    /// Thread t's operations before `op` (the one before it is kept: a blocking receive's wait
    /// looks at its post).
    void forget_before(ReplayThread t, OpIndex op);
    void forget_messages_before(MessageIndex m);
    /// The collectives below `c`, over in every replay, and the order they became known in,
    /// which every replay has taken.
    void forget_collectives_before(CollectiveIndex c);

  private:
    struct Op {            // 16 bytes
        Time value;        // a burst's duration; a post's or a wait's call
        std::uint32_t ref; // as ref()
        OpKind kind;
    };
    struct Thread {
        Ring<Op> ops;
        OpIndex first_op = 0;       // the place of ops.front()
        OpIndex visible = 0;        // the end of the operations the replays may read
        OpIndex last_stop = k_none; // the last burst or collective among them
        // Each wait's list: its length, then its messages. Contiguous, for the engine's spans:
        // what is forgotten is erased from the front (a few lists at a time).
        std::vector<MessageIndex> wait_messages;
        std::uint32_t first_wait_message = 0; // the place of wait_messages.front()
    };
    struct KnownCollective {
        Collective shape;
        std::vector<ReplayThread> members; // empty until known
        bool known = false;
    };

    const KnownCollective& entry(CollectiveIndex c) const {
        return collectives_[c - first_collective_];
    }
    bool known(CollectiveIndex c) const {
        return c >= first_collective_ && c - first_collective_ < collectives_.size() &&
               entry(c).known;
    }
    const Op& at(ReplayThread t, OpIndex op) const {
        return threads_[t].ops[op - threads_[t].first_op];
    }
    void put(ReplayThread t, const Op& op);
    /// Makes the thread's operations visible up to its first collective not yet known.
    void reveal(Thread& thread);

    std::vector<Thread> threads_;
    Ring<Message> messages_;
    MessageIndex first_message_ = 0;
    std::deque<KnownCollective> collectives_; // by number, from first_collective_
    CollectiveIndex first_collective_ = 0;
    std::vector<CollectiveIndex> known_; // from the first_known_-th known
    std::uint64_t first_known_ = 0;
    bool complete_ = false;
};

/// Writes the whole program `p` (one replay thread per task) into `out` and completes it, as the
/// streaming pass would have written it: for benchmarks and tests of the replays that read it.
void write_program(const ReplayProgram& p, WrittenProgram& out);

} // namespace popsim::replay::engine

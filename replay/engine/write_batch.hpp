// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the streaming pass writes of the program while the live replays run (LiveReplays): the
// writer's calls, kept until the batch is handed over to the replays, whose work writes it into
// their WrittenProgram before they go on. The replays then read one program that nobody writes
// while they run, and the writer never waits for them between two hand-overs.
//
// Example:
//   WriteBatch batch;
//   batch.message(m); batch.send(0, 0); batch.burst(1, 250);
//   batch.write_into(program); // as if those calls had been made on `program`; batch empty
#include "replay/engine/written_program.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace popsim::replay::engine {

class WriteBatch {
  public:
    // --- WrittenProgram's writer calls, taken in the same order.
    void burst(ReplayThread t, Time duration) { ops_.push_back({duration, 0, t, OpKind::burst}); }
    void post(ReplayThread t, MessageIndex m, std::uint32_t call) {
        ops_.push_back({call, m, t, OpKind::recv_post});
    }
    void send(ReplayThread t, MessageIndex m) { ops_.push_back({0, m, t, OpKind::send}); }
    void wait(ReplayThread t, std::span<const MessageIndex> messages, std::uint32_t call);
    void join(ReplayThread t, CollectiveIndex id) {
        ops_.push_back({0, id, t, OpKind::collective});
    }
    void message(const Message& m) { messages_.push_back(m); }
    void sent_immediately(MessageIndex m) { sent_immediately_.push_back(m); }
    void collective(CollectiveIndex id, const Collective& shape,
                    std::span<const std::uint32_t> member_tasks);

    /// Operations written since the last write_into.
    std::uint64_t operations() const { return ops_.size(); }

    /// Makes the calls taken since the last time on `program`, and forgets them (keeping the
    /// memory). Each kind of call keeps its order, which is all the program depends on: its
    /// messages in the order given, each thread's operations in that thread's order, the
    /// collectives in the order they became known; a message marked sent at once is marked once
    /// it is there, and a thread's operations become visible to the replays as far as the
    /// collectives known allow, whichever came first.
    void write_into(WrittenProgram& program);

  private:
    struct Op {            // 24 bytes
        Time value;        // a burst's duration; a post's or a wait's call
        std::uint32_t ref; // a message, a collective, or a wait's list in wait_messages_
        ReplayThread thread;
        OpKind kind;
    };
    struct KnownCollective {
        CollectiveIndex id;
        Collective shape;
        std::size_t first_member; // in member_tasks_
        std::size_t members;
    };

    std::vector<Op> ops_;
    std::vector<MessageIndex> wait_messages_; // each wait's list: its length, then its messages
    std::vector<Message> messages_;
    std::vector<MessageIndex> sent_immediately_;
    std::vector<KnownCollective> collectives_;
    std::vector<std::uint32_t> member_tasks_;
};

} // namespace popsim::replay::engine

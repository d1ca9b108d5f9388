// SPDX-License-Identifier: BSD-3-Clause
// Issue 37: the live replays' program is written in batches (replay/engine/write_batch.hpp): a
// batch written into the program gives what the engine would read had the calls been made on
// the program itself, checked here operation by operation against hand-made expectations.
#include "replay/engine/write_batch.hpp"

#include <doctest/doctest.h>
#include <vector>

using namespace popsim::replay;
using engine::WriteBatch;
using engine::WrittenProgram;

namespace {
Message message(ReplayThread sender, ReplayThread receiver, std::uint32_t record) {
    Message m{};
    m.bytes = 64;
    m.sender = sender;
    m.receiver = receiver;
    m.record = record;
    return m;
}

std::vector<MessageIndex> list(std::span<const MessageIndex> s) {
    return {s.begin(), s.end()};
}
} // namespace

TEST_CASE("write batch: the program reads what the calls wrote, in two hand-overs") {
    WrittenProgram program(2);
    WriteBatch batch;
    batch.message(message(0, 1, 0));
    batch.burst(0, 100);
    batch.send(0, 0);
    batch.join(0, 0); // collective 0, not known yet
    batch.post(1, 0, 3);
    const std::vector<MessageIndex> awaited{0};
    batch.wait(1, awaited, 3);
    batch.burst(1, 50);
    batch.join(1, 0);
    batch.message(message(1, 0, 1));
    batch.sent_immediately(0);
    CHECK(batch.operations() == 7);
    batch.write_into(program);
    CHECK(batch.operations() == 0);

    // Thread 0: a burst and a send visible, its join not (collective 0 unknown).
    CHECK(program.end_op(0) == 2);
    CHECK(program.kind(0, 0) == OpKind::burst);
    CHECK(program.burst_duration(0, program.ref(0, 0)) == 100);
    CHECK(program.kind(0, 1) == OpKind::send);
    CHECK(program.ref(0, 1) == 0);
    CHECK(program.ready(0, 0));
    CHECK_FALSE(program.ready(0, 1));
    // Thread 1: the post and the wait of call 3, then a burst.
    CHECK(program.end_op(1) == 3);
    CHECK(program.kind(1, 0) == OpKind::recv_post);
    CHECK(program.call(1, 0) == 3);
    CHECK(program.kind(1, 1) == OpKind::recv_wait);
    CHECK(program.call(1, 1) == 3);
    CHECK(list(program.wait_list(1, program.ref(1, 1))) == awaited);
    CHECK(program.burst_duration(1, program.ref(1, 2)) == 50);
    // The messages, the first marked as sent at once.
    CHECK(program.message(0).immediate_send);
    CHECK(program.message(0).receiver == 1);
    CHECK_FALSE(program.message(1).immediate_send);
    CHECK(program.message(1).record == 1);
    CHECK(program.known_collectives() == 0);

    // The collective becomes known in the second batch: the joins become visible.
    Collective shape{};
    shape.call_id = 8;
    shape.member_count = 2;
    const std::vector<std::uint32_t> members{1, 0};
    batch.collective(0, shape, members);
    batch.burst(0, 7);
    batch.write_into(program);
    CHECK(program.known_collectives() == 1);
    CHECK(program.known_collective(0) == 0);
    CHECK(program.collective(0).call_id == 8);
    CHECK(list(program.members(0)) == std::vector<MessageIndex>{0, 1}); // in task order
    CHECK(program.end_op(0) == 4);
    CHECK(program.kind(0, 2) == OpKind::collective);
    CHECK(program.burst_duration(0, program.ref(0, 3)) == 7);
    CHECK(program.ready(0, 3));
    CHECK(program.end_op(1) == 4);
    CHECK(program.ready(1, 3));
}

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Two replay programs compared array by array (the streamed and the in-memory one, a program and
// its bytes read back).
#include "replay/program/replay_program.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <tuple>
#include <vector>

namespace popsim::test {

using replay::ReplayProgram;

template <class A> inline std::vector<typename A::value_type> as_vector(const A& a) {
    return {a.begin(), a.end()};
}

/// Every array of `s` equals `m`'s; and their warnings, with `warnings`.
inline void check_same_program(const ReplayProgram& s, const ReplayProgram& m,
                               bool warnings = true) {
    CHECK(s.tasks == m.tasks);
    CHECK(s.thread_task == m.thread_task);
    CHECK(s.trace_thread == m.trace_thread);
    CHECK(s.task_first_thread == m.task_first_thread);
    CHECK(s.thread_first_op == m.thread_first_op);
    CHECK(as_vector(s.op_kind) == as_vector(m.op_kind));
    CHECK(as_vector(s.op_ref) == as_vector(m.op_ref));
    CHECK(as_vector(s.op_call) == as_vector(m.op_call));
    CHECK(as_vector(s.burst_durations) == as_vector(m.burst_durations));
    CHECK(as_vector(s.wait_first) == as_vector(m.wait_first));
    CHECK(as_vector(s.wait_messages) == as_vector(m.wait_messages));
    REQUIRE(s.messages.size() == m.messages.size());
    for (std::size_t i = 0; i < s.messages.size(); ++i) {
        const auto &a = s.messages[i], &b = m.messages[i];
        CAPTURE(i);
        CHECK(std::tie(a.bytes, a.sender, a.receiver, a.tag, a.record, a.immediate_send,
                       a.rendezvous) == std::tie(b.bytes, b.sender, b.receiver, b.tag, b.record,
                                                 b.immediate_send, b.rendezvous));
    }
    REQUIRE(s.collectives.size() == m.collectives.size());
    for (std::size_t i = 0; i < s.collectives.size(); ++i) {
        const auto &a = s.collectives[i], &b = m.collectives[i];
        CAPTURE(i);
        CHECK(std::tie(a.call_id, a.communicator, a.send_bytes, a.recv_bytes, a.root_task,
                       a.first_member, a.member_count, a.thread_barrier, a.flow) ==
              std::tie(b.call_id, b.communicator, b.send_bytes, b.recv_bytes, b.root_task,
                       b.first_member, b.member_count, b.thread_barrier, b.flow));
    }
    CHECK(s.collective_members == m.collective_members);
    if (warnings) CHECK(test::warning_lines(s.warnings) == test::warning_lines(m.warnings));
    CHECK(s.untraced == m.untraced);
}

} // namespace popsim::test

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/engine/written_program.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace popsim::replay::engine {

WrittenProgram::WrittenProgram(std::uint32_t tasks) : threads_(tasks) {}

void WrittenProgram::burst(ReplayThread t, Time duration) {
    const auto place = threads_[t].first_op + static_cast<OpIndex>(threads_[t].ops.size());
    put(t, {duration, place, OpKind::burst});
}

void WrittenProgram::wait(ReplayThread t, std::span<const MessageIndex> messages,
                          std::uint32_t call) {
    auto& waits = threads_[t].wait_messages;
    const auto list = threads_[t].first_wait_message + static_cast<std::uint32_t>(waits.size());
    waits.push_back(static_cast<MessageIndex>(messages.size()));
    for (const MessageIndex m : messages) waits.push_back(m);
    put(t, {call, list, OpKind::recv_wait});
}

void WrittenProgram::put(ReplayThread t, const Op& op) {
    auto& thread = threads_[t];
    thread.ops.push_back(op);
    reveal(thread);
}

void WrittenProgram::reveal(Thread& thread) {
    const auto written = thread.first_op + static_cast<OpIndex>(thread.ops.size());
    for (; thread.visible < written; ++thread.visible) {
        const Op& op = thread.ops[thread.visible - thread.first_op];
        if (op.kind == OpKind::collective && !known(op.ref)) return;
        if (op.kind == OpKind::burst || op.kind == OpKind::collective)
            thread.last_stop = thread.visible;
    }
}

void WrittenProgram::message(const Message& m) {
    if (m.record >= first_root_transfer())
        throw std::length_error("more than 2^31 messages to replay while the trace is read");
    messages_.push_back(m);
}

void WrittenProgram::sent_immediately(MessageIndex m) {
    // Its send is not written yet, so no replay is past it.
    if (m < first_message_) throw std::logic_error("a message changed after it was over");
    messages_[m - first_message_].immediate_send = true;
}

void WrittenProgram::collective(CollectiveIndex id, const Collective& shape,
                                std::span<const std::uint32_t> member_tasks) {
    if (id < first_collective_) throw std::logic_error("a collective known after it was over");
    while (id - first_collective_ >= collectives_.size()) collectives_.emplace_back();
    auto& c = collectives_[id - first_collective_];
    c.shape = shape;
    c.members.assign(member_tasks.begin(), member_tasks.end()); // a task's thread is the task
    std::sort(c.members.begin(), c.members.end()); // as the in-memory program lists them
    c.known = true;
    known_.push_back(id);
    for (const ReplayThread t : c.members) reveal(threads_[t]);
}

void WrittenProgram::complete() {
    complete_ = true;
}

ReplayDeadlock WrittenProgram::deadlock(const std::vector<OpIndex>& position,
                                        const std::vector<Time>& /*reached_at*/) const {
    std::size_t blocked = 0;
    for (ReplayThread t = 0; t < thread_count(); ++t) blocked += position[t] < end_op(t) ? 1 : 0;
    return ReplayDeadlock(fmt::format("the replay deadlocks: the trace's dependencies form a "
                                      "cycle ({} tasks blocked)",
                                      blocked),
                          {}, {});
}

void WrittenProgram::forget_before(ReplayThread t, OpIndex op) {
    auto& thread = threads_[t];
    if (op <= thread.first_op + 1) return;
    const OpIndex keep = op - 1;
    std::uint32_t waits_end = thread.first_wait_message;
    for (; thread.first_op < keep; ++thread.first_op) {
        const Op& front = thread.ops.front();
        if (front.kind == OpKind::recv_wait)
            waits_end = front.ref + 1 + thread.wait_messages[front.ref - thread.first_wait_message];
        thread.ops.pop_front();
    }
    auto& waits = thread.wait_messages;
    waits.erase(waits.begin(), waits.begin() + (waits_end - thread.first_wait_message));
    thread.first_wait_message = waits_end;
}

void WrittenProgram::forget_collectives_before(CollectiveIndex c) {
    for (; first_collective_ < c && !collectives_.empty(); ++first_collective_)
        collectives_.pop_front();
    first_known_ += known_.size();
    known_.clear();
}

void WrittenProgram::forget_messages_before(MessageIndex m) {
    for (; first_message_ < m && !messages_.empty(); ++first_message_) messages_.pop_front();
}

void write_program(const ReplayProgram& p, WrittenProgram& out) {
    if (p.thread_count() != p.tasks)
        throw std::invalid_argument("a written program has one thread per task");
    for (const auto& m : p.messages) out.message(m);
    for (ReplayThread t = 0; t < p.thread_count(); ++t) {
        for (OpIndex op = p.thread_first_op[t]; op < p.thread_end_op(t); ++op) {
            const std::uint32_t ref = p.op_ref[op];
            switch (p.op_kind[op]) {
            case OpKind::burst:
                out.burst(t, p.burst_durations[ref]);
                break;
            case OpKind::send:
                out.send(t, ref);
                break;
            case OpKind::recv_post:
                out.post(t, ref, p.op_call[op]);
                break;
            case OpKind::recv_wait:
                out.wait(t,
                         {p.wait_messages.data() + p.wait_first[ref],
                          p.wait_first[ref + 1] - p.wait_first[ref]},
                         p.op_call[op]);
                break;
            case OpKind::collective:
                out.join(t, ref);
                break;
            }
        }
    }
    std::vector<std::uint32_t> tasks;
    for (CollectiveIndex c = 0; c < p.collectives.size(); ++c) {
        const auto& coll = p.collectives[c];
        tasks.clear();
        for (auto i = coll.first_member; i < coll.first_member + coll.member_count; ++i)
            tasks.push_back(p.thread_task[p.thread_of(p.collective_members[i])]);
        out.collective(c, coll, tasks);
    }
    out.complete();
}

} // namespace popsim::replay::engine

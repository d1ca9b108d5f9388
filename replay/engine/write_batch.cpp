// SPDX-License-Identifier: BSD-3-Clause
#include "replay/engine/write_batch.hpp"

namespace popsim::replay::engine {

void WriteBatch::wait(ReplayThread t, std::span<const MessageIndex> messages, std::uint32_t call) {
    const auto list = static_cast<std::uint32_t>(wait_messages_.size());
    wait_messages_.push_back(static_cast<MessageIndex>(messages.size()));
    wait_messages_.insert(wait_messages_.end(), messages.begin(), messages.end());
    ops_.push_back({call, list, t, OpKind::recv_wait});
}

void WriteBatch::collective(CollectiveIndex id, const Collective& shape,
                            std::span<const std::uint32_t> member_tasks) {
    collectives_.push_back({id, shape, member_tasks_.size(), member_tasks.size()});
    member_tasks_.insert(member_tasks_.end(), member_tasks.begin(), member_tasks.end());
}

void WriteBatch::write_into(WrittenProgram& program) {
    for (const Message& m : messages_) program.message(m);
    for (const MessageIndex m : sent_immediately_) program.sent_immediately(m);
    for (const auto& known : collectives_)
        program.collective(known.id, known.shape,
                           std::span(member_tasks_).subspan(known.first_member, known.members));
    for (const Op& op : ops_) {
        switch (op.kind) {
        case OpKind::burst:
            program.burst(op.thread, op.value);
            break;
        case OpKind::recv_post:
            program.post(op.thread, op.ref, static_cast<std::uint32_t>(op.value));
            break;
        case OpKind::send:
            program.send(op.thread, op.ref);
            break;
        case OpKind::recv_wait:
            program.wait(op.thread,
                         std::span(wait_messages_).subspan(op.ref + 1, wait_messages_[op.ref]),
                         static_cast<std::uint32_t>(op.value));
            break;
        case OpKind::collective:
            program.join(op.thread, op.ref);
            break;
        }
    }
    ops_.clear();
    wait_messages_.clear();
    messages_.clear();
    sent_immediately_.clear();
    collectives_.clear();
    member_tasks_.clear();
}

} // namespace popsim::replay::engine

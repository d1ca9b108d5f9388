// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The program as the event engine reads it: each thread's operations by place, a collective with
// its member threads, a wait's list of messages, a message by number. Only what the engine asks
// of a program, so that a program written while the trace is read (docs/replay.md, "Not built
// yet: replaying the networks while the program is written") can be a second source beside
// this one, the whole program in memory, where a thread's places are the program's OpIndex.
#include "replay/engine/engine.hpp"
#include "replay/program/replay_program.hpp"

#include <span>
#include <vector>

namespace popsim::replay::engine {

class WholeProgram {
  public:
    explicit WholeProgram(const ReplayProgram& p);

    static constexpr bool whole = true; // every operation there from the start
    std::uint32_t task_count() const { return p_.tasks; }
    std::uint32_t thread_count() const { return p_.thread_count(); }
    std::uint32_t task_of(ReplayThread t) const { return p_.thread_task[t]; }
    ReplayThread master_thread(std::uint32_t task) const { return p_.master_thread(task); }

    /// Thread t's operations are the places [first_op(t), end_op(t)).
    OpIndex first_op(ReplayThread t) const { return p_.thread_first_op[t]; }
    OpIndex end_op(ReplayThread t) const { return p_.thread_end_op(t); }
    OpIndex op_count() const { return static_cast<OpIndex>(p_.op_count()); }
    OpKind kind(ReplayThread /*t*/, OpIndex op) const { return p_.op_kind[op]; }
    /// ReplayProgram::op_ref of the thread's operation.
    std::uint32_t ref(ReplayThread /*t*/, OpIndex op) const { return p_.op_ref[op]; }
    Time burst_duration(ReplayThread /*t*/, std::uint32_t burst) const {
        return p_.burst_durations[burst];
    }
    std::span<const MessageIndex> wait_list(ReplayThread /*t*/, std::uint32_t list) const {
        const std::uint32_t first = p_.wait_first[list];
        return {p_.wait_messages.data() + first, p_.wait_first[list + 1] - first};
    }
    /// The thread's number for the MPI call a post or a wait belongs to.
    std::uint32_t call(ReplayThread /*t*/, OpIndex op) const { return p_.op_call[op]; }

    const Message& message(MessageIndex m) const { return p_.messages[m]; }
    /// Transfers from this number on carry collective members' data to their roots; below, they
    /// are messages.
    std::uint32_t first_root_transfer() const {
        return static_cast<std::uint32_t>(p_.messages.size());
    }

    CollectiveIndex collective_count() const {
        return static_cast<CollectiveIndex>(p_.collectives.size());
    }
    /// Every collective is known from the start, in the order of their numbers.
    std::uint64_t known_collectives() const { return collective_count(); }
    CollectiveIndex known_collective(std::uint64_t k) const {
        return static_cast<CollectiveIndex>(k);
    }
    const Collective& collective(CollectiveIndex c) const { return p_.collectives[c]; }
    /// The threads of collective c's members, in the order of ReplayProgram::collective_members.
    std::span<const ReplayThread> members(CollectiveIndex c) const {
        const auto& coll = p_.collectives[c];
        return {member_threads_.data() + coll.first_member, coll.member_count};
    }

    /// The deadlock of threads blocked at `position` (engine.hpp).
    ReplayDeadlock deadlock(const std::vector<OpIndex>& position,
                            const std::vector<Time>& reached_at) const {
        return replay::deadlock(p_, position, reached_at);
    }

  private:
    const ReplayProgram& p_;
    std::vector<ReplayThread> member_threads_; // parallel to p_.collective_members
};

} // namespace popsim::replay::engine

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/streaming/program_recorder.hpp"

#include "replay/allocator_tuning.hpp"
#include "replay/streaming/streaming_replay.hpp"

#include <algorithm>
#include <array>
#include <numeric>

namespace popsim::replay {

namespace {

/// Counts what the logs moved into the program held, and gives it back to the system every few
/// MB: the heap keeps freed memory (allocator_tuning.hpp), which would hold the program twice.
class FreedMemory {
  public:
    void operator()(std::size_t bytes) {
        pending_ += bytes;
        if (pending_ < k_give_back_every) return;
        give_freed_memory_back();
        pending_ = 0;
    }

  private:
    static constexpr std::size_t k_give_back_every = std::size_t{16} << 20;
    std::size_t pending_ = 0;
};

} // namespace

ProgramRecorder::ProgramRecorder(std::vector<ThreadIndex> trace_threads)
    : trace_threads_(std::move(trace_threads)), threads_(trace_threads_.size()),
      workers_(trace_threads_.size()), regions_(trace_threads_.size(), 0) {}

void ProgramRecorder::message(const Message& m) {
    // Messages are found by record number: a record handed over out of order would shift them.
    if (m.record != messages_.size())
        throw StreamingUnsupported("communication records are not handed over in file order");
    messages_.push_back(m);
}

void ProgramRecorder::sent_immediately(MessageIndex m) {
    messages_[m].immediate_send = true;
}

void ProgramRecorder::collective(std::uint64_t id, const Collective& shape,
                                 std::pair<std::uint32_t, std::uint64_t> lowest_member) {
    if (id >= collectives_.size()) collectives_.resize(id + 1); // they complete in any order
    collectives_[id] = {shape, lowest_member};
}

void ProgramRecorder::put_burst(ThreadOps& thread, Time duration) {
    if (duration > 0) put_piece(thread, duration);
}

void ProgramRecorder::put_piece(ThreadOps& thread, Time duration) {
    thread.ops.push_back({OpKind::burst, static_cast<std::uint32_t>(thread.bursts.size()), k_none});
    thread.bursts.push_back(duration);
}

void ProgramRecorder::pieces(ReplayThread t, std::span<const Time> durations) {
    for (const Time d : durations) put_piece(threads_[t], d);
}

void ProgramRecorder::burst(ReplayThread t, Time duration) {
    put_burst(threads_[t], duration);
}

void ProgramRecorder::put_region_steps(ThreadOps& thread, std::span<const RegionStep> steps) {
    for (const auto& step : steps) {
        if (step.kind == RegionStep::Kind::burst) {
            put_burst(thread, step.value);
            continue;
        }
        const auto barrier = static_cast<std::uint32_t>(
            2 * step.value + (step.kind == RegionStep::Kind::join ? 1 : 0));
        thread.ops.push_back({OpKind::collective, barrier, k_none});
    }
}

void ProgramRecorder::region_steps(ReplayThread t, std::span<const RegionStep> steps) {
    put_region_steps(threads_[t], steps);
}

void ProgramRecorder::region_workers(ReplayThread t, std::uint32_t number,
                                     std::span<const Time> work) {
    workers_[t].resize(work.size());
    regions_[t] = std::max(regions_[t], number + 1);
    for (std::size_t w = 0; w < work.size(); ++w) {
        const Time time = static_cast<Time>(number);
        put_region_steps(workers_[t][w], std::array{RegionStep{RegionStep::Kind::fork, time},
                                                    RegionStep{RegionStep::Kind::burst, work[w]},
                                                    RegionStep{RegionStep::Kind::join, time}});
    }
}

void ProgramRecorder::call(ReplayThread t, const Call& c) {
    auto& thread = threads_[t];
    put_region_steps(thread, c.regions);
    for (const Time d : c.pieces) put_piece(thread, d);
    put_burst(thread, c.burst_before);
    for (const auto m : c.posts) thread.ops.push_back({OpKind::recv_post, m, c.number});
    for (const auto m : c.sends) thread.ops.push_back({OpKind::send, m, c.number});
    if (!c.completions.empty()) {
        const auto list = static_cast<std::uint32_t>(thread.wait_ends.size());
        thread.ops.push_back({OpKind::recv_wait, list, c.number});
        for (const auto m : c.completions) thread.wait_messages.push_back(m);
        thread.wait_ends.push_back(static_cast<std::uint32_t>(thread.wait_messages.size()));
    }
    if (c.collective) {
        const auto id = static_cast<std::uint32_t>(*c.collective);
        thread.ops.push_back({OpKind::collective, id, c.number});
    }
}

/// The in-memory builder meets the threads in order and each thread's collectives in order, and
/// numbers a collective when its first member is met: by its lowest task's join.
std::vector<CollectiveIndex> ProgramRecorder::collective_order() const {
    std::vector<CollectiveIndex> by_order(collectives_.size());
    std::iota(by_order.begin(), by_order.end(), CollectiveIndex{0});
    std::sort(by_order.begin(), by_order.end(), [&](CollectiveIndex a, CollectiveIndex b) {
        return collectives_[a].lowest_member < collectives_[b].lowest_member;
    });
    std::vector<CollectiveIndex> number(collectives_.size());
    for (CollectiveIndex k = 0; k < by_order.size(); ++k) number[by_order[k]] = k;
    return number;
}

ReplayProgram ProgramRecorder::finish(CollectiveSync sync, WarningLog warnings) {
    ReplayProgram p;
    p.tasks = static_cast<std::uint32_t>(threads_.size());
    p.warnings = std::move(warnings);
    // As build_replay_program: per task its first thread, then its other threads when it has
    // parallel regions; their forks and joins first among the collectives, task by task.
    std::vector<ThreadOps*> ops_of; // per replay thread
    std::vector<ReplayThread> first_thread(p.tasks);
    std::vector<CollectiveIndex> barrier_base(p.tasks);
    CollectiveIndex barriers = 0;
    for (std::uint32_t task = 0; task < p.tasks; ++task) {
        first_thread[task] = p.thread_count();
        p.task_first_thread.push_back(p.thread_count());
        const auto add = [&](ThreadIndex trace_thread, ThreadOps& ops) {
            p.thread_task.push_back(task);
            p.trace_thread.push_back(trace_thread);
            ops_of.push_back(&ops);
        };
        add(trace_threads_[task], threads_[task]);
        for (std::size_t w = 0; w < workers_[task].size(); ++w)
            add(trace_threads_[task] + 1 + static_cast<ThreadIndex>(w), workers_[task][w]);
        barrier_base[task] = barriers;
        barriers += 2 * regions_[task];
    }
    p.task_first_thread.push_back(p.thread_count());
    const auto number = collective_order();
    p.collectives.resize(barriers + collectives_.size());
    for (std::uint32_t task = 0; task < p.tasks; ++task) {
        for (CollectiveIndex k = 0; k < 2 * regions_[task]; ++k) {
            auto& c = p.collectives[barrier_base[task] + k] = Collective{.thread_barrier = true};
            c.member_count = static_cast<std::uint32_t>(1 + workers_[task].size());
            c.flow = collective_flow(c, sync);
        }
    }
    for (std::size_t id = 0; id < collectives_.size(); ++id) {
        auto& c = p.collectives[barriers + number[id]] = collectives_[id].shape;
        c.flow = collective_flow(c, sync);
    }
    std::vector<RecordedCollective>().swap(collectives_);
    std::uint32_t members = 0;
    for (auto& c : p.collectives) {
        c.first_member = members;
        members += c.member_count;
    }
    p.collective_members.resize(members);

    std::size_t ops = 0, bursts = 0, lists = 0, waited = 0;
    for (const auto* t : ops_of) {
        ops += t->ops.size();
        bursts += t->bursts.size();
        lists += t->wait_ends.size();
        waited += t->wait_messages.size();
    }
    constexpr auto uninitialised = boost::container::default_init;
    p.op_kind.resize(ops, uninitialised);
    p.op_ref.resize(ops, uninitialised);
    p.op_call.resize(ops, uninitialised);
    p.burst_durations.resize(bursts, uninitialised);
    p.wait_first.resize(lists + 1, uninitialised);
    p.wait_first[0] = 0;
    p.wait_messages.resize(waited, uninitialised);

    FreedMemory freed;
    std::vector<std::uint32_t> placed(p.collectives.size(), 0); // members so far
    OpIndex op = 0;
    std::uint32_t burst = 0, list = 0, message = 0;
    for (ReplayThread th = 0; th < p.thread_count(); ++th) {
        auto& t = *ops_of[th];
        const std::uint32_t task = p.thread_task[th];
        p.thread_first_op.push_back(op);
        const auto op_count = static_cast<OpIndex>(t.ops.size());
        const auto burst_count = static_cast<std::uint32_t>(t.bursts.size());
        const auto list_count = static_cast<std::uint32_t>(t.wait_ends.size());
        const auto message_count = static_cast<std::uint32_t>(t.wait_messages.size());
        t.ops.drain(
            [&](std::size_t i, const Op& o) {
                const OpIndex at = op + static_cast<OpIndex>(i);
                std::uint32_t ref = o.ref;
                switch (o.kind) {
                case OpKind::burst:
                    ref += burst;
                    break;
                case OpKind::recv_wait:
                    ref += list;
                    break;
                case OpKind::collective: {
                    ref = o.call == k_none ? barrier_base[task] + ref : barriers + number[ref];
                    const auto& c = p.collectives[ref];
                    p.collective_members[c.first_member + placed[ref]++] = at;
                    break;
                }
                case OpKind::send:
                case OpKind::recv_post:
                    break;
                }
                p.op_kind[at] = o.kind;
                p.op_ref[at] = ref;
                p.op_call[at] = o.call;
            },
            freed);
        t.bursts.drain([&](std::size_t i, Time d) { p.burst_durations[burst + i] = d; }, freed);
        t.wait_ends.drain(
            [&](std::size_t i, std::uint32_t end) { p.wait_first[list + i + 1] = message + end; },
            freed);
        t.wait_messages.drain(
            [&](std::size_t i, MessageIndex m) { p.wait_messages[message + i] = m; }, freed);
        op += op_count;
        burst += burst_count;
        list += list_count;
        message += message_count;
    }
    p.thread_first_op.push_back(op);
    p.resize_messages(messages_.size());
    messages_.drain(
        [&](std::size_t i, const Message& m) {
            p.messages[i] = m;
            p.messages[i].sender = first_thread[m.sender]; // recorded by task
            p.messages[i].receiver = first_thread[m.receiver];
        },
        freed);
    return p;
}

} // namespace popsim::replay

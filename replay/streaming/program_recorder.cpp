// SPDX-License-Identifier: BSD-3-Clause
#include "replay/streaming/program_recorder.hpp"

#include "replay/allocator_tuning.hpp"
#include "replay/streaming/live_replays.hpp"
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

/// A burst of computation: none when it is not positive (prv2dim's pieces are written even empty,
/// by piece()).
template <class Writer> void write_burst(Writer& to, Time duration) {
    if (duration > 0) to.piece(duration);
}

/// Only a task of several threads has parallel regions in its replay, and such a trace is not
/// replayed live (stream_program).
[[noreturn]] void refuse_live_regions() {
    throw StreamingUnsupported("OpenMP regions of several threads replayed live");
}

} // namespace

/// Writes a thread's operations into its logs.
class ProgramRecorder::LogWriter {
  public:
    explicit LogWriter(ThreadOps& thread) : t_(thread) {}
    void piece(Time duration) { // even empty
        t_.ops.push_back({OpKind::burst, static_cast<std::uint32_t>(t_.bursts.size()), k_none});
        t_.bursts.push_back(duration);
    }
    /// Fork (`join` false) or join of the task's region `region`.
    void barrier(std::uint32_t region, bool join) {
        t_.ops.push_back({OpKind::collective, 2 * region + (join ? 1 : 0), k_none});
    }
    void post(MessageIndex m, std::uint32_t call) {
        t_.ops.push_back({OpKind::recv_post, m, call});
    }
    void send(MessageIndex m, std::uint32_t call) { t_.ops.push_back({OpKind::send, m, call}); }
    void wait(std::span<const MessageIndex> messages, std::uint32_t call) {
        t_.ops.push_back(
            {OpKind::recv_wait, static_cast<std::uint32_t>(t_.wait_ends.size()), call});
        for (const auto m : messages) t_.wait_messages.push_back(m);
        t_.wait_ends.push_back(static_cast<std::uint32_t>(t_.wait_messages.size()));
    }
    void join(std::uint64_t collective, std::uint32_t call) {
        t_.ops.push_back({OpKind::collective, static_cast<std::uint32_t>(collective), call});
    }

  private:
    ThreadOps& t_;
};

/// Writes a thread's operations into the live replays' program.
class ProgramRecorder::LiveWriter {
  public:
    LiveWriter(engine::WriteBatch& program, ReplayThread thread) : p_(program), t_(thread) {}
    void piece(Time duration) { p_.burst(t_, duration); }
    void barrier(std::uint32_t /*region*/, bool /*join*/) { refuse_live_regions(); }
    void post(MessageIndex m, std::uint32_t call) { p_.post(t_, m, call); }
    void send(MessageIndex m, std::uint32_t /*call*/) { p_.send(t_, m); }
    void wait(std::span<const MessageIndex> messages, std::uint32_t call) {
        p_.wait(t_, messages, call);
    }
    void join(std::uint64_t collective, std::uint32_t /*call*/) {
        p_.join(t_, static_cast<CollectiveIndex>(collective));
    }

  private:
    engine::WriteBatch& p_;
    ReplayThread t_;
};

template <class Writer>
void ProgramRecorder::write_region_steps(Writer& to, std::span<const RegionStep> steps) {
    for (const auto& step : steps) {
        if (step.kind == RegionStep::Kind::burst) {
            write_burst(to, step.value);
        } else {
            to.barrier(static_cast<std::uint32_t>(step.value), step.kind == RegionStep::Kind::join);
        }
    }
}

template <class Writer> void ProgramRecorder::write_call(Writer& to, const Call& c) {
    write_region_steps(to, c.regions);
    for (const Time d : c.pieces) to.piece(d);
    write_burst(to, c.burst_before);
    for (const auto m : c.posts) to.post(m, c.number);
    for (const auto m : c.sends) to.send(m, c.number);
    if (!c.completions.empty()) to.wait(c.completions, c.number);
    if (c.collective) to.join(*c.collective, c.number);
}

template <class Write> void ProgramRecorder::write_to(ReplayThread t, Write&& write) {
    if (live_) {
        LiveWriter to(live_->program(), t);
        write(to);
        live_->advance(); // once enough is written
    } else {
        LogWriter to(threads_[t]);
        write(to);
    }
}

ProgramRecorder::ProgramRecorder(std::vector<ThreadIndex> trace_threads, LiveReplays* live)
    : trace_threads_(std::move(trace_threads)), threads_(trace_threads_.size()),
      workers_(trace_threads_.size()), regions_(trace_threads_.size(), 0), live_(live) {}

void ProgramRecorder::message(const Message& m) {
    if (live_) { // by task: a task's thread is the task
        if (m.record >= engine::WrittenProgram::first_root_transfer())
            throw StreamingUnsupported("more than 2^31 messages replayed live");
        return live_->program().message(m);
    }
    // Messages are found by record number: a record handed over out of order would shift them.
    if (m.record != messages_.size())
        throw StreamingUnsupported("communication records are not handed over in file order");
    messages_.push_back(m);
}

void ProgramRecorder::sent_immediately(MessageIndex m) {
    if (live_) return live_->program().sent_immediately(m);
    messages_[m].immediate_send = true;
}

void ProgramRecorder::collective(std::uint64_t id, const Collective& shape,
                                 std::pair<std::uint32_t, std::uint64_t> lowest_member,
                                 std::span<const std::uint32_t> member_tasks) {
    if (live_)
        return live_->program().collective(static_cast<CollectiveIndex>(id), shape, member_tasks);
    if (id >= collectives_.size()) collectives_.resize(id + 1); // they complete in any order
    collectives_[id] = {shape, lowest_member};
}

void ProgramRecorder::pieces(ReplayThread t, std::span<const Time> durations) {
    write_to(t, [&](auto& to) {
        for (const Time d : durations) to.piece(d);
    });
}

void ProgramRecorder::burst(ReplayThread t, Time duration) {
    write_to(t, [&](auto& to) { write_burst(to, duration); });
}

void ProgramRecorder::region_steps(ReplayThread t, std::span<const RegionStep> steps) {
    write_to(t, [&](auto& to) { write_region_steps(to, steps); });
}

void ProgramRecorder::region_workers(ReplayThread t, std::uint32_t number,
                                     std::span<const Time> work) {
    if (live_) refuse_live_regions();
    workers_[t].resize(work.size());
    regions_[t] = std::max(regions_[t], number + 1);
    for (std::size_t w = 0; w < work.size(); ++w) {
        const Time time = static_cast<Time>(number);
        LogWriter to(workers_[t][w]);
        write_region_steps(to, std::array{RegionStep{RegionStep::Kind::fork, time},
                                          RegionStep{RegionStep::Kind::burst, work[w]},
                                          RegionStep{RegionStep::Kind::join, time}});
    }
}

void ProgramRecorder::call(ReplayThread t, const Call& c) {
    write_to(t, [&](auto& to) { write_call(to, c); });
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

#include "replay/engine/engine.hpp"

#include "replay/engine/event_queue.hpp"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>

namespace popsim::replay {

namespace {

constexpr Time k_unset = -1;

const char* kind_name(OpKind k) {
    switch (k) {
    case OpKind::burst: return "a CPU burst";
    case OpKind::send: return "a send";
    case OpKind::recv_post: return "posting a receive";
    case OpKind::recv_wait: return "waiting for a receive";
    case OpKind::collective: return "a collective";
    }
    return "?";
}

class Engine {
public:
    Engine(const ReplayProgram& p, network::NetworkModel& model, bool timeline)
        : p_(p), model_(model), timeline_(timeline), pc_(p.tasks), begun_op_(p.tasks, k_none), op_begin_(p.tasks, 0),
          blocked_(p.tasks, false), arrived_in_collective_(p.tasks, false), startup_paid_(p.tasks, false),
          message_(p.messages.size()), transfer_start_(p.messages.size(), k_unset), arrival_(p.messages.size(), k_unset),
          coll_arrived_(p.collectives.size(), 0), coll_latest_(p.collectives.size(), 0) {
        result_.tasks.resize(p.tasks);
        if (timeline_) {
            result_.op_begin.assign(p.op_count(), k_unset);
            result_.op_end.assign(p.op_count(), k_unset);
        }
        for (std::uint32_t t = 0; t < p.tasks; ++t) pc_[t] = p.task_first_op[t];
    }

    ReplayResult run() {
        for (std::uint32_t t = 0; t < p_.tasks; ++t) queue_.push(0, t);
        while (!queue_.empty()) {
            const auto e = queue_.pop();
            assert(e.time >= now_);
            now_ = e.time;
            ++result_.events;
            step(e.task);
        }
        check_all_finished();
        for (const auto& t : result_.tasks) result_.runtime = std::max(result_.runtime, t.end);
        return std::move(result_);
    }

private:
    void schedule(std::uint32_t task, Time at) {
        blocked_[task] = false;
        queue_.push(at, task);
    }

    /// A message for `task` has its arrival time: re-check the receive it is blocked in, if any.
    void wake_receiver(std::uint32_t task, Time at) {
        if (blocked_[task] && p_.op_kind[pc_[task]] == OpKind::recv_wait) schedule(task, at);
    }

    /// The task leaves `op` at `at`: account its time and move on.
    void finish_op(std::uint32_t task, OpIndex op, Time at) {
        auto& times = result_.tasks[task];
        startup_paid_[task] = false;
        if (p_.op_kind[op] != OpKind::burst) {
            const Time blocked = at - op_begin_[task];
            const Time transfer = std::clamp<Time>(startup_cost(op) + transfer_part(op, op_begin_[task], at), 0, blocked);
            times.transfer += transfer;
            times.waiting += blocked - transfer;
        }
        times.end = at;
        if (timeline_) {
            result_.op_begin[op] = op_begin_[task];
            result_.op_end[op] = at;
        }
        pc_[task] = op + 1;
    }

    /// Runs `task` from its current operation until it blocks or has to wait for a later time.
    void step(std::uint32_t task) {
        while (pc_[task] < p_.task_end_op(task)) {
            const OpIndex op = pc_[task];
            if (begun_op_[task] != op) { // first time the task reaches it (it may come back after blocking)
                begun_op_[task] = op;
                op_begin_[task] = now_;
            }
            if (!execute(task, op)) return;
        }
    }

    Time message_startup(MessageIndex m) const {
        const auto& msg = p_.messages[m];
        return model_.startup(msg.sender_task, msg.receiver_task);
    }

    /// The startup CPU time operation `op` pays before it acts (NetworkModel::startup): a send
    /// before its data leaves, a blocking receive before posting, any other receive in its wait,
    /// once per message (prv2dim writes one wait record per message).
    Time startup_cost(OpIndex op) const {
        const std::uint32_t ref = p_.op_ref[op];
        switch (p_.op_kind[op]) {
        case OpKind::send: return message_startup(ref);
        case OpKind::recv_post: return p_.received_by_blocking_receive(ref) ? message_startup(ref) : 0;
        case OpKind::recv_wait: {
            Time total = 0;
            for (auto i = p_.wait_first[ref]; i < p_.wait_first[ref + 1]; ++i)
                if (!p_.received_by_blocking_receive(p_.wait_messages[i])) total += message_startup(p_.wait_messages[i]);
            return total;
        }
        default: return 0;
        }
    }

    /// True once the task has paid the startup of its current operation; otherwise it resumes the
    /// operation when the startup is over.
    bool startup_done(std::uint32_t task, OpIndex op) {
        if (startup_paid_[task]) return true;
        const Time cost = startup_cost(op);
        if (cost == 0) return true;
        startup_paid_[task] = true;
        schedule(task, now_ + cost);
        return false;
    }

    /// Returns true when the task moves on at `now_`, false when it blocks or was rescheduled.
    bool execute(std::uint32_t task, OpIndex op) {
        if (!startup_done(task, op)) return false;
        switch (p_.op_kind[op]) {
        case OpKind::burst: return run_burst(task, op);
        case OpKind::send: return send(task, op);
        case OpKind::recv_post: return post(task, op);
        case OpKind::recv_wait: return wait(task, op);
        case OpKind::collective: return join(task, op);
        }
        return false;
    }

    bool run_burst(std::uint32_t task, OpIndex op) {
        const Time done = now_ + model_.burst(p_.op_duration[op]);
        result_.tasks[task].useful += done - now_;
        finish_op(task, op, done);
        schedule(task, done);
        return false;
    }

    void start_transfer(MessageIndex m) {
        const auto& msg = p_.messages[m];
        transfer_start_[m] = now_;
        arrival_[m] = model_.transfer({m, msg.sender_task, msg.receiver_task, msg.bytes}, now_);
        wake_receiver(msg.receiver_task, arrival_[m]);
    }

    /// A blocking rendezvous send waits until the receive is posted, then leaves as its data starts
    /// moving (Dimemas: the transfer goes on without the sender).
    bool send(std::uint32_t task, OpIndex op) {
        const MessageIndex m = p_.op_ref[op];
        const auto& msg = p_.messages[m];
        message_[m].issued = true;
        if (!msg.rendezvous || message_[m].posted) {
            start_transfer(m);
        } else if (!msg.immediate_send) {
            message_[m].sender_blocked = true;
            blocked_[task] = true;
            return false;
        }
        finish_op(task, op, now_);
        return true;
    }

    bool post(std::uint32_t task, OpIndex op) {
        const MessageIndex m = p_.op_ref[op];
        message_[m].posted = true;
        const auto& msg = p_.messages[m];
        if (msg.rendezvous && message_[m].issued && arrival_[m] == k_unset) { // the sender is ready and waited for us
            start_transfer(m);
            if (message_[m].sender_blocked) {
                message_[m].sender_blocked = false;
                finish_op(msg.sender_task, msg.send_op, now_);
                schedule(msg.sender_task, now_);
            }
        }
        finish_op(task, op, now_);
        return true;
    }

    bool wait(std::uint32_t task, OpIndex op) {
        const std::uint32_t list = p_.op_ref[op];
        Time latest = now_;
        for (auto i = p_.wait_first[list]; i < p_.wait_first[list + 1]; ++i) {
            const Time a = arrival_[p_.wait_messages[i]];
            if (a == k_unset) {
                blocked_[task] = true;
                return false;
            }
            latest = std::max(latest, a);
        }
        if (latest > now_) {
            schedule(task, latest);
            return false;
        }
        finish_op(task, op, now_);
        return true;
    }

    bool join(std::uint32_t task, OpIndex op) {
        const CollectiveIndex c = p_.op_ref[op];
        if (!arrived_in_collective_[task]) {
            arrived_in_collective_[task] = true;
            ++coll_arrived_[c];
            coll_latest_[c] = std::max(coll_latest_[c], now_);
        }
        const auto& coll = p_.collectives[c];
        if (coll_arrived_[c] < coll.member_count) {
            blocked_[task] = true;
            return false;
        }
        const Time done = model_.collective(coll, coll_latest_[c]);
        for (auto i = coll.first_member; i < coll.first_member + coll.member_count; ++i) {
            const OpIndex member = p_.collective_members[i];
            const std::uint32_t member_task = p_.task_of(member);
            arrived_in_collective_[member_task] = false;
            finish_op(member_task, member, done);
            schedule(member_task, done);
        }
        return false;
    }

    void check_all_finished() const {
        std::vector<OpIndex> position(pc_.begin(), pc_.end());
        bool stuck = false;
        for (std::uint32_t t = 0; t < p_.tasks; ++t) stuck = stuck || pc_[t] < p_.task_end_op(t);
        if (stuck) throw ReplayDeadlock(describe_blocked_tasks(p_, position, op_begin_));
    }

    /// The part of an operation's blocked time spent after its data (or collective) started moving.
    Time transfer_part(OpIndex op, Time begin, Time end) const {
        auto moving_since = [&](MessageIndex m) { return std::max(begin, transfer_start_[m]); };
        switch (p_.op_kind[op]) {
        case OpKind::send: return end - moving_since(p_.op_ref[op]);
        case OpKind::recv_wait: {
            Time part = 0;
            const std::uint32_t list = p_.op_ref[op];
            for (auto i = p_.wait_first[list]; i < p_.wait_first[list + 1]; ++i)
                part = std::max(part, std::min(end, arrival_[p_.wait_messages[i]]) - moving_since(p_.wait_messages[i]));
            return std::max<Time>(part, 0);
        }
        case OpKind::collective: return end - std::max(begin, coll_latest_[p_.op_ref[op]]);
        default: return 0;
        }
    }

    const ReplayProgram& p_;
    network::NetworkModel& model_;
    bool timeline_;
    engine::EventQueue queue_;
    Time now_ = 0;
    std::vector<OpIndex> pc_;
    std::vector<OpIndex> begun_op_; // the operation whose begin op_begin_ holds
    std::vector<Time> op_begin_;    // when each task reached its current operation
    std::vector<bool> blocked_, arrived_in_collective_, startup_paid_;
    struct MessageState {
        bool issued : 1 = false;         // the sender reached the send
        bool posted : 1 = false;         // the receiver posted the receive
        bool sender_blocked : 1 = false; // a rendezvous sender waits for the post
    };
    std::vector<MessageState> message_;
    std::vector<Time> transfer_start_, arrival_;
    std::vector<std::uint32_t> coll_arrived_;
    std::vector<Time> coll_latest_;
    ReplayResult result_;
};

} // namespace

std::string describe_blocked_tasks(const ReplayProgram& p, const std::vector<OpIndex>& position, const std::vector<Time>& reached_at) {
    std::string out = "the replay deadlocks: the trace's dependencies form a cycle. Blocked:";
    std::size_t listed = 0;
    for (std::uint32_t t = 0; t < p.tasks && listed < 16; ++t) {
        const OpIndex op = position[t];
        if (op >= p.task_end_op(t)) continue;
        fmt::format_to(std::back_inserter(out), "\n  task {} in {} (its MPI call #{}), reached at simulated {} ns", t + 1, kind_name(p.op_kind[op]),
                       p.op_call[op] == k_none ? 0 : p.op_call[op] + 1, reached_at[t]);
        if (p.op_kind[op] == OpKind::send || p.op_kind[op] == OpKind::recv_post) {
            const auto& m = p.messages[p.op_ref[op]];
            fmt::format_to(std::back_inserter(out), ", message of communication record {} (task {} -> task {}, {} bytes)", m.record + 1,
                           m.sender_task + 1, m.receiver_task + 1, m.bytes);
        }
        ++listed;
    }
    return out;
}

ReplayResult replay_events(const ReplayProgram& program, network::NetworkModel& model, const EngineOptions& options) {
    return Engine(program, model, options.timeline).run();
}

} // namespace popsim::replay

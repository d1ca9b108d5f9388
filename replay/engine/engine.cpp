// SPDX-License-Identifier: BSD-3-Clause
#include "replay/engine/engine.hpp"

#include "replay/cache_line.hpp"
#include "replay/engine/collective_states.hpp"
#include "replay/engine/cpu_scheduler.hpp"
#include "replay/engine/event_queue.hpp"
#include "replay/engine/message_states.hpp"
#include "replay/engine/whole_program.hpp"
#include "replay/engine/written_program.hpp"
#include "replay/network/dimemas.hpp"
#include "replay/network/ideal.hpp"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <map>

namespace popsim::replay {

namespace {

constexpr Time k_unset = -1;

/// The engine's clock ticks per ns where times can have fractions of a ns: a transmission at a
/// bandwidth, a burst at CPU ratio 2 or a sped-up region then keeps them, as Dimemas' doubles do,
/// and the times are rounded to the ns at the end as Dimemas rounds its final time. On the
/// ideal network with bursts as traced every time is a whole ns, and the clock counts ns.
/// (2^62 ticks: 208 days of simulated time.)
constexpr Time k_fine_ticks_per_ns = 256;

const char* kind_name(OpKind k) {
    switch (k) {
    case OpKind::burst:
        return "a CPU burst";
    case OpKind::send:
        return "a send";
    case OpKind::recv_post:
        return "posting a receive";
    case OpKind::recv_wait:
        return "waiting for a receive";
    case OpKind::collective:
        return "a collective";
    }
    return "?";
}

/// How a thread resumes at a scheduled time: after its own piece of CPU work (a timer), or woken
/// by another thread, when it first needs a CPU for an instant (CpuScheduler) at the tail or the
/// head of its node's ready queue.
enum class Resume : std::uint8_t { timer, woken, woken_first };

/// Where a thread stands with its node's CPUs when they are shared (CpuScheduler).
enum class CpuState : std::uint8_t { none, queued, granted, working };

template <class Source>
std::vector<std::uint32_t> thread_nodes(const Source& program, const network::NetworkModel& m) {
    std::vector<std::uint32_t> nodes(program.thread_count());
    for (ReplayThread t = 0; t < program.thread_count(); ++t)
        nodes[t] = m.node_of(program.task_of(t));
    return nodes;
}

/// The task that resumes last when each collective ends (k_none: none), as Dimemas orders them:
/// a rooted collective's root; for one without a root, the root of the MPI_Reduce just before it
/// on its communicator. Dimemas keeps a communicator's root from the moment a rooted collective's
/// root arrives until a collective's end clears it, which a root-synchronised Reduce's end does
/// not (communic.c, GLOBAL_operation and close_global_communication). Told the collectives in
/// the program's order on each communicator.
class ResumingLast {
  public:
    /// The task that resumes last from `coll`, the next collective on its communicator.
    std::uint32_t known(const Collective& coll) {
        if (coll.thread_barrier) return k_none;
        if (coll.flow == CollectiveFlow::to_root) {
            reduce_root_[coll.communicator] = coll.root_task;
            return coll.root_task;
        }
        const auto kept = reduce_root_.find(coll.communicator);
        if (kept == reduce_root_.end()) return coll.root_task;
        const std::uint32_t last = coll.root_task == k_none ? kept->second : coll.root_task;
        reduce_root_.erase(kept);
        return last;
    }

  private:
    std::map<std::uint64_t, std::uint32_t> reduce_root_; // by communicator
};

/// `Model`: a concrete final model, whose calls are inlined, or NetworkModel for any other.
/// `Source`: the program as the engine reads it (engine/whole_program.hpp).
template <class Model, class Source>
class alignas(k_cache_line) Engine final : network::TransferSink {
  public:
    Engine(const Source& program, Model& model, const EngineOptions& options)
        : src_(program), model_(model), timeline_(options.timeline),
          on_progress_(options.on_progress), exact_bursts_(options.burst_durations),
          cpu_speed_(model.cpu_speed()),
          ticks_per_ns_(
              model.zero_cost() && !exact_bursts_ && cpu_speed_ == 1 ? 1 : k_fine_ticks_per_ns),
          burst_carry_(program.thread_count(), 0.0), asynchronous_(model.asynchronous()),
          cpus_(thread_nodes(program, model), model.cpus_per_node()),
          zero_cost_(model.zero_cost() && !cpus_.limited()), pc_(program.thread_count()),
          begun_op_(program.thread_count(), k_none), op_begin_(program.thread_count(), 0),
          blocked_(program.thread_count(), false),
          arrived_in_collective_(program.thread_count(), false),
          startup_paid_(program.thread_count(), false),
          woken_by_message_(program.thread_count(), false),
          startup_(program.thread_count(), k_unset), waited_(program.thread_count(), 0) {
        model.set_ticks_per_ns(ticks_per_ns_);
        model.prepare(program.task_count());
        if (cpus_.limited()) {
            cpu_.assign(program.thread_count(), CpuState::none);
            resume_.assign(program.thread_count(), Resume::timer);
        }
        if (resume_in_arrival_order()) join_order_.assign(program.thread_count(), 0);
        result_.threads.resize(program.thread_count());
        if constexpr (Source::whole) {
            if (timeline_) {
                result_.op_begin.assign(program.op_count(), k_unset);
                result_.op_end.assign(program.op_count(), k_unset);
            }
        } else if (timeline_ || cpus_.limited()) {
            throw std::logic_error(
                "a replay of a program being written keeps no timeline and shares no CPUs");
        }
        for (ReplayThread t = 0; t < program.thread_count(); ++t) {
            pc_[t] = program.first_op(t);
            queue_.push(0, t);
        }
    }

    ReplayResult run() {
        advance();
        return finish();
    }

    /// Processes events while the program has what they need: all of them for the whole program;
    /// for one being written, until the next is a step of a thread not written that far
    /// (WrittenProgram::ready). True when no event is left.
    bool advance() {
        know_new_collectives();
        while (!queue_.empty()) {
            if constexpr (!Source::whole) {
                const auto& next = queue_.top();
                if (next.thread < k_model_event && !src_.ready(next.thread, pc_[next.thread])) {
                    collective_.trim();
                    return false;
                }
            }
            const auto e = queue_.pop();
            assert(e.time >= now_);
            now_ = e.time;
            ++result_.events;
            if (e.thread >= k_model_event)
                model_.on_event(e.thread - k_model_event, now_, *this);
            else
                step(e.thread);
            if (cpus_.limited())
                cpus_.dispatch([this](ReplayThread t) {
                    cpu_[t] = CpuState::granted;
                    step(t);
                });
        }
        collective_.trim();
        return true;
    }

    /// After advance() returned true with the whole program written: the result.
    ReplayResult finish() {
        report_progress();
        check_all_finished();
        if (ticks_per_ns_ != 1) ticks_to_ns();
        for (const auto& t : result_.threads) result_.runtime = std::max(result_.runtime, t.end);
        return std::move(result_);
    }

    /// What the engine reads of the program: where each thread is, and the lowest message whose
    /// state it may still ask for (MessageStates).
    OpIndex position(ReplayThread t) const { return pc_[t]; }
    MessageIndex first_message_under_way() const { return message_.first(); }
    CollectiveIndex first_collective_under_way() const { return collective_.first(); }

  private:
    static constexpr std::uint64_t k_progress_ops = 1 << 16; // operations between reports

    /// A time of the engine's clock in ns, rounded half up as Dimemas' round() of a positive time.
    Time to_ns(Time ticks) const {
        return ticks == k_unset ? k_unset : (ticks + ticks_per_ns_ / 2) / ticks_per_ns_;
    }

    void ticks_to_ns() {
        for (auto& t : result_.threads)
            for (Time* time :
                 {&t.end, &t.useful, &t.fork_join, &t.waiting, &t.transfer, &t.cpu_wait})
                *time = to_ns(*time);
        for (auto* times : {&result_.op_begin, &result_.op_end})
            for (Time& time : *times) time = to_ns(time);
    }

    void report_progress() {
        if (on_progress_ && unreported_ops_ > 0) on_progress_(unreported_ops_);
        unreported_ops_ = 0;
    }

    void schedule(ReplayThread thread, Time at, Resume how = Resume::timer) {
        blocked_[thread] = false;
        if (cpus_.limited()) resume_[thread] = how;
        queue_.push(at, thread);
    }

    /// Message `m` for `thread` has its arrival time: wake the thread if it is blocked waiting for
    /// this very message (a wait takes its messages one at a time, below). Dimemas wakes only the
    /// thread waiting for the message that arrived (message_received); waking it for another
    /// would, with shared CPUs, make it take a CPU for an instant Dimemas does not.
    void wake_receiver(ReplayThread thread, MessageIndex m, Time at) {
        if (blocked_[thread] && src_.kind(thread, pc_[thread]) == OpKind::recv_wait &&
            awaited(thread, pc_[thread]) == m)
            schedule(thread, at, Resume::woken);
    }

    /// With shared CPUs, whether the thread may go on at its event: it gives back the CPU its
    /// piece of work held; a woken thread first needs a CPU for an instant (Dimemas' zero-length
    /// work before a blocked thread resumes).
    bool cpu_turn(ReplayThread thread) {
        if (cpu_[thread] == CpuState::working) {
            cpus_.release(thread);
            cpu_[thread] = CpuState::none;
        }
        if (resume_[thread] == Resume::timer) return true;
        if (cpu_[thread] == CpuState::none) {
            cpus_.request(thread, resume_[thread] == Resume::woken_first);
            cpu_[thread] = CpuState::queued;
        } else { // granted: the instant passes
            resume_[thread] = Resume::timer;
            cpu_[thread] = CpuState::working;
            queue_.push(now_, thread);
        }
        return false;
    }

    /// With shared CPUs, whether the thread holds a CPU for the piece of work it is at; if not, it
    /// joins its node's ready queue and resumes here when granted one.
    bool take_cpu(ReplayThread thread, bool at_head) {
        if (!cpus_.limited()) return true;
        if (cpu_[thread] == CpuState::granted) {
            cpu_[thread] = CpuState::working;
            return true;
        }
        cpus_.request(thread, at_head);
        cpu_[thread] = CpuState::queued;
        return false;
    }

    /// With shared CPUs, the thread goes to the head of its node's ready queue at once, for an
    /// instant of CPU before it goes on (Dimemas: loose_cpu FALSE, then SCHEDULER_thread_to_ready's
    /// zero-length work): the events of this instant already queued run first. Dimemas does so
    /// after every MPI call that returns at once (a send, an Irecv, a wait or receive whose data
    /// is there) and for a rendezvous sender its receiver releases. Returns false: the thread
    /// resumes when granted (cpu_turn).
    bool head_turn(ReplayThread thread) {
        blocked_[thread] = false;
        resume_[thread] = Resume::woken_first;
        cpus_.request(thread, true);
        cpu_[thread] = CpuState::queued;
        return false;
    }

    /// The thread leaves `op` at `at`: account its time and move on.
    void finish_op(ReplayThread thread, OpIndex op, Time at) {
        auto& times = result_.threads[thread];
        startup_paid_[thread] = false;
        waited_[thread] = 0;
        const Time startup = std::exchange(startup_[thread], k_unset);
        if (is_thread_barrier(thread, op)) {
            times.fork_join += at - op_begin_[thread];
        } else if (src_.kind(thread, op) != OpKind::burst) {
            const Time blocked = at - op_begin_[thread];
            const Time transfer =
                zero_cost_
                    ? 0
                    : std::clamp<Time>((startup == k_unset ? startup_cost(thread, op) : startup) +
                                           transfer_part(thread, op, op_begin_[thread], at),
                                       0, blocked);
            times.transfer += transfer;
            times.waiting += blocked - transfer;
        }
        times.end = at;
        if (timeline_) {
            result_.op_begin[op] = op_begin_[thread];
            result_.op_end[op] = at;
        }
        end_messages(thread, op);
        pc_[thread] = op + 1;
        if (++unreported_ops_ == k_progress_ops) report_progress();
    }

    /// A send, post or wait `op` is over: for its messages, one of their three operations.
    void end_messages(ReplayThread thread, OpIndex op) {
        const std::uint32_t ref = src_.ref(thread, op);
        const OpKind kind = src_.kind(thread, op);
        if (kind == OpKind::send || kind == OpKind::recv_post) {
            message_.ended(ref);
        } else if (kind == OpKind::recv_wait) {
            for (const MessageIndex m : src_.wait_list(thread, ref)) message_.ended(m);
        }
    }

    /// Runs `thread` from its current operation until it blocks or has to wait for a later time.
    void step(ReplayThread thread) {
        if (cpus_.limited() && !cpu_turn(thread)) return;
        while (pc_[thread] < src_.end_op(thread)) {
            const OpIndex op = pc_[thread];
            // First time the thread reaches `op` (it may come back to it after blocking).
            if (begun_op_[thread] != op) {
                begun_op_[thread] = op;
                op_begin_[thread] = now_;
            }
            if (!execute(thread, op)) return;
        }
    }

    Time message_startup(MessageIndex m) const {
        const auto& msg = src_.message(m);
        return model_.startup(src_.task_of(msg.sender), src_.task_of(msg.receiver));
    }

    /// The startup CPU time operation `op` pays before it acts (NetworkModel::startup): a send
    /// before its data leaves, a blocking receive before posting, any other receive in its wait,
    /// once per message (prv2dim writes one wait record per message).
    Time startup_cost(ReplayThread thread, OpIndex op) const {
        const std::uint32_t ref = src_.ref(thread, op);
        switch (src_.kind(thread, op)) {
        case OpKind::send:
            return message_startup(ref);
        case OpKind::recv_post:
            return blocking_receive(thread, op, ref) ? message_startup(ref) : 0;
        case OpKind::recv_wait: {
            Time total = 0;
            for (const MessageIndex m : src_.wait_list(thread, ref))
                if (!blocking_receive(thread, op, m))
                    total = add_times(total, message_startup(m), ticks_per_ns_);
            return total;
        }
        case OpKind::collective:
            return src_.collective(ref).flow == CollectiveFlow::to_root
                       ? model_.rooted_startup(src_.collective(ref))
                       : 0;
        default:
            return 0;
        }
    }

    /// True when `op`, the receive-post or the receive-wait of message `m`, is half of a blocking
    /// receive: the post followed at once by the wait completing `m`, in the same call (a Dimemas
    /// Recv rather than Irecv + Wait).
    bool blocking_receive(ReplayThread thread, OpIndex op, MessageIndex m) const {
        const bool is_post = src_.kind(thread, op) == OpKind::recv_post;
        if (!is_post && op == src_.first_op(thread)) return false;
        const OpIndex post = is_post ? op : op - 1, wait = post + 1;
        if (wait >= src_.end_op(thread) || src_.kind(thread, post) != OpKind::recv_post ||
            src_.ref(thread, post) != m || src_.kind(thread, wait) != OpKind::recv_wait ||
            src_.call(thread, post) != src_.call(thread, wait))
            return false;
        const auto list = src_.wait_list(thread, src_.ref(thread, wait));
        return std::find(list.begin(), list.end(), m) != list.end();
    }

    /// True once the thread has paid the startup of its current operation; otherwise it resumes the
    /// operation when the startup is over. A wait pays its messages' startups one by one (wait()).
    bool startup_done(ReplayThread thread, OpIndex op) {
        if (zero_cost_ || startup_paid_[thread]) return true;
        // Computed once per operation (it reads the messages', scattered in memory): the thread
        // may come back to the operation many times, and finish_op counts it again.
        if (startup_[thread] == k_unset) startup_[thread] = startup_cost(thread, op);
        return src_.kind(thread, op) == OpKind::recv_wait || pay_startup(thread, startup_[thread]);
    }

    /// Starts `cost` of startup CPU time, after which the thread resumes its operation; true when
    /// there is none to pay.
    bool pay_startup(ReplayThread thread, Time cost) {
        if (cost == 0) return true;
        if (!take_cpu(thread, true)) return false;
        startup_paid_[thread] = true;
        schedule(thread, add_times(now_, cost, ticks_per_ns_));
        return false;
    }

    /// The collectives made known since the last call, in that order (for the whole program,
    /// every collective, before the replay), with their state.
    void know_new_collectives() {
        for (; known_collectives_ < src_.known_collectives(); ++known_collectives_)
            know_collective(src_.known_collective(known_collectives_));
    }

    /// Collective `c` is known with its members, before it is replayed: what the model and the
    /// order of resuming derive from the collectives before it on its communicator.
    void know_collective(CollectiveIndex c) {
        const auto& coll = src_.collective(c);
        auto& state = collective_[c];
        state.known = true;
        state.members = coll.member_count;
        if (resume_in_arrival_order()) state.resuming_last = resuming_last_.known(coll);
        if (coll.thread_barrier) return;
        member_tasks_.clear();
        for (const ReplayThread t : src_.members(c)) member_tasks_.push_back(src_.task_of(t));
        model_.collective_known(c, coll, member_tasks_);
    }

    /// Whether the members of a collective resume in Dimemas' order (collective_done): what they
    /// do next at the same instant (take a shared CPU, ask for a link or a bus) goes in that
    /// order. On the ideal network with a CPU per thread the order changes nothing.
    bool resume_in_arrival_order() const { return cpus_.limited() || !zero_cost_; }

    /// Returns true when the thread moves on at `now_`, false when it blocks or was rescheduled.
    bool execute(ReplayThread thread, OpIndex op) {
        if (!startup_done(thread, op)) return false;
        switch (src_.kind(thread, op)) {
        case OpKind::burst:
            return run_burst(thread, op);
        case OpKind::send:
            return send(thread, op);
        case OpKind::recv_post:
            return post(thread, op);
        case OpKind::recv_wait:
            return wait(thread, op);
        case OpKind::collective:
            return join(thread, op);
        }
        return false;
    }

    /// Burst `burst` of `thread` on the model's CPUs, in ticks of the engine's clock: the
    /// thread's computation so far, exactly, rounded to a tick, so that the rounding of its
    /// bursts does not add up.
    Time burst_duration(ReplayThread thread, std::uint32_t burst) {
        if (!exact_bursts_ && cpu_speed_ == 1)
            return ticks_per_ns_ == 1
                       ? src_.burst_duration(thread, burst)
                       : scale_time(src_.burst_duration(thread, burst),
                                    static_cast<std::uint64_t>(ticks_per_ns_), ticks_per_ns_);
        if (cpu_speed_ <= 0) return 0; // Dimemas: a non-positive speed makes bursts vanish
        const double ns = exact_bursts_ ? (*exact_bursts_)[burst]
                                        : static_cast<double>(src_.burst_duration(thread, burst));
        const double exact =
            burst_carry_[thread] + ns * static_cast<double>(ticks_per_ns_) / cpu_speed_;
        const Time duration = round_ticks(std::max(exact, 0.0), ticks_per_ns_, [&] {
            return fmt::format("a {} ns burst at CPU ratio {:g}", ns, cpu_speed_);
        });
        burst_carry_[thread] = exact - static_cast<double>(duration);
        return duration;
    }

    bool run_burst(ReplayThread thread, OpIndex op) {
        if (!take_cpu(thread, false)) return false;
        if (cpus_.limited()) { // the burst runs from when it got a CPU
            result_.threads[thread].cpu_wait += now_ - op_begin_[thread];
            op_begin_[thread] = now_;
        }
        const Time done =
            add_times(now_, burst_duration(thread, src_.ref(thread, op)), ticks_per_ns_);
        result_.threads[thread].useful += done - now_;
        finish_op(thread, op, done);
        schedule(thread, done);
        return false;
    }

    void start_transfer(MessageIndex m) {
        const auto& msg = src_.message(m);
        const network::TransferRequest request{m, src_.task_of(msg.sender),
                                               src_.task_of(msg.receiver), msg.bytes};
        if (asynchronous_) return model_.begin_transfer(request, now_, *this);
        transfer_started(m, now_);
        transfer_delivered(m, model_.transfer(request, now_));
    }

    // TransferSink: an asynchronous model's events and transfers; the others' transfers too.
    void call_at(Time time, std::uint32_t token) override {
        queue_.push(time, k_model_event + token);
    }

    void transfer_started(std::uint32_t transfer, Time at) override {
        if (transfer >= src_.first_root_transfer()) return; // nobody waits for a root's data
        const auto& msg = src_.message(transfer);
        auto& state = message_[transfer];
        state.transfer_start = at;
        if (state.sender_blocked) { // a rendezvous sender goes on
            state.sender_blocked = false;
            finish_op(msg.sender, pc_[msg.sender], at); // still at its send
            if (cpus_.limited() && at == now_) {
                // In this event, before threads whose own events of the same instant are still
                // to come.
                head_turn(msg.sender);
            } else {
                schedule(msg.sender, at, Resume::woken_first);
            }
        }
    }

    void collective_done(CollectiveIndex c, Time at) override {
        const auto& coll = src_.collective(c);
        if (!resume_in_arrival_order() || coll.thread_barrier) {
            for (const ReplayThread member : src_.members(c)) leave_collective(member, at);
            return;
        }
        // Dimemas puts the members in their nodes' ready queues in the order they arrived, the
        // root last (resuming_last; close_global_communication), then starts the queues node by
        // node (reload_events): what they do next at this instant goes in that order.
        std::vector<std::tuple<std::uint32_t, bool, std::uint64_t, ReplayThread>> members;
        members.reserve(coll.member_count);
        for (const ReplayThread t : src_.members(c)) {
            const bool last = src_.task_of(t) == collective_[c].resuming_last;
            members.emplace_back(cpus_.node_of(t), last, join_order_[t], t);
        }
        std::sort(members.begin(), members.end());
        for (const auto& member : members) leave_collective(std::get<3>(member), at);
    }

    void transfer_delivered(std::uint32_t transfer, Time at) override {
        if (transfer < src_.first_root_transfer()) {
            message_[transfer].arrival = at;
            wake_receiver(src_.message(transfer).receiver, transfer, at);
            return;
        }
        const ReplayThread member = data_for_root_[transfer - src_.first_root_transfer()];
        const CollectiveIndex c = src_.ref(member, pc_[member]); // it waits in the collective
        auto& state = collective_[c];
        state.latest = std::max(state.latest, at);
        --state.undelivered;
        // When these data complete the collective, Dimemas queues the root before this member
        // (close_global_root_sync_communication) and starts the queues node by node.
        const auto root = src_.master_thread(src_.collective(c).root_task);
        const bool root_first = cpus_.node_of(root) <= cpus_.node_of(member);
        if (!root_first) leave_collective(member, at);
        release_root_when_complete(c, k_none);
        if (root_first) leave_collective(member, at);
    }

    /// A blocking rendezvous send waits until the receive is posted, then leaves as its data starts
    /// moving (Dimemas: the transfer goes on without the sender).
    bool send(ReplayThread thread, OpIndex op) {
        const MessageIndex m = src_.ref(thread, op);
        const auto& msg = src_.message(m);
        auto& state = message_[m];
        state.issued = true;
        if (!msg.rendezvous || state.posted) {
            start_transfer(m);
        } else if (!msg.immediate_send) {
            state.sender_blocked = true;
            blocked_[thread] = true;
            return false;
        }
        finish_op(thread, op, now_);
        return !cpus_.limited() || head_turn(thread); // COMMUNIC_send
    }

    bool post(ReplayThread thread, OpIndex op) {
        const MessageIndex m = src_.ref(thread, op);
        auto& state = message_[m];
        state.posted = true;
        const auto& msg = src_.message(m);
        if (msg.rendezvous && state.issued &&
            state.arrival == k_unset) // the sender is ready and waited for us
            start_transfer(m);
        finish_op(thread, op, now_);
        // A blocking receive takes its turn in its wait.
        return !cpus_.limited() || blocking_receive(thread, op, m) ||
               head_turn(thread); // COMMUNIC_Irecv
    }

    /// The message `thread`'s wait `op` is at: the first it has not completed yet.
    MessageIndex awaited(ReplayThread thread, OpIndex op) const {
        return src_.wait_list(thread, src_.ref(thread, op))[waited_[thread]];
    }

    /// A wait completes its messages one at a time, in its list's order: for each it pays the
    /// message's startup, then waits for the message to arrive. prv2dim writes a call completing
    /// several receives (MPI_Waitall) as one wait record per message, and Dimemas' wait
    /// (COMMUNIC_wait) pays its startup before it looks for its message: the next message's
    /// startup begins only once the one before has arrived, even if the next arrived long before.
    bool wait(ReplayThread thread, OpIndex op) {
        const std::uint32_t list = src_.ref(thread, op);
        const auto count = static_cast<std::uint32_t>(src_.wait_list(thread, list).size());
        for (; waited_[thread] < count; ++waited_[thread]) {
            const MessageIndex m = awaited(thread, op);
            if (!zero_cost_ && !startup_paid_[thread] &&
                !pay_startup(thread, blocking_receive(thread, op, m) ? 0 : message_startup(m)))
                return false;
            const Time a = message_[m].arrival;
            if (a == k_unset || a > now_) { // the message wakes it
                if (a == k_unset)
                    blocked_[thread] = true;
                else
                    schedule(thread, a, Resume::woken);
                woken_by_message_[thread] = true;
                return false;
            }
            startup_paid_[thread] = false; // the next message's is still to pay
            // A message found there, not one the thread was woken for, takes its head turn
            // (COMMUNIC_wait); a woken thread had its instant of CPU on waking.
            const bool woken = woken_by_message_[thread];
            woken_by_message_[thread] = false;
            if (cpus_.limited() && !woken) {
                if (++waited_[thread] == count) finish_op(thread, op, now_);
                return head_turn(thread);
            }
        }
        finish_op(thread, op, now_);
        return true;
    }

    bool join(ReplayThread thread, OpIndex op) {
        const CollectiveIndex c = src_.ref(thread, op);
        const auto& coll = src_.collective(c);
        auto& state = collective_[c];
        if (!arrived_in_collective_[thread]) {
            arrived_in_collective_[thread] = true;
            if (resume_in_arrival_order()) join_order_[thread] = ++joins_;
            ++state.arrived;
            state.latest = std::max(state.latest, now_);
            if (coll.flow != CollectiveFlow::all_members && is_root(thread, coll))
                state.root_arrival = now_;
        }
        switch (coll.flow) {
        case CollectiveFlow::all_members:
            if (state.arrived == coll.member_count) {
                if (coll.thread_barrier) {
                    collective_done(c, state.latest);
                } else if (asynchronous_) {
                    blocked_[thread] = true;
                    model_.begin_collective(c, coll, state.latest, *this);
                } else {
                    collective_done(c, model_.collective(c, coll, state.latest));
                }
                return false;
            }
            break;
        case CollectiveFlow::to_root: // the root needs every member's data, the others go on
            if (is_root(thread, coll)) {
                blocked_[thread] = true;
            } else { // its data goes to the root as a message (Dimemas' root-synchronised Reduce)
                send_to_root(thread, c, coll);
            }
            release_root_when_complete(c, thread);
            return false;
        case CollectiveFlow::from_root: // the others need the root's data
            if (state.root_arrival == k_unset) break;
            if (is_root(thread, coll)) {
                const Time done = model_.collective(c, coll, now_);
                for (const ReplayThread member : src_.members(c))
                    if (waits_in(member, c)) leave_collective(member, done);
            } else {
                leave_collective(thread, model_.collective(c, coll, now_));
            }
            return false;
        }
        blocked_[thread] = true;
        return false;
    }

    /// A member of a collective flowing to its root sends its data there and leaves once it is
    /// delivered.
    void send_to_root(ReplayThread thread, CollectiveIndex c, const Collective& coll) {
        const auto transfer =
            static_cast<std::uint32_t>(src_.first_root_transfer() + data_for_root_.size());
        const network::TransferRequest request{transfer, src_.task_of(thread), coll.root_task,
                                               coll.send_bytes};
        if (!asynchronous_) {
            const Time delivered = model_.transfer(request, now_);
            auto& state = collective_[c];
            state.latest = std::max(state.latest, delivered);
            leave_collective(thread, delivered);
            return;
        }
        data_for_root_.push_back(thread);
        ++collective_[c].undelivered;
        blocked_[thread] = true;
        model_.begin_transfer(request, now_, *this);
    }

    bool is_root(ReplayThread thread, const Collective& coll) const {
        return src_.task_of(thread) == coll.root_task;
    }

    bool is_thread_barrier(ReplayThread thread, OpIndex op) const {
        return src_.kind(thread, op) == OpKind::collective &&
               src_.collective(src_.ref(thread, op)).thread_barrier;
    }

    /// Whether member `thread` of collective `c` has arrived at it and still waits there.
    bool waits_in(ReplayThread thread, CollectiveIndex c) const {
        return arrived_in_collective_[thread] && src_.ref(thread, pc_[thread]) == c;
    }

    /// Member `thread`, waiting in its collective, leaves it at `done`; the last to leave ends
    /// it.
    void leave_collective(ReplayThread thread, Time done, Resume how = Resume::woken) {
        const CollectiveIndex c = src_.ref(thread, pc_[thread]);
        arrived_in_collective_[thread] = false;
        finish_op(thread, pc_[thread], done);
        schedule(thread, done, how);
        auto& state = collective_[c];
        if (++state.left == state.members) model_.collective_over(c);
    }

    /// Once every member of a collective flowing to its root has arrived, the root leaves when
    /// the last data has reached it; a root that arrives last with all data there goes straight on.
    void release_root_when_complete(CollectiveIndex c, ReplayThread arriving) {
        const auto& coll = src_.collective(c);
        const auto& state = collective_[c];
        if (state.arrived < coll.member_count || (asynchronous_ && state.undelivered > 0)) return;
        for (const ReplayThread member : src_.members(c)) {
            if (!is_root(member, coll) || !waits_in(member, c)) continue;
            const bool straight_on = member == arriving && state.latest == now_;
            leave_collective(member, state.latest, straight_on ? Resume::timer : Resume::woken);
        }
    }

    void check_all_finished() const {
        std::vector<OpIndex> position(pc_.begin(), pc_.end());
        bool stuck = false;
        for (ReplayThread t = 0; t < src_.thread_count(); ++t)
            stuck = stuck || pc_[t] < src_.end_op(t);
        if (!stuck) return;
        std::vector<Time> reached_at(op_begin_.size());
        std::ranges::transform(op_begin_, reached_at.begin(), [&](Time t) { return to_ns(t); });
        throw src_.deadlock(position, reached_at);
    }

    /// The part of an operation's blocked time spent after its data (or collective) started moving.
    Time transfer_part(ReplayThread thread, OpIndex op, Time begin, Time end) const {
        auto moving_since = [&](MessageIndex m) {
            return std::max(begin, message_.at(m).transfer_start);
        };
        switch (src_.kind(thread, op)) {
        case OpKind::send:
            return end - moving_since(src_.ref(thread, op));
        case OpKind::recv_wait: {
            Time part = 0;
            const std::uint32_t list = src_.ref(thread, op);
            for (const MessageIndex m : src_.wait_list(thread, list))
                part = std::max(part, std::min(end, message_.at(m).arrival) - moving_since(m));
            return std::max<Time>(part, 0);
        }
        case OpKind::collective:
            return is_thread_barrier(thread, op)
                       ? 0
                       : std::max<Time>(
                             0, end - std::max(begin, collective_.at(src_.ref(thread, op)).latest));
        default:
            return 0;
        }
    }

    const Source& src_;
    Model& model_;
    bool timeline_;
    std::function<void(std::uint64_t)> on_progress_;
    const ProgramArray<double>* exact_bursts_; // EngineOptions::burst_durations, if given
    double cpu_speed_;                         // the model's (NetworkModel::cpu_speed)
    Time ticks_per_ns_;                        // of the engine's clock: 1 or k_fine_ticks_per_ns
    std::vector<double> burst_carry_; // per thread: what rounding its bursts left out, in ticks
    std::uint64_t unreported_ops_ = 0;
    static constexpr std::uint32_t k_model_event = 1u << 31; // queue entries for the model
    bool asynchronous_;
    std::vector<ReplayThread> data_for_root_; // asynchronous: the member of each such transfer
    engine::CpuScheduler cpus_;
    std::vector<CpuState> cpu_;  // per thread, when CPUs are shared
    std::vector<Resume> resume_; // how each thread resumes at its next event, when CPUs are shared
    // With resume_in_arrival_order(): when each thread joined its collective, and who resumes
    // last from each collective (resuming_last).
    std::vector<std::uint64_t> join_order_;
    std::uint64_t joins_ = 0;
    ResumingLast resuming_last_;
    std::uint64_t known_collectives_ = 0;     // of the source's, made known so far
    std::vector<std::uint32_t> member_tasks_; // know_collective's, kept for its capacity
    bool zero_cost_; // no startups and nothing in transfer: skip their bookkeeping
    engine::EventQueue queue_;
    Time now_ = 0;
    std::vector<OpIndex> pc_;
    std::vector<OpIndex> begun_op_; // the operation whose begin op_begin_ holds
    std::vector<Time> op_begin_;    // when each thread reached its current operation
    std::vector<bool> blocked_, arrived_in_collective_, startup_paid_;
    std::vector<bool> woken_by_message_; // blocked in a wait until its message arrives
    std::vector<Time> startup_; // of each thread's current operation, once known (else k_unset)
    std::vector<std::uint32_t> waited_; // messages of its current wait a thread has completed
    engine::MessageStates message_;
    engine::CollectiveStates collective_;
    ReplayResult result_;
};

} // namespace

ReplayDeadlock deadlock(const ReplayProgram& p, const std::vector<OpIndex>& position,
                        const std::vector<Time>& reached_at) {
    std::vector<CollectiveIndex> collectives;
    std::vector<MessageIndex> rendezvous;
    for (ReplayThread t = 0; t < p.thread_count(); ++t) {
        const OpIndex op = position[t];
        if (op >= p.thread_end_op(t)) continue;
        if (p.op_kind[op] == OpKind::collective && !p.is_thread_barrier(op) &&
            std::find(collectives.begin(), collectives.end(), p.op_ref[op]) == collectives.end())
            collectives.push_back(p.op_ref[op]);
        if (p.op_kind[op] == OpKind::send && p.messages[p.op_ref[op]].rendezvous &&
            !p.messages[p.op_ref[op]].immediate_send)
            rendezvous.push_back(p.op_ref[op]);
    }
    return ReplayDeadlock(describe_blocked_tasks(p, position, reached_at), std::move(collectives),
                          std::move(rendezvous));
}

std::string describe_blocked_tasks(const ReplayProgram& p, const std::vector<OpIndex>& position,
                                   const std::vector<Time>& reached_at) {
    std::string out = "the replay deadlocks: the trace's dependencies form a cycle. Blocked:";
    std::size_t listed = 0;
    for (ReplayThread t = 0; t < p.thread_count() && listed < 16; ++t) {
        const OpIndex op = position[t];
        if (op >= p.thread_end_op(t)) continue;
        const std::uint32_t task = p.thread_task[t];
        fmt::format_to(std::back_inserter(out), "\n  task {}", task + 1);
        if (p.task_first_thread[task + 1] - p.task_first_thread[task] > 1)
            fmt::format_to(std::back_inserter(out), " thread {}", t - p.master_thread(task) + 1);
        fmt::format_to(std::back_inserter(out), " in {}",
                       p.is_thread_barrier(op) ? "an OpenMP fork/join barrier"
                                               : kind_name(p.op_kind[op]));
        if (p.op_call[op] != k_none)
            fmt::format_to(std::back_inserter(out), " (its MPI call #{})", p.op_call[op] + 1);
        fmt::format_to(std::back_inserter(out), ", reached at simulated {} ns", reached_at[t]);
        if (p.op_kind[op] == OpKind::send || p.op_kind[op] == OpKind::recv_post) {
            const auto& m = p.messages[p.op_ref[op]];
            fmt::format_to(std::back_inserter(out),
                           ", message of communication record {} (task {} -> task {}, {} bytes)",
                           m.record + 1, p.thread_task[m.sender] + 1, p.thread_task[m.receiver] + 1,
                           m.bytes);
        }
        ++listed;
    }
    return out;
}

struct IncrementalReplay::Impl {
    virtual ~Impl() = default;
    virtual bool advance() = 0;
    virtual ReplayResult finish() = 0;
    virtual OpIndex position(ReplayThread t) const = 0;
    virtual MessageIndex first_message_under_way() const = 0;
    virtual CollectiveIndex first_collective_under_way() const = 0;
};

namespace {
template <class Model> struct IncrementalEngine final : IncrementalReplay::Impl {
    IncrementalEngine(const engine::WrittenProgram& program, Model& model,
                      const EngineOptions& options)
        : engine(program, model, options) {}
    bool advance() override { return engine.advance(); }
    ReplayResult finish() override { return engine.finish(); }
    OpIndex position(ReplayThread t) const override { return engine.position(t); }
    MessageIndex first_message_under_way() const override {
        return engine.first_message_under_way();
    }
    CollectiveIndex first_collective_under_way() const override {
        return engine.first_collective_under_way();
    }
    Engine<Model, engine::WrittenProgram> engine;
};
} // namespace

IncrementalReplay::IncrementalReplay(const engine::WrittenProgram& program,
                                     network::NetworkModel& model, const EngineOptions& options) {
    if (auto* ideal = dynamic_cast<network::IdealNetwork*>(&model))
        impl_ =
            std::make_unique<IncrementalEngine<network::IdealNetwork>>(program, *ideal, options);
    else if (auto* dimemas = dynamic_cast<network::DimemasNetwork*>(&model))
        impl_ = std::make_unique<IncrementalEngine<network::DimemasNetwork>>(program, *dimemas,
                                                                             options);
    else
        impl_ = std::make_unique<IncrementalEngine<network::NetworkModel>>(program, model, options);
}
IncrementalReplay::~IncrementalReplay() = default;
IncrementalReplay::IncrementalReplay(IncrementalReplay&&) noexcept = default;
IncrementalReplay& IncrementalReplay::operator=(IncrementalReplay&&) noexcept = default;
bool IncrementalReplay::advance() {
    return impl_->advance();
}
ReplayResult IncrementalReplay::finish() {
    return impl_->finish();
}
OpIndex IncrementalReplay::position(ReplayThread t) const {
    return impl_->position(t);
}
MessageIndex IncrementalReplay::first_message_under_way() const {
    return impl_->first_message_under_way();
}
CollectiveIndex IncrementalReplay::first_collective_under_way() const {
    return impl_->first_collective_under_way();
}

ReplayResult replay_events(const ReplayProgram& program, network::NetworkModel& model,
                           const EngineOptions& options) {
    // The ideal network, the one `analyze` replays on, and Dimemas', the one `simulate` and
    // `whatif` replay on, without virtual calls (they cost 5 % on the ideal one).
    const engine::WholeProgram whole(program);
    if (auto* ideal = dynamic_cast<network::IdealNetwork*>(&model))
        return Engine(whole, *ideal, options).run();
    if (auto* dimemas = dynamic_cast<network::DimemasNetwork*>(&model))
        return Engine(whole, *dimemas, options).run();
    return Engine(whole, model, options).run();
}

} // namespace popsim::replay

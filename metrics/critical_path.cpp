#include "metrics/critical_path.hpp"

#include <numeric>

namespace popsim::metrics {

namespace {

using replay::OpIndex;
using replay::OpKind;
using replay::ReplayProgram;
using replay::ReplayThread;

class Walk {
  public:
    Walk(const ReplayProgram& p, const replay::ReplayResult& r)
        : p_(p), r_(r), ops_(replay::message_ops(p)) {}

    CriticalPath run() {
        CriticalPath out;
        out.per_task.assign(p_.tasks, 0);
        out.useful.assign(p_.tasks, 0);
        for (ReplayThread th = 0; th < p_.thread_count(); ++th)
            out.useful[p_.thread_task[th]] += r_.threads[th].useful;
        ReplayThread last = 0;
        for (ReplayThread th = 1; th < p_.thread_count(); ++th)
            if (r_.threads[th].end > r_.threads[last].end) last = th;
        OpIndex op = p_.thread_end_op(last) > p_.thread_first_op[last] ? p_.thread_end_op(last) - 1
                                                                       : replay::k_none;
        while (op != replay::k_none) {
            const ReplayThread th = p_.thread_of(op);
            if (p_.op_kind[op] == OpKind::burst) {
                const Time d = r_.op_end[op] - r_.op_begin[op];
                out.per_task[p_.thread_task[th]] += d;
                out.length += d;
            }
            const OpIndex remote =
                r_.op_end[op] > r_.op_begin[op] && p_.op_kind[op] != OpKind::burst ? waited_for(op)
                                                                                   : replay::k_none;
            if (remote != replay::k_none) {
                ++out.jumps;
                op = before(remote);
            } else {
                op = before(op);
            }
        }
        return out;
    }

  private:
    /// The operation before `op` on its thread; k_none at the thread's start.
    OpIndex before(OpIndex op) const {
        return op == p_.thread_first_op[p_.thread_of(op)] ? replay::k_none : op - 1;
    }
    /// When the partner's part began: its operation's start (data leaves when a send starts).
    Time began(OpIndex op) const { return r_.op_begin[op]; }

    /// The partner's operation that `op` waited for, until its end: k_none if none began then.
    OpIndex waited_for(OpIndex op) const {
        const Time end = r_.op_end[op];
        switch (p_.op_kind[op]) {
        case OpKind::recv_wait: {
            const std::uint32_t list = p_.op_ref[op];
            for (auto i = p_.wait_first[list]; i < p_.wait_first[list + 1]; ++i) {
                const OpIndex send = ops_.send[p_.wait_messages[i]];
                if (send != replay::k_none && began(send) == end) return send;
            }
            return replay::k_none;
        }
        case OpKind::send: {
            const auto& m = p_.messages[p_.op_ref[op]];
            if (!m.rendezvous || m.immediate_send) return replay::k_none; // eager: no wait
            const OpIndex post = ops_.post[p_.op_ref[op]];
            return post != replay::k_none && began(post) == end ? post : replay::k_none;
        }
        case OpKind::collective: {
            const auto& c = p_.collectives[p_.op_ref[op]];
            for (auto i = c.first_member; i < c.first_member + c.member_count; ++i) {
                const OpIndex member = p_.collective_members[i];
                // Only the arrivals the collective waits for (CollectiveFlow).
                const bool root =
                    c.flow != replay::CollectiveFlow::all_members && p_.is_root(member);
                const bool awaited = c.flow != replay::CollectiveFlow::from_root || root;
                if (member != op && awaited && began(member) == end) return member;
            }
            return replay::k_none;
        }
        default:
            return replay::k_none;
        }
    }

    const ReplayProgram& p_;
    const replay::ReplayResult& r_;
    const replay::MessageOps ops_;
};

} // namespace

Time CriticalPath::imbalance() const {
    if (useful.empty()) return 0;
    const Time total = std::accumulate(useful.begin(), useful.end(), Time{0});
    return length - total / static_cast<Time>(useful.size());
}

CriticalPath critical_path(const ReplayProgram& program, const replay::ReplayResult& result) {
    return Walk(program, result).run();
}

} // namespace popsim::metrics

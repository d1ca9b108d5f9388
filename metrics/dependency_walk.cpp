#include "metrics/dependency_walk.hpp"

namespace popsim::metrics {

namespace {

using replay::OpIndex;
using replay::OpKind;
using replay::ReplayThread;

/// Whether the partner's part began at `t`: its operation's start (data leaves when a send
/// starts).
bool began_at(const replay::ReplayResult& r, OpIndex op, Time t) {
    return op != replay::k_none && r.op_begin[op] == t;
}

} // namespace

DependencyWalk::DependencyWalk(const replay::ReplayProgram& program,
                               const replay::ReplayResult& result)
    : p_(program), r_(result), ops_(replay::message_ops(program)) {}

OpIndex DependencyWalk::before(OpIndex op) const {
    return op == p_.thread_first_op[p_.thread_of(op)] ? replay::k_none : op - 1;
}

OpIndex DependencyWalk::last() const {
    ReplayThread last = 0;
    for (ReplayThread th = 1; th < p_.thread_count(); ++th)
        if (r_.threads[th].end > r_.threads[last].end) last = th;
    return p_.thread_end_op(last) > p_.thread_first_op[last] ? p_.thread_end_op(last) - 1
                                                             : replay::k_none;
}

OpIndex DependencyWalk::waited_for(OpIndex op) const {
    const Time end = r_.op_end[op];
    if (end == r_.op_begin[op]) return replay::k_none;
    switch (p_.op_kind[op]) {
    case OpKind::recv_wait: {
        const std::uint32_t list = p_.op_ref[op];
        for (auto i = p_.wait_first[list]; i < p_.wait_first[list + 1]; ++i)
            if (const OpIndex send = ops_.send[p_.wait_messages[i]]; began_at(r_, send, end))
                return send;
        return replay::k_none;
    }
    case OpKind::send: {
        const auto& m = p_.messages[p_.op_ref[op]];
        if (!m.rendezvous || m.immediate_send) return replay::k_none; // eager: no wait
        const OpIndex post = ops_.post[p_.op_ref[op]];
        return began_at(r_, post, end) ? post : replay::k_none;
    }
    case OpKind::collective: {
        const auto& c = p_.collectives[p_.op_ref[op]];
        for (auto i = c.first_member; i < c.first_member + c.member_count; ++i) {
            const OpIndex member = p_.collective_members[i];
            // Only the arrivals the collective waits for (CollectiveFlow).
            const bool root = c.flow != replay::CollectiveFlow::all_members && p_.is_root(member);
            const bool awaited = c.flow != replay::CollectiveFlow::from_root || root;
            if (member != op && awaited && began_at(r_, member, end)) return member;
        }
        return replay::k_none;
    }
    default:
        return replay::k_none;
    }
}

} // namespace popsim::metrics

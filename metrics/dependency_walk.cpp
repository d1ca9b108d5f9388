// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/dependency_walk.hpp"

namespace popsim::metrics {

namespace {

using replay::OpIndex;
using replay::OpKind;
using replay::ReplayThread;

/// Keeps the candidate that began last (the first of those that began at once).
struct Latest {
    const replay::ReplayResult& r;
    OpIndex op = replay::k_none;
    void offer(OpIndex candidate) {
        if (candidate != replay::k_none &&
            (op == replay::k_none || r.op_begin[candidate] > r.op_begin[op]))
            op = candidate;
    }
};

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
    if (r_.op_end[op] == r_.op_begin[op]) return replay::k_none;
    Latest latest{r_};
    switch (p_.op_kind[op]) {
    case OpKind::recv_wait: {
        const std::uint32_t list = p_.op_ref[op];
        for (auto i = p_.wait_first[list]; i < p_.wait_first[list + 1]; ++i)
            latest.offer(ops_.send[p_.wait_messages[i]]);
        break;
    }
    case OpKind::send: {
        const auto& m = p_.messages[p_.op_ref[op]];
        if (m.rendezvous && !m.immediate_send) latest.offer(ops_.post[p_.op_ref[op]]);
        break; // an eager send waits for no one
    }
    case OpKind::collective: {
        const auto& c = p_.collectives[p_.op_ref[op]];
        for (auto i = c.first_member; i < c.first_member + c.member_count; ++i) {
            const OpIndex member = p_.collective_members[i];
            // Only the arrivals the collective waits for (CollectiveFlow).
            const bool root = c.flow != replay::CollectiveFlow::all_members && p_.is_root(member);
            const bool awaited = c.flow != replay::CollectiveFlow::from_root || root;
            if (member != op && awaited) latest.offer(member);
        }
        break;
    }
    default:
        break;
    }
    if (latest.op == replay::k_none) return replay::k_none;
    // A completion that took time waited for its messages, even sent before it began (in flight
    // on a network with latency); other operations wait for a partner only if it came later.
    if (p_.op_kind[op] == OpKind::recv_wait) return latest.op;
    return r_.op_begin[latest.op] > r_.op_begin[op] ? latest.op : replay::k_none;
}

} // namespace popsim::metrics

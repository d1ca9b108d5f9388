// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Walks a replay on the ideal network backwards in time along its dependencies: along a thread
// from operation to operation and, at each operation that waited, to the partner it waited for
// (the message's sender, the receive's poster, the collective's last awaited arrival). On the
// ideal network only bursts take time, so over any span the walk meets the computation that set
// the pace: the critical path (critical_path.hpp) and who caused each wait (delay_costs.hpp).
#include "replay/engine/replay_result.hpp"
#include "replay/program/replay_program.hpp"

namespace popsim::metrics {

class DependencyWalk {
  public:
    /// `result`: a replay of `program` on the ideal network, with its timeline.
    DependencyWalk(const replay::ReplayProgram& program, const replay::ReplayResult& result);

    /// Walks back from operation `op` (included) to time `from`: calls `on_path(op, begin, end)`
    /// for each operation's part on the way, clipped to `from` (a burst's computation; the time
    /// an operation spent after its partner began, or the whole operation when it waited for
    /// none: on the ideal network these are empty), and `jumped()` at each jump to a partner.
    template <class OnPath, class Jumped>
    void back(replay::OpIndex op, Time from, OnPath on_path, Jumped jumped) const {
        while (op != replay::k_none && r_.op_end[op] > from) {
            const replay::OpIndex partner = waited_for(op);
            const Time begin =
                std::max(partner != replay::k_none ? r_.op_begin[partner] : r_.op_begin[op], from);
            if (r_.op_end[op] > begin) on_path(op, begin, r_.op_end[op]);
            if (partner != replay::k_none) jumped();
            op = before(partner != replay::k_none ? partner : op);
        }
    }

    /// Walks back as `back` does, calling `computed(op, begin, end)` for the bursts alone.
    template <class Computed, class Jumped>
    void back_through_bursts(replay::OpIndex op, Time from, Computed computed,
                             Jumped jumped) const {
        back(
            op, from,
            [&](replay::OpIndex o, Time begin, Time end) {
                if (p_.op_kind[o] == replay::OpKind::burst) computed(o, begin, end);
            },
            jumped);
    }

    /// The operation before `op` on its thread; k_none at the thread's start.
    replay::OpIndex before(replay::OpIndex op) const;
    /// The last operation of the thread that ends last (the lowest such thread).
    replay::OpIndex last() const;

  private:
    /// The partner's operation that `op` waited for: of those it waits for (the messages' sends,
    /// the receive's post, the collective's awaited members), the one that began last, if `op`
    /// took time and the partner came after `op` began (for a completion of messages, whenever:
    /// they were in flight); k_none if it waited for none. On the ideal network that partner
    /// began as `op` ended; on others the transfer follows.
    replay::OpIndex waited_for(replay::OpIndex op) const;

    const replay::ReplayProgram& p_;
    const replay::ReplayResult& r_;
    const replay::MessageOps ops_;
};

} // namespace popsim::metrics

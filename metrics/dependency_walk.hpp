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

    /// Walks back from operation `op` (included) to time `from`: calls `computed(task, time)`
    /// for each burst met, clipped to [from, its end), and `jumped()` at each jump to a partner.
    template <class Computed, class Jumped>
    void back(replay::OpIndex op, Time from, Computed computed, Jumped jumped) const {
        while (op != replay::k_none && r_.op_end[op] > from) {
            if (p_.op_kind[op] == replay::OpKind::burst) {
                computed(p_.thread_task[p_.thread_of(op)],
                         r_.op_end[op] - std::max(r_.op_begin[op], from));
            }
            const replay::OpIndex partner = waited_for(op);
            if (partner != replay::k_none) jumped();
            op = before(partner != replay::k_none ? partner : op);
        }
    }

    /// The operation before `op` on its thread; k_none at the thread's start.
    replay::OpIndex before(replay::OpIndex op) const;
    /// The last operation of the thread that ends last (the lowest such thread).
    replay::OpIndex last() const;

  private:
    /// The partner's operation that `op` waited for until its end; k_none if it did not wait.
    replay::OpIndex waited_for(replay::OpIndex op) const;

    const replay::ReplayProgram& p_;
    const replay::ReplayResult& r_;
    const replay::MessageOps ops_;
};

} // namespace popsim::metrics

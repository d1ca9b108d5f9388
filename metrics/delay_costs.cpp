// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/delay_costs.hpp"

#include "metrics/dependency_walk.hpp"

namespace popsim::metrics {

DelayCosts delay_costs(const replay::ReplayProgram& program, const replay::ReplayResult& result,
                       const WaitStates& waits, const CodeRegions& regions,
                       const StartupBursts& startup) {
    // Each call's first operation, per replay thread.
    std::vector<std::vector<replay::OpIndex>> first_op(program.thread_count());
    for (replay::ReplayThread th = 0; th < program.thread_count(); ++th) {
        for (auto op = program.thread_first_op[th]; op < program.thread_end_op(th); ++op) {
            const std::uint32_t call = program.op_call[op];
            if (call == replay::k_none) continue;
            auto& calls = first_op[th];
            if (calls.size() <= call) calls.resize(call + 1, replay::k_none);
            if (calls[call] == replay::k_none) calls[call] = op;
        }
    }
    const DependencyWalk walk(program, result);
    DelayCosts out;
    out.caused.assign(program.tasks, 0);
    out.direct.assign(program.tasks, 0);
    out.startup.assign(program.tasks, 0);
    for (const auto& w : waits.instances) {
        // The partner's entry ends the wait: walk back from its operation before, to the
        // waiter's entry.
        const replay::OpIndex late = first_op[w.late_thread][w.late_call];
        const Time waiter_entry = result.op_begin[first_op[w.thread][w.call]];
        Time found = 0;
        bool direct = true; // until the walk leaves the partner
        walk.back_through_bursts(
            walk.before(late), waiter_entry,
            [&](replay::OpIndex op, Time begin, Time end) {
                // The wait is clamped to its call: the walk meets its latest part first.
                begin = std::max(begin, end - (w.time - found));
                if (end <= begin) return;
                const std::uint32_t task = program.thread_task[program.thread_of(op)];
                found += end - begin;
                if (startup.contains(op)) {
                    out.startup[task] += end - begin;
                    return;
                }
                out.caused[task] += end - begin;
                if (direct) out.direct[task] += end - begin;
                out.pairs[{task, w.task}] += end - begin;
                regions.split_burst(op, begin, end, result.op_end[op],
                                    [&](std::uint64_t region, Time t) {
                                        out.regions[{task, region}] += t;
                                    });
            },
            [&] { direct = false; });
        out.unexplained += w.time - found;
    }
    return out;
}

} // namespace popsim::metrics

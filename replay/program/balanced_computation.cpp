// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/balanced_computation.hpp"

namespace popsim::replay {

namespace {

/// A thread's bursts between two of its collectives: operations [begin, end).
struct Segment {
    OpIndex begin = 0, end = 0;
    double total = 0; // their computation
    std::uint32_t bursts = 0;
};

/// The segment's bursts with their balanced parts (`part`) rescaled to sum to about `share`.
void give_share(const ReplayProgram& p, const Segment& s, double share,
                const ProgramArray<double>& part, ProgramArray<double>& out) {
    for (OpIndex op = s.begin; op < s.end; ++op) {
        if (p.op_kind[op] != OpKind::burst) continue;
        const auto burst = p.op_ref[op];
        // Bursts of no time take equal parts; the others keep their proportions.
        out[burst] +=
            (s.total == 0 ? share / s.bursts : share * part[burst] / s.total) - part[burst];
    }
}

} // namespace

ProgramArray<double> balanced_bursts(const ReplayProgram& program,
                                     const ProgramArray<double>& durations,
                                     const std::function<bool(OpIndex)>& ends_startup,
                                     const ProgramArray<double>* part) {
    ProgramArray<double> out(durations);
    const ProgramArray<double>& balanced = part ? *part : durations;
    // The segments ending in each collective; the last group holds those after the last one.
    std::vector<std::vector<Segment>> groups(program.collectives.size() + 1);
    for (ReplayThread th = 0; th < program.thread_count(); ++th) {
        Segment s{.begin = program.thread_first_op[th]};
        for (OpIndex op = s.begin; op < program.thread_end_op(th); ++op) {
            if (program.op_kind[op] == OpKind::burst) {
                s.total += balanced[program.op_ref[op]];
                ++s.bursts;
            } else if (program.op_kind[op] == OpKind::collective) {
                s.end = op;
                if (s.bursts > 0 && !ends_startup(op)) groups[program.op_ref[op]].push_back(s);
                s = Segment{.begin = op + 1};
            }
        }
        s.end = program.thread_end_op(th);
        if (s.bursts > 0) groups.back().push_back(s);
    }
    for (const auto& members : groups) {
        if (members.size() < 2) continue;
        double sum = 0;
        for (const auto& s : members) sum += s.total;
        for (const auto& s : members)
            give_share(program, s, sum / static_cast<double>(members.size()), balanced, out);
    }
    return out;
}

} // namespace popsim::replay

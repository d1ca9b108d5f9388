#pragma once
// Where the time lost to waiting goes, and why (docs/metrics.md, "Root causes"): the wait states
// of the traced run and of its ideal-network replay, whose waits are the serialisation the ideal
// network leaves. Needs the whole program: analyze --root-causes reads the trace into memory.
//
// Example:
//   auto trace = popsim::replay::read_paraver("run.prv.gz");
//   auto program = popsim::replay::build_replay_program(trace);
//   auto causes = popsim::metrics::root_causes(trace, program);
//   causes.ideal.total[popsim::metrics::WaitPattern::late_sender];
#include "metrics/critical_path.hpp"
#include "metrics/delay_costs.hpp"
#include "metrics/wait_states.hpp"

namespace popsim::metrics {

struct RootCauses {
    WaitStates traced;          // in the trace
    WaitStates ideal;           // in the replay on the ideal network
    CriticalPath critical_path; // of that replay
    DelayCosts delays;          // who caused its waits
    CriticalPath traced_path;   // the traced run's critical path, through its wait states
};

/// Replays `program` on the ideal network again, keeping its timeline, breaking dependency
/// cycles as the ideal run does (their warnings are that run's, not repeated).
RootCauses root_causes(const replay::Trace& trace, const replay::ReplayProgram& program);

} // namespace popsim::metrics

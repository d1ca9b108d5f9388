// SPDX-License-Identifier: BSD-3-Clause
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
    WaitStates traced;             // in the trace
    WaitStates ideal;              // in the replay on the ideal network
    CriticalPath critical_path;    // of that replay
    DelayCosts delays;             // who caused its waits
    CriticalPath traced_path;      // the traced run's critical path, through its wait states
    std::uint32_t region_type = 0; // the event type whose values are the code regions, 0: none
};

/// Replays `program` on the ideal network again, keeping its timeline, breaking dependency
/// cycles as the ideal run does (their warnings are that run's, not repeated). `region_type`: the
/// event type whose values are the code regions (code_regions.hpp; read into the trace's series),
/// 0 for default_region_type.
RootCauses root_causes(const replay::Trace& trace, const replay::ReplayProgram& program,
                       std::uint32_t region_type = 0);

} // namespace popsim::metrics

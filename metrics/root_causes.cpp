// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/root_causes.hpp"

#include "metrics/ideal_replay.hpp"

namespace popsim::metrics {

RootCauses root_causes(const replay::Trace& trace, const replay::ReplayProgram& program,
                       std::uint32_t region_type) {
    const auto result = ideal_replay_again(trace, program, {.timeline = true});
    RootCauses out;
    out.region_type = region_type != 0 ? region_type : default_region_type(trace);
    const CodeRegions regions(trace, program, out.region_type);
    {
        const auto traced = traced_calls(trace, program);
        out.traced = wait_states(program, traced, regions);
        out.traced_path = traced_critical_path(trace, program, traced, out.traced, regions);
    } // one call table at a time
    out.ideal = wait_states(program, replayed_calls(trace, program, result), regions);
    const StartupBursts startup(trace, program);
    out.critical_path = critical_path(program, result, regions, startup);
    out.delays = delay_costs(program, result, out.ideal, regions, startup);
    return out;
}

} // namespace popsim::metrics

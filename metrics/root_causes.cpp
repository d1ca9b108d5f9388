#include "metrics/root_causes.hpp"

#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/program/cycle_breaking.hpp"

namespace popsim::metrics {

RootCauses root_causes(const replay::Trace& trace, const replay::ReplayProgram& program) {
    const auto result = replay::replay_breaking_cycles(
        &trace, program,
        [](const replay::ReplayProgram& p) {
            replay::network::IdealNetwork ideal;
            return replay::replay_events(p, ideal, {.timeline = true});
        },
        nullptr);
    RootCauses out;
    {
        const auto traced = traced_calls(trace, program);
        out.traced = wait_states(program, traced);
        out.traced_path = traced_critical_path(trace, program, traced, out.traced);
    } // one call table at a time
    out.ideal = wait_states(program, replayed_calls(trace, program, result));
    out.critical_path = critical_path(program, result);
    out.delays = delay_costs(program, result, out.ideal);
    return out;
}

} // namespace popsim::metrics

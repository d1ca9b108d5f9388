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
    RootCauses out{wait_states(program, traced_calls(trace, program)),
                   wait_states(program, replayed_calls(trace, program, result)),
                   critical_path(program, result),
                   {},
                   {}};
    out.delays = delay_costs(program, result, out.ideal);
    out.traced_path = traced_critical_path(trace, program, out.traced);
    return out;
}

} // namespace popsim::metrics

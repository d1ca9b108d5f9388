#pragma once
// The root-cause section of analyze (--root-causes): the wait states by pattern in the traced run
// and on the ideal network, and who waited longest for whom; the same in JSON.
#include "metrics/root_causes.hpp"
#include "simulator/terminal_report.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace popsim::simulator {

/// `runtime` and `tasks` of the trace at `path`: the shares are of the ranks' time, runtime x
/// tasks. Lists the `max_pairs` longest (waiting rank, late rank, pattern) of each timeline.
/// `labels`: the trace's .pcf, naming the call sites (callers of MPI calls).
std::string format_root_causes(const metrics::RootCauses& causes, const std::string& path,
                               Time runtime, std::uint32_t tasks, const replay::TraceLabels& labels,
                               const TerminalStyle& style, std::size_t max_pairs = 3);

nlohmann::json root_causes_json(const metrics::RootCauses& causes,
                                const replay::TraceLabels& labels);

/// "MPI_Recv", or "MPI_Recv in solve" with its call site named by the .pcf.
std::string call_and_site(const metrics::WaitCall& call, const replay::TraceLabels& labels);

} // namespace popsim::simulator

#pragma once
// The per-rank communication breakdown for people at a terminal: for each rank, the share of the
// runtime that is useful, load imbalance, serialisation and transfer.
#include "metrics/trace_summary.hpp"
#include "simulator/terminal_report.hpp"

#include <string>

namespace popsim::simulator {

/// Empty when the trace was not replayed. Lists at most `max_ranks` ranks, in % of the runtime
/// or, with the style's `fraction`, as fractions of it.
std::string format_rank_breakdown(const metrics::TraceSummary& summary, const TerminalStyle& style,
                                  std::size_t max_ranks = 16);

} // namespace popsim::simulator

#pragma once
// The per-rank communication breakdown for people at a terminal: for each rank, the share of the
// runtime that is useful, load imbalance, serialisation and transfer.
#include "metrics/trace_summary.hpp"

#include <string>

namespace popsim::simulator {

/// Empty when the trace was not replayed. Lists at most `max_ranks` ranks (the slowest last).
std::string format_rank_breakdown(const metrics::TraceSummary& summary, std::size_t max_ranks = 16);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The breakdowns of the runtime for people at a terminal: per rank for the MPI models (useful,
// load imbalance, serialisation, transfer), per thread for the OpenMP and hybrid models.
#include "metrics/pop_openmp.hpp"
#include "metrics/trace_summary.hpp"
#include "replay/trace.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <string>
#include <vector>

namespace popsim::simulator {

/// Empty when the trace was not replayed. Lists at most `max_ranks` ranks, in % of the runtime
/// or, with the style's `fraction`, as fractions of it.
std::string format_rank_breakdown(const metrics::TraceSummary& summary, const TerminalStyle& style,
                                  std::size_t max_ranks = 16);
/// Thread `t` of a run as "process.thread" (1-based), as the breakdowns label it.
std::string thread_label(const metrics::HybridRun& run, std::size_t t);
/// Each thread's useful time, idle time in parallel regions, serial time (outside regions and
/// MPI) and MPI time outside regions (metrics::ThreadTimeSplit), for at most `max_threads`.
std::string format_thread_breakdown(const metrics::HybridRun& run, const TerminalStyle& style,
                                    std::size_t max_threads = 16);

/// The name of parallel region `region` (metrics::RegionMetrics::region: the outlined function, or
/// the parallel event's value) from the trace's .pcf labels, else "region VALUE".
std::string region_name(std::uint64_t region, const replay::TraceLabels& labels);
/// The parallel regions of a run (metrics::region_metrics), longest first: the terminal's table
/// and the HTML report's.
std::vector<metrics::RegionMetrics> regions_longest_first(const metrics::HybridRun& run);
/// The parallel regions of a run, longest first (at most `max_regions`): instances, time, share of
/// the runtime, parallel efficiency and load balance, and their share of the OpenMP region
/// inefficiency (metrics::RegionMetrics), named from the .pcf.
std::string format_region_table(const metrics::HybridRun& run, const replay::TraceLabels& labels,
                                const TerminalStyle& style, std::size_t max_regions = 10);

} // namespace popsim::simulator

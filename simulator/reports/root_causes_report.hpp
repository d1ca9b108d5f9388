// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The root-cause section of analyze (--root-causes): the wait states by pattern in the traced run
// and on the ideal network, who waited longest for whom, where, whose computation caused it, the
// critical paths; the same in JSON and CSV.
#include "metrics/root_causes.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace popsim::simulator {

/// `runtime` and `tasks` of the trace at `path`: the shares are of the ranks' time, runtime x
/// tasks. Lists the `max_pairs` longest (waiting rank, late rank, pattern) of each timeline.
/// `labels`: the trace's .pcf, naming the call sites (callers of MPI calls).
std::string format_root_causes(const metrics::RootCauses& causes, const std::string& path,
                               Time runtime, std::uint32_t tasks, const replay::TraceLabels& labels,
                               const TerminalStyle& style, std::size_t max_pairs = 3);

nlohmann::json root_causes_json(const metrics::RootCauses& causes,
                                const replay::TraceLabels& labels);

/// One trace's root causes, with its .pcf for the names of call sites and code regions.
struct RootCausesReport {
    std::string path;
    std::string label; // the run's (--label, else the file name)
    const metrics::RootCauses& causes;
    replay::TraceLabels labels;
    Time runtime = 0;        // the traced run's
    std::uint32_t tasks = 0; // its MPI ranks: the wait states are shares of tasks x runtime
};

/// Each wait pattern's time, in the trace and on the ideal network (rows in the order the
/// terminal lists them; the last is the total).
struct WaitStateRow {
    std::string pattern;
    Time traced = 0, ideal = 0;
};
std::vector<WaitStateRow> wait_state_rows(const metrics::RootCauses& causes);

/// Every table of the root causes of the runs, as one CSV table (docs/file-formats.md, "Root
/// causes CSV"): a row per number, the column `table` saying which.
std::string root_causes_csv(const std::vector<RootCausesReport>& reports);

/// Times per (task, code region), as the root causes sum them, and the same longest first.
using TaskRegion = std::pair<std::uint32_t, std::uint64_t>;
using TaskRegionTimes = std::map<TaskRegion, Time>;
std::vector<std::pair<TaskRegion, Time>> longest_first(const TaskRegionTimes& times);

/// What the code regions of `causes` are ("User function", as the .pcf names the type).
std::string code_regions_description(const metrics::RootCauses& causes,
                                     const replay::TraceLabels& labels);
/// A code region's name from the .pcf ("TYPE:VALUE" without one), "elsewhere" for 0.
std::string code_region_name(const metrics::RootCauses& causes, std::uint64_t region,
                             const replay::TraceLabels& labels);

/// "MPI_Recv", or "MPI_Recv in solve" with its call site named by the .pcf.
std::string call_and_site(const metrics::WaitCall& call, const replay::TraceLabels& labels);

} // namespace popsim::simulator

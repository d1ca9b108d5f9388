// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What `popsim analyze` computes, apart from how it is shown: the command prints and writes it,
// the library (include/popsim/popsim.hpp) returns it.
#include "simulator/focus.hpp"
#include "simulator/reports/metric_table.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

/// analyze's options, as the command line gives them.
struct AnalyzeOptions {
    std::vector<std::string> traces; // files or folders of them
    std::string scaling = "auto";    // auto | strong | weak
    std::string convention = "modelfactors";
    std::string model = "auto";
    bool replay = true;
    bool whole_trace = false;
    std::string collectives = "dimemas";
    std::string replay_method = "events";
    bool in_memory = false;        // read each trace into memory rather than stream it
    bool root_causes = false;      // wait states, in memory (metrics/root_causes.hpp)
    bool communication = false;    // matrix, sizes, time profile, in memory (communication_views)
    bool gains = false;            // candidate fixes ranked, in memory (gains.hpp)
    std::string gains_config = {}; // --gains-config: a Dimemas .cfg modelling the traced network
    std::vector<std::uint32_t> project = {}; // --project: process counts to extrapolate to
    std::string code_regions =
        {}; // --code-regions SPEC: the event type naming the root causes' regions
    std::string eager_limit = "32k";
    FocusOptions focus = {};
    std::vector<std::string> labels = {}; // --label, one per trace
};

/// The table analyze shows, and what it shows it as.
struct AnalysisTable {
    std::string model;       // "mpi", "openmp", ... (auto resolved)
    std::string description; // "Model: ...", the scaling kind, the convention
    MetricTable table;       // that model's table, as printed
};

/// Reads, summarises and replays the traces and computes every model's metrics: what --json
/// writes (schema popsim/1). Bad options are std::invalid_argument, bad traces
/// replay::TraceError. Warnings go to stderr unless --quiet.
nlohmann::json analysis_report(const AnalyzeOptions& options);

} // namespace popsim::simulator

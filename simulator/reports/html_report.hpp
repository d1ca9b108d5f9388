// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The self-contained HTML report (inline CSS and SVG; no scripts, fonts or network access):
// the metric hierarchy coloured on the POP scale, scaling plots, the per-rank communication
// breakdown, the warnings, and for `whatif` the predicted runtimes.
#include "metrics/pop_openmp.hpp"
#include "metrics/scaling.hpp"
#include "pipeline/whatif/predicted_efficiencies.hpp"
#include "replay/warnings.hpp"
#include "simulator/reports/communication_report.hpp"
#include "simulator/reports/gains_report.hpp"
#include "simulator/reports/metric_table.hpp"
#include "simulator/reports/projection_report.hpp"
#include "simulator/reports/root_causes_report.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace popsim::simulator {

/// The POP colour of an efficiency (PyPOP's scale): below 0.5 dark red, light red up to 0.8,
/// from 0.8 light green darkening toward 1. Returns a CSS rgb() colour.
std::string pop_color(double efficiency);

/// The metric table alone, coloured on the POP scale with inline styles (a notebook shows it as
/// the report does).
std::string metric_table_html(const MetricTable& table);

/// The metrics of the phases or region instances of one trace (one column each), plotted over
/// the run: where in the timeline each efficiency drops.
struct PartsReport {
    std::string title; // "run.prv: 12 phases split at ..."
    MetricTable table; // one column per part
};
/// One trace's warnings, as the terminal and the JSON report give them.
struct TraceWarnings {
    std::string path;
    std::vector<replay::Warning> warnings;
};

/// What `analyze --html` shows: the model's table and scaling plots, the breakdowns (per rank for
/// the MPI models, per thread for the OpenMP and hybrid ones), the parts of a focus, the root
/// causes.
struct AnalysisReport {
    const MetricTable& table;
    std::string description; // the model, the scaling kind, the convention
    const metrics::SeriesAnalysis& series;
    const std::vector<metrics::HybridRun>& runs;
    bool per_thread = false;
    const std::vector<PartsReport>& parts;
    std::vector<RootCausesReport> root_causes = {};
    std::vector<CommunicationReport> communication = {};
    std::vector<GainsReport> gains = {};
    /// --project, to the measured counts and the asked ones (its charts), if asked.
    std::optional<metrics::Projection> projection = std::nullopt;
    std::vector<TraceWarnings> warnings = {}; // shown last, with out-of-range cells marked
    /// Per run (as `runs`), the names of its .pcf: the parallel regions' table names them.
    std::vector<replay::TraceLabels> run_labels = {};
};
std::string render_analysis_html(const AnalysisReport& report);

/// A swept parameter with several values: one axis of the what-if charts.
struct WhatifAxis {
    std::size_t parameter = 0;       // its index in WhatifPoint::value
    std::string name;                // "latency"
    std::vector<std::string> labels; // the values as typed
    std::vector<double> positions;   // where each stands on the (log) axis
};
struct WhatifPoint {
    std::vector<std::size_t> value; // per parameter, the index of its value
    double runtime_s = 0;
    pipeline::WhatifEfficiencies e;
};
struct WhatifReport {
    std::string trace, network; // the network of the first configuration, described
    double real_s = 0, ideal_s = 0;
    std::vector<WhatifAxis> axes;
    std::vector<WhatifPoint> points;
    /// The traced run with the same definitions (its PE, LB and CommE are analyze's): the
    /// table's first row. None for a Dimemas trace.
    std::optional<pipeline::WhatifEfficiencies> traced = std::nullopt;
    std::vector<replay::Warning> warnings = {}; // about the trace and the predicted runs
};

/// The predicted runtime and parallel efficiency against each swept parameter (a log axis; one
/// line per value of a second one), the real run and the ideal network as reference lines, and
/// every configuration in a table.
std::string render_whatif_html(const WhatifReport& report);

} // namespace popsim::simulator

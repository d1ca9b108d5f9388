#pragma once
// The self-contained HTML report (inline CSS and SVG; no scripts, fonts or network access):
// the metric hierarchy coloured on the POP scale, scaling plots, the per-rank communication
// breakdown, and for `whatif` the predicted runtimes.
#include "metrics/scaling.hpp"
#include "simulator/metric_table.hpp"

#include <string>
#include <vector>

namespace popsim::simulator {

/// The POP colour of an efficiency (PyPOP's scale): below 0.5 dark red, light red up to 0.8,
/// from 0.8 light green darkening toward 1. Returns a CSS rgb() colour.
std::string pop_color(double efficiency);

/// The metrics of the phases or region instances of one trace (one column each), plotted over
/// the run: where in the timeline each efficiency drops.
struct PartsReport {
    std::string title; // "run.prv: 12 phases split at ..."
    MetricTable table; // one column per part
};
std::string render_analysis_html(const MetricTable& table, const metrics::SeriesAnalysis& series,
                                 const std::string& model,
                                 const std::vector<PartsReport>& parts = {});

struct WhatifPoint {
    std::string network;    // the configuration, as described in the report
    double predicted_s = 0; // predicted runtime
};

std::string render_whatif_html(const std::string& trace, double real_s, double ideal_s,
                               const std::vector<WhatifPoint>& points);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// analyze's results as its reports show them: the table of the chosen model, and the JSON report
// (schema popsim/1) that --json writes and the library returns.
#include "pipeline/analysis.hpp"
#include "simulator/reports/metric_table.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

/// The table analyze shows, and what it shows it as.
struct AnalysisTable {
    std::string model;       // "mpi", "openmp", ... (auto resolved)
    std::string description; // "Model: ...", the scaling kind, the convention
    MetricTable table;       // that model's table, as printed
};

/// The table of `analysis.model`. An efficiency it shows outside 0-100 % is warned about on stderr
/// and added to its trace's warnings (analysis.analyzed), which the JSON report lists.
AnalysisTable shown_table(pipeline::Analysis& analysis);

/// The metrics of each instance or phase of a trace, as `model`'s table with one column each.
MetricTable parts_table(const std::string& model, const pipeline::FocusParts& parts,
                        metrics::SerTransConvention convention);

/// Each trace's label: --label's, else its file name.
std::vector<std::string> run_labels(const std::vector<std::string>& traces,
                                    const std::vector<std::string>& given);

/// What --json writes, after shown_table.
nlohmann::json analysis_json(const pipeline::Analysis& analysis);

/// The analysis of `options` (folders expanded, checked) as --json writes it.
nlohmann::json analysis_report(const pipeline::AnalyzeOptions& options);

} // namespace popsim::simulator

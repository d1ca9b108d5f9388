// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Tables and CSV for the OpenMP and hybrid models (metrics/pop_openmp.hpp).
#include "metrics/pop_openmp.hpp"
#include "simulator/reports/metric_table.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace popsim::simulator {

/// PyPOP's OpenMP table; columns are total threads.
MetricTable openmp_table(const metrics::OpenMpSeries& series);
/// One column per run ("PxT"): the hybrid additive, multiplicative and TALP tables.
MetricTable hybrid_additive_table(const std::vector<metrics::HybridRun>& runs);
MetricTable hybrid_multiplicative_table(const std::vector<metrics::HybridRun>& runs);
MetricTable talp_table(const std::vector<metrics::HybridRun>& runs);

/// PyPOP's CSV layout (as in its example notebooks): comma-separated, quoted row labels,
/// fractions with 6 decimals, "Runtime (ns)" in exponent notation.
std::string format_pypop_csv(const MetricTable& table);

/// Every OpenMP and hybrid metric of one run, for the JSON report.
nlohmann::json hybrid_json(const metrics::HybridRun& run);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Scaling across a series of traces of one code at different process counts (modelfactors'
// rules: reference = fewest processes, strong or weak scaling detected from instructions).
//
// Example:
//   std::vector<popsim::metrics::TraceSummary> runs = ...;     // any order
//   auto series = popsim::metrics::analyze_series(runs, std::nullopt,
//   SerTransConvention::modelfactors); series.scaling[i].speedup; // runs sorted by process count
#include "metrics/pop_mpi.hpp"
#include "metrics/trace_summary.hpp"

#include <optional>
#include <vector>

namespace popsim::metrics {

enum class ScalingKind { strong, weak };

struct ScalingFactors {
    double computation_scalability = 1;
    double global_efficiency = 0;
    std::optional<double> ipc_scalability;
    std::optional<double> instruction_scalability;
    std::optional<double> frequency_scalability;
    double speedup = 1;
};

struct SeriesAnalysis {
    ScalingKind kind = ScalingKind::strong;
    bool kind_forced = false;
    /// modelfactors' weak-scaling indicator: mean of (I/I_ref)/(P/P_ref) over the other runs; > 0.9
    /// = weak.
    std::optional<double> weak_indicator;
    SerTransConvention convention = SerTransConvention::modelfactors;
    std::vector<TraceSummary> traces; // sorted by process count (stable)
    std::vector<MpiEfficiencies> mpi;
    std::vector<MpiAdditiveEfficiencies> mpi_additive;
    std::vector<ScalingFactors> scaling;
};

SeriesAnalysis analyze_series(std::vector<TraceSummary> traces,
                              std::optional<ScalingKind> forced_kind,
                              SerTransConvention convention);

/// modelfactors' detection rule on its own, for runs sorted by process count.
std::optional<double> weak_scaling_indicator(const std::vector<TraceSummary>& sorted);

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/scaling.hpp"

#include "metrics/ratio.hpp"

#include <algorithm>

namespace popsim::metrics {

namespace {

constexpr double k_weak_threshold = 0.9;

/// The cores a run used: its threads (one per MPI process in an MPI run, as modelfactors counts).
std::uint32_t cores(const TraceSummary& s) {
    return std::max(s.threads, s.processes);
}

std::optional<double> relative(const std::optional<double>& value,
                               const std::optional<double>& ref) {
    if (!value || !ref || *ref == 0) return std::nullopt;
    return *value / *ref;
}

ScalingFactors scaling_of(const TraceSummary& s, const MpiEfficiencies& e, const TraceSummary& ref,
                          const MpiEfficiencies& ref_e, ScalingKind kind) {
    // Weak scaling scales the work with the cores (processes x threads; the process count for
    // MPI runs): the factors take C / C_ref.
    const double load_factor = kind == ScalingKind::weak
                                   ? static_cast<double>(cores(s)) / static_cast<double>(cores(ref))
                                   : 1.0;
    ScalingFactors f;
    const double useful = s.useful_total();
    f.computation_scalability = ratio(ref.useful_total(), useful) * load_factor;
    f.global_efficiency = e.parallel * f.computation_scalability;
    f.ipc_scalability = relative(e.ipc, ref_e.ipc);
    f.frequency_scalability = relative(e.frequency_ghz, ref_e.frequency_ghz);
    if (s.has_counters && ref.has_counters && s.instructions > 0) {
        f.instruction_scalability = static_cast<double>(ref.instructions) /
                                    static_cast<double>(s.instructions) * load_factor;
    }
    f.speedup =
        ratio(static_cast<double>(ref.runtime), static_cast<double>(s.runtime)) * load_factor;
    return f;
}

} // namespace

std::optional<double> weak_scaling_indicator(const std::vector<TraceSummary>& sorted) {
    if (sorted.size() < 2) return std::nullopt;
    const auto& ref = sorted.front();
    if (!ref.has_counters || ref.instructions == 0) return std::nullopt;
    double sum = 0;
    for (const auto& s : sorted) {
        const double ins_ratio =
            static_cast<double>(s.instructions) / static_cast<double>(ref.instructions);
        const double core_ratio = static_cast<double>(cores(s)) / static_cast<double>(cores(ref));
        sum += ins_ratio / core_ratio;
    }
    return (sum - 1.0) / static_cast<double>(sorted.size() - 1);
}

SeriesAnalysis analyze_series(std::vector<TraceSummary> traces,
                              std::optional<ScalingKind> forced_kind,
                              SerTransConvention convention) {
    SeriesAnalysis a;
    a.convention = convention;
    std::stable_sort(
        traces.begin(), traces.end(),
        [](const TraceSummary& x, const TraceSummary& y) { return x.processes < y.processes; });
    a.traces = std::move(traces);
    a.weak_indicator = weak_scaling_indicator(a.traces);
    a.kind_forced = forced_kind.has_value();
    if (forced_kind) {
        a.kind = *forced_kind;
    } else {
        a.kind = a.weak_indicator && *a.weak_indicator > k_weak_threshold ? ScalingKind::weak
                                                                          : ScalingKind::strong;
    }
    for (const auto& s : a.traces) {
        a.mpi.push_back(mpi_multiplicative(s, convention));
        a.mpi_additive.push_back(mpi_additive(s));
    }
    for (std::size_t i = 0; i < a.traces.size(); ++i) {
        a.scaling.push_back(
            scaling_of(a.traces[i], a.mpi[i], a.traces.front(), a.mpi.front(), a.kind));
    }
    return a;
}

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The POP MPI efficiencies of one trace (docs/metrics.md gives every formula and its source).
//
// Example:
//   auto s = popsim::metrics::summarize(popsim::replay::read_paraver("run.prv"));
//   auto e = popsim::metrics::mpi_multiplicative(s,
//   popsim::metrics::SerTransConvention::modelfactors);
//   // e.parallel == e.load_balance * e.communication
#include "metrics/trace_summary.hpp"

#include <optional>

namespace popsim::metrics {

/// How Communication efficiency is split into Serialisation and Transfer (they differ by up to
/// ~0.15 points on real traces; metrics-reference §6.1).
enum class SerTransConvention {
    modelfactors, ///< BSC modelfactors: SerE = max ideal useful / ideal runtime, TE = CommE / SerE
    pop, ///< POP documents, PyPOP, KapitanPOP: TE = ideal runtime / runtime, SerE = CommE / TE
};

/// Multiplicative model: PE = LB x CommE, CommE = start-up x SerE x TE (fractions, 1 = perfect).
struct MpiEfficiencies {
    double parallel = 0;
    double load_balance = 0;
    double communication = 0;
    /// Start-up and shut-down efficiency: (T - S) / T, S the time every task spends starting or
    /// stopping (TraceSummary::startup), which Serialisation and Transfer leave out.
    double startup = 1;
    std::optional<double> serialization; // need the ideal-network replay
    std::optional<double> transfer;
    std::optional<double> ipc; // need hardware counters
    std::optional<double> frequency_ghz;
};

/// Additive model (PyPOP's default MPI_Metrics): 1 - PE = (1 - LB) + (1 - CommE),
/// 1 - CommE = (1 - start-up) + (1 - SerE) + (1 - TE).
struct MpiAdditiveEfficiencies {
    double parallel = 0;
    double load_balance = 0;
    double communication = 0;
    double startup = 1; // 1 - S / T
    std::optional<double> serialization;
    std::optional<double> transfer;
};

MpiEfficiencies mpi_multiplicative(const TraceSummary& s, SerTransConvention convention);
MpiAdditiveEfficiencies mpi_additive(const TraceSummary& s);

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Scaling projections (docs/metrics.md, "Projections"): each factor of a series' efficiency
// hierarchy fitted against the process count and extrapolated to other counts.
//
// modelfactors' fit (BSC basicanalysis, compute_projection): load balance, communication
// efficiency and computation scalability each fitted with Amdahl's law y = x0 / (f + (1 - f) p),
// p the process count, f in [0, 1], by least squares with the first run weighted 100 times the
// others (its sigma 0.1 against 1); parallel efficiency is load balance x communication
// efficiency and global efficiency parallel efficiency x computation scalability, products of the
// fitted curves. popsim also fits a power law (a p^b) and a logarithm (a + b ln p), neither
// allowed to rise, as Amdahl's cannot, and picks per factor the form with the smallest
// leave-one-out error; the range of the leave-one-out fits is each projection's uncertainty.
//
// Example:
//   auto projection = popsim::metrics::project(series, {64, 256, 1024});
//   projection.factors[0].best.values[2]; // load balance at 1024 processes
#include "metrics/scaling.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace popsim::metrics {

enum class FitForm : std::uint8_t { amdahl, power, logarithm };
std::string_view fit_form_name(FitForm form); // "amdahl", "power", "log"

/// y(p) = a / (b + (1 - b) p) (amdahl: a = x0, b = f), a p^b (power) or a + b ln p (logarithm).
struct Fit {
    FitForm form = FitForm::amdahl;
    double a = 0, b = 0;
    double operator()(double processes) const;
};

/// Weighted least squares of `form` through (processes, values).
Fit fit(FitForm form, std::span<const double> processes, std::span<const double> values,
        std::span<const double> weights);

struct FactorProjection {
    std::string name; // "Load balance", ...
    std::vector<double> measured;
    struct Curve {
        Fit fit;                         // empty for the products (parallel, global)
        std::optional<double> loo_error; // RMS leave-one-out error; none below 3 runs
        std::vector<double> values;      // at each projected count
        std::vector<double> low, high;   // the leave-one-out fits' range (values if none)
    };
    Curve modelfactors;   // Amdahl, as modelfactors
    Curve best;           // the form with the smallest leave-one-out error
    bool product = false; // parallel and global efficiency: products of the fitted factors
    /// Whether modelfactors projects this factor (Serialisation and Transfer it does not: their
    /// `modelfactors` curve is the same Amdahl fit, for comparison).
    bool modelfactors_form = true;
};

struct Projection {
    std::vector<double> measured_processes;
    std::vector<std::uint32_t> processes; // projected to
    /// Parallel efficiency, load balance, communication efficiency, serialisation and transfer
    /// efficiency (when every run was replayed on the ideal network), computation scalability,
    /// global efficiency.
    std::vector<FactorProjection> factors;
};

/// Needs runs at two process counts at least (std::invalid_argument otherwise).
Projection project(const SeriesAnalysis& series, std::span<const std::uint32_t> processes);

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/projection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace popsim::metrics {

namespace {

/// For a given f, Amdahl's best x0 (the model is linear in it) and the weighted squared error.
std::pair<double, double> amdahl_at(double f, std::span<const double> p, std::span<const double> y,
                                    std::span<const double> w) {
    double yg = 0, gg = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double g = 1 / (f + (1 - f) * p[i]);
        yg += w[i] * y[i] * g;
        gg += w[i] * g * g;
    }
    const double x0 = yg / gg;
    double error = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double r = y[i] - x0 / (f + (1 - f) * p[i]);
        error += w[i] * r * r;
    }
    return {x0, error};
}

/// Amdahl's f on [0, 1]: the best of a fine grid, refined by golden-section search around it.
Fit fit_amdahl(std::span<const double> p, std::span<const double> y, std::span<const double> w) {
    constexpr int k_grid = 10000;
    int best = 0;
    double least = std::numeric_limits<double>::infinity();
    for (int k = 0; k <= k_grid; ++k) {
        const double e = amdahl_at(static_cast<double>(k) / k_grid, p, y, w).second;
        if (e < least) {
            least = e;
            best = k;
        }
    }
    double lo = std::max(0, best - 1) / double{k_grid},
           hi = std::min(k_grid, best + 1) / double{k_grid};
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    while (hi - lo > 1e-15) {
        const double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
        if (amdahl_at(m1, p, y, w).second <= amdahl_at(m2, p, y, w).second)
            hi = m2;
        else
            lo = m1;
    }
    const double f = (lo + hi) / 2;
    return {FitForm::amdahl, amdahl_at(f, p, y, w).first, f};
}

/// Weighted least squares of v = a + b u; a flat line at the weighted mean where b would be > 0
/// (a factor's curve does not rise, as Amdahl's cannot).
std::pair<double, double> falling_line(std::span<const double> u, std::span<const double> v,
                                       std::span<const double> w) {
    double sw = 0, su = 0, sv = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        sw += w[i];
        su += w[i] * u[i];
        sv += w[i] * v[i];
    }
    const double mu = su / sw, mv = sv / sw;
    double suv = 0, suu = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        suv += w[i] * (u[i] - mu) * (v[i] - mv);
        suu += w[i] * (u[i] - mu) * (u[i] - mu);
    }
    const double b = suu == 0 ? 0 : std::min(0.0, suv / suu);
    return {mv - b * mu, b};
}

} // namespace

std::string_view fit_form_name(FitForm form) {
    switch (form) {
    case FitForm::amdahl:
        return "amdahl";
    case FitForm::power:
        return "power";
    case FitForm::logarithm:
        return "log";
    }
    return "";
}

double Fit::operator()(double processes) const {
    switch (form) {
    case FitForm::amdahl:
        return a / (b + (1 - b) * processes);
    case FitForm::power:
        return a * std::pow(processes, b);
    case FitForm::logarithm:
        return a + b * std::log(processes);
    }
    return 0;
}

Fit fit(FitForm form, std::span<const double> processes, std::span<const double> values,
        std::span<const double> weights) {
    std::vector<double> log_p(processes.size());
    std::transform(processes.begin(), processes.end(), log_p.begin(),
                   [](double p) { return std::log(p); });
    switch (form) {
    case FitForm::amdahl:
        return fit_amdahl(processes, values, weights);
    case FitForm::power: {
        std::vector<double> log_v(values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            log_v[i] = std::log(std::max(values[i], 1e-300)); // a factor of 0 stays near it
        const auto [a, b] = falling_line(log_p, log_v, weights);
        return {FitForm::power, std::exp(a), b};
    }
    case FitForm::logarithm: {
        const auto [a, b] = falling_line(log_p, values, weights);
        return {FitForm::logarithm, a, b};
    }
    }
    return {};
}

namespace {

/// The first run weighs 100 times the others (modelfactors: sigma 0.1 against 1).
std::vector<double> weights_for(std::size_t runs, bool first_kept) {
    std::vector<double> w(runs, 1.0);
    if (first_kept && runs > 0) w[0] = 100;
    return w;
}

FactorProjection::Curve curve(FitForm form, std::span<const double> p, std::span<const double> y,
                              std::span<const std::uint32_t> to) {
    FactorProjection::Curve c;
    c.fit = fit(form, p, y, weights_for(p.size(), true));
    for (const auto n : to) c.values.push_back(c.fit(n));
    c.low = c.high = c.values;
    if (p.size() < 3) return c;
    double squares = 0;
    for (std::size_t out = 0; out < p.size(); ++out) { // leave run `out` out
        std::vector<double> kept_p, kept_y;
        for (std::size_t i = 0; i < p.size(); ++i) {
            if (i == out) continue;
            kept_p.push_back(p[i]);
            kept_y.push_back(y[i]);
        }
        const auto left = fit(form, kept_p, kept_y, weights_for(kept_p.size(), out != 0));
        const double r = y[out] - left(p[out]);
        squares += r * r;
        for (std::size_t k = 0; k < to.size(); ++k) {
            c.low[k] = std::min(c.low[k], left(to[k]));
            c.high[k] = std::max(c.high[k], left(to[k]));
        }
    }
    c.loo_error = std::sqrt(squares / static_cast<double>(p.size()));
    return c;
}

FactorProjection fitted(std::string name, std::span<const double> p, std::vector<double> y,
                        std::span<const std::uint32_t> to) {
    FactorProjection f;
    f.name = std::move(name);
    f.measured = std::move(y);
    f.modelfactors = curve(FitForm::amdahl, p, f.measured, to);
    f.best = f.modelfactors;
    for (const auto form : {FitForm::power, FitForm::logarithm}) {
        auto c = curve(form, p, f.measured, to);
        if (c.loo_error && f.best.loo_error && *c.loo_error < *f.best.loo_error) f.best = c;
    }
    return f;
}

/// a x b, point by point (the ranges too: every factor is positive).
FactorProjection::Curve times(const FactorProjection::Curve& a, const FactorProjection::Curve& b) {
    FactorProjection::Curve c;
    for (std::size_t k = 0; k < a.values.size(); ++k) {
        c.values.push_back(a.values[k] * b.values[k]);
        c.low.push_back(a.low[k] * b.low[k]);
        c.high.push_back(a.high[k] * b.high[k]);
    }
    return c;
}

FactorProjection product(std::string name, std::vector<double> measured, const FactorProjection& a,
                         const FactorProjection& b) {
    FactorProjection f;
    f.name = std::move(name);
    f.measured = std::move(measured);
    f.product = true;
    f.modelfactors = times(a.modelfactors, b.modelfactors);
    f.best = times(a.best, b.best);
    return f;
}

} // namespace

Projection project(const SeriesAnalysis& series, std::span<const std::uint32_t> processes) {
    Projection out;
    out.processes.assign(processes.begin(), processes.end());
    std::vector<double> load, comm, comp, parallel, global, serialization, transfer;
    bool replayed = true; // Serialisation and Transfer need the ideal replay of every run
    for (std::size_t i = 0; i < series.traces.size(); ++i) {
        out.measured_processes.push_back(series.traces[i].processes);
        load.push_back(series.mpi[i].load_balance);
        comm.push_back(series.mpi[i].communication);
        comp.push_back(series.scaling[i].computation_scalability);
        parallel.push_back(series.mpi[i].parallel);
        global.push_back(series.scaling[i].global_efficiency);
        replayed = replayed && series.mpi[i].serialization && series.mpi[i].transfer;
        serialization.push_back(series.mpi[i].serialization.value_or(0));
        transfer.push_back(series.mpi[i].transfer.value_or(0));
    }
    auto counts = out.measured_processes;
    std::sort(counts.begin(), counts.end());
    if (std::unique(counts.begin(), counts.end()) - counts.begin() < 2)
        throw std::invalid_argument(
            "--project fits the factors against the process count: give runs at two process "
            "counts at least");
    const auto& p = out.measured_processes;
    auto l = fitted("Load balance", p, load, processes);
    auto c = fitted("Communication efficiency", p, comm, processes);
    auto s = fitted("Computation scalability", p, comp, processes);
    auto pe = product("Parallel efficiency", parallel, l, c);
    auto ge = product("Global efficiency", global, pe, s);
    out.factors = {std::move(pe), std::move(l), std::move(c)};
    if (replayed) { // fitted on their own: modelfactors fits Communication efficiency only
        out.factors.push_back(fitted("Serialisation efficiency", p, serialization, processes));
        out.factors.push_back(fitted("Transfer efficiency", p, transfer, processes));
        out.factors[3].modelfactors_form = out.factors[4].modelfactors_form = false;
    }
    out.factors.push_back(std::move(s));
    out.factors.push_back(std::move(ge));
    return out;
}

} // namespace popsim::metrics

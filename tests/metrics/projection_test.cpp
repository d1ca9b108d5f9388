// SPDX-License-Identifier: BSD-3-Clause
// Scaling projections against modelfactors' own: BSC basicanalysis' compute_projection (SciPy's
// curve_fit of Amdahl's law, the first run's sigma 0.1) run on the published epoch model factors
// (../shared/data/epoch/published_modelfactors.csv, 1-8 processes) gives, at 32, 64, 256 and 1024
// processes, the values below (SciPy 1.10.1, which stops within 1e-8 of the minimum: 2e-5 of
// tolerance at 1024 processes).
#include "metrics/projection.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <vector>

using namespace popsim::metrics;

namespace {

const std::vector<double> k_processes{1, 2, 4, 8};
const std::vector<double> k_first_weighted{100, 1, 1, 1};
const std::vector<std::uint32_t> k_to{32, 64, 256, 1024};

void check_projection(const std::vector<double>& measured, const std::vector<double>& expected) {
    const auto f = fit(FitForm::amdahl, k_processes, measured, k_first_weighted);
    for (std::size_t k = 0; k < k_to.size(); ++k) {
        CAPTURE(k_to[k]);
        CHECK(f(k_to[k]) == doctest::Approx(expected[k]).epsilon(2e-5));
    }
}

} // namespace

TEST_CASE("projection: Amdahl fits as modelfactors' on epoch's published factors") {
    // Load balance, communication efficiency and computation scalability (in %).
    check_projection({100.0, 99.760930, 98.687584, 98.280683},
                     {92.01921224, 85.01717851, 58.36850875, 25.89780189});
    check_projection({99.925583, 99.616405, 98.644580, 97.382042},
                     {89.35781969, 80.56309703, 50.6517795, 20.38208635});
    check_projection({100.0, 95.500319, 92.390414, 81.340933},
                     {50.17709151, 33.1361235, 10.90829728, 2.96162476});
    const auto load = fit(FitForm::amdahl, k_processes,
                          std::vector{100.0, 99.760930, 98.687584, 98.280683}, k_first_weighted);
    CHECK(load.a == doctest::Approx(99.99767311720771).epsilon(1e-7));
    CHECK(load.b == doctest::Approx(0.9972030872728913).epsilon(1e-7));
}

TEST_CASE("projection: the other forms are exact on their own curves and never rise") {
    const std::vector<double> p{1, 2, 4, 8, 16}, w{100, 1, 1, 1, 1};
    std::vector<double> power, logarithm, rising;
    for (const double x : p) {
        power.push_back(0.9 * std::pow(x, -0.1));
        logarithm.push_back(1 - 0.05 * std::log(x));
        rising.push_back(0.5 + 0.01 * x);
    }
    const auto pw = fit(FitForm::power, p, power, w);
    CHECK(pw.a == doctest::Approx(0.9));
    CHECK(pw.b == doctest::Approx(-0.1));
    const auto lg = fit(FitForm::logarithm, p, logarithm, w);
    CHECK(lg.a == doctest::Approx(1.0));
    CHECK(lg.b == doctest::Approx(-0.05));
    // Rising data: a flat line (modelfactors bounds Amdahl's f to [0, 1] for the same reason).
    CHECK(fit(FitForm::logarithm, p, rising, w).b == 0);
    CHECK(fit(FitForm::power, p, rising, w).b == 0);
    const auto amdahl = fit(FitForm::amdahl, p, rising, w);
    CHECK(amdahl(1024) <= amdahl(1) + 1e-12);
}

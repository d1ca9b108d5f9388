// SPDX-License-Identifier: BSD-3-Clause
// The worked examples of the POP documents (metrics-reference.md §3), built as synthetic traces
// and checked against the published, hand-computed values.
#include "metrics/pop_mpi.hpp"
#include "metrics/scaling.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace popsim;

namespace {
metrics::TraceSummary summary_of(const std::string& name, const std::string& description) {
    return metrics::summarize(test::read_quiet(test::synth_trace(name, description)));
}

// S1 §3.1: P0 useful 8 s + MPI 4 s, P1 useful 6 s + MPI 6 s.
const char* k_seed_mpi = R"(ranks 2
0 compute 8s
0 Barrier 4s
1 compute 6s
1 Barrier 6s
)";
} // namespace

TEST_CASE("seed MPI example: multiplicative and additive efficiencies (S1 3.1)") {
    auto s = summary_of("seed_mpi", k_seed_mpi);
    CHECK(s.runtime == 12 * k_ns_per_s);
    const auto m = metrics::mpi_multiplicative(s, metrics::SerTransConvention::modelfactors);
    CHECK(m.parallel == doctest::Approx(0.58333).epsilon(5e-4));
    CHECK(m.communication == doctest::Approx(0.66667).epsilon(5e-4));
    CHECK(m.load_balance == doctest::Approx(0.875).epsilon(5e-4));
    const auto a = metrics::mpi_additive(s);
    CHECK(a.parallel == doctest::Approx(0.58333).epsilon(5e-4));
    CHECK(a.load_balance == doctest::Approx(0.91667).epsilon(5e-4));
    CHECK(a.communication == doctest::Approx(0.66667).epsilon(5e-4));

    SUBCASE("with the published ideal runtime of 9 s") {
        s.ideal = metrics::IdealRun{9 * k_ns_per_s, 8 * k_ns_per_s, {}, {}, {}};
        const auto add = metrics::mpi_additive(s);
        CHECK(*add.transfer == doctest::Approx(0.75));
        CHECK(*add.serialization == doctest::Approx(0.91667).epsilon(5e-4));
        const auto mf = metrics::mpi_multiplicative(s, metrics::SerTransConvention::modelfactors);
        CHECK(*mf.serialization == doctest::Approx(0.88889).epsilon(5e-4));
        CHECK(*mf.transfer == doctest::Approx(0.75));
        const auto pop = metrics::mpi_multiplicative(s, metrics::SerTransConvention::pop);
        CHECK(*pop.transfer == doctest::Approx(0.75));
        CHECK(*pop.serialization == doctest::Approx(0.88889).epsilon(5e-4));
    }
}

TEST_CASE("seed: one process without MPI has every efficiency 1 (3.7)") {
    const auto s = summary_of("seed_serial", "ranks 1\n0 compute 5s\n");
    const auto m = metrics::mpi_multiplicative(s, metrics::SerTransConvention::modelfactors);
    CHECK(m.parallel == 1.0);
    CHECK(m.load_balance == 1.0);
    CHECK(m.communication == 1.0);
}

TEST_CASE("seed: mpiP example of the 3-numbers webinar (3.4)") {
    // AppTime 15.3 s on 8 ranks, MPI {1.02, 0.293, 0.607, 0.239, 0.873, 1.01, 0.646, 1.68} s.
    const double mpi[] = {1.02, 0.293, 0.607, 0.239, 0.873, 1.01, 0.646, 1.68};
    std::string d = "ranks 8\n";
    for (int r = 0; r < 8; ++r) {
        d += std::to_string(r) + " compute " +
             std::to_string(static_cast<long>((15.3 - mpi[r]) * 1e9 + 0.5)) + "ns\n";
        d += std::to_string(r) + " Allreduce " +
             std::to_string(static_cast<long>(mpi[r] * 1e9 + 0.5)) + "ns\n";
    }
    const auto m = metrics::mpi_multiplicative(summary_of("seed_mpip", d),
                                               metrics::SerTransConvention::modelfactors);
    CHECK(
        m.load_balance ==
        doctest::Approx(14.504 / 15.061).epsilon(1e-6)); // the reference note rounds it to 0.96304
    CHECK(m.communication == doctest::Approx(0.98438).epsilon(1e-5));
    CHECK(m.parallel == doctest::Approx(0.94797).epsilon(1e-5));
}

TEST_CASE("seed: weak scaling detection and factors (3.7)") {
    // P = {2, 4}, total instructions {1e9, 2e9}, total useful {2, 4} s, runtime {1, 1.1} s.
    auto a = summary_of("weak2", "ranks 2\n0 compute 1s ins=500000000 cyc=1000000000\n1 compute 1s "
                                 "ins=500000000 cyc=1000000000\n");
    auto b = summary_of("weak4", "ranks 4\n0 compute 1s ins=500000000 cyc=1000000000\n1 compute 1s "
                                 "ins=500000000 cyc=1000000000\n"
                                 "2 compute 1s ins=500000000 cyc=1000000000\n3 compute 1s "
                                 "ins=500000000 cyc=1000000000\nend 1.1s\n");
    const auto series =
        metrics::analyze_series({b, a}, std::nullopt, metrics::SerTransConvention::modelfactors);
    REQUIRE(series.weak_indicator);
    CHECK(*series.weak_indicator == doctest::Approx(1.0));
    CHECK(series.kind == metrics::ScalingKind::weak);
    CHECK(series.traces[0].processes == 2);
    CHECK(*series.scaling[1].instruction_scalability == doctest::Approx(1.0));
    CHECK(series.scaling[1].computation_scalability == doctest::Approx(1.0));
    CHECK(series.scaling[1].speedup == doctest::Approx(1.8182).epsilon(1e-4));
    const auto strong = metrics::analyze_series({a, b}, metrics::ScalingKind::strong,
                                                metrics::SerTransConvention::modelfactors);
    CHECK(strong.scaling[1].speedup == doctest::Approx(1 / 1.1));
}

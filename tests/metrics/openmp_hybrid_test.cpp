// SPDX-License-Identifier: BSD-3-Clause
// OpenMP and hybrid models: the seed documents' worked examples as synthetic traces, hand-computed
// hybrid cases, and PyPOP's published numbers on the ImageMagick OpenMP traces.
#include "metrics/ideal_replay.hpp"
#include "metrics/pop_openmp.hpp"
#include "metrics/streaming_analysis.hpp"
#include "simulator/reports/hybrid_tables.hpp"
#include "test_support.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <sstream>

using namespace popsim;

namespace {
metrics::HybridRun run_of(const std::string& name, const std::string& description,
                          bool with_ideal = false) {
    const auto trace = test::read_quiet(test::synth_trace(name, description));
    auto run = metrics::hybrid_run(trace);
    if (with_ideal) run.ideal = metrics::ideal_run(trace, {});
    return run;
}

// S1 multiplicative example (§3.3): 3 processes x 2 threads; masters compute 10, 8, 6 s in a
// parallel region (workers 9, 7, 5 s), then an Allreduce until T = 12 s.
std::string multiplicative_example() {
    std::string d = "ranks 3 threads 2\n";
    const int master[] = {10, 8, 6}, worker[] = {9, 7, 5};
    for (int p = 0; p < 3; ++p) {
        const auto r = std::to_string(p);
        d += r + ".0 event 60000001 1\n" + r + ".0 compute " + std::to_string(master[p]) + "s\n" +
             r + ".0 event 60000001 0\n";
        d += r + ".0 Allreduce " + std::to_string(12 - master[p]) + "s size=8\n";
        d += r + ".1 event 60000018 1\n" + r + ".1 compute " + std::to_string(worker[p]) + "s\n" +
             r + ".1 state 5 " + std::to_string(master[p] - worker[p]) + "s\n" + r +
             ".1 event 60000018 0\n";
    }
    return d;
}
} // namespace

TEST_CASE("openmp: the S1 OpenMP example (75 % / 83.3 %)") {
    const auto run = run_of("omp_example", test::k_omp_example);
    CHECK(run.runtime == 16 * k_ns_per_s);
    const auto e = metrics::openmp_efficiencies(run);
    CHECK(e.omp_region == doctest::Approx(0.75));         // 1 - (12 - 8) / 16
    CHECK(e.serial_region == doctest::Approx(5.0 / 6.0)); // 1 - 4 * (2/3) / 16
    CHECK(e.parallel == doctest::Approx(28.0 / 48.0));    // (13 + 9 + 6) / 3 / 16
    const auto a = metrics::hybrid_additive(run);
    CHECK(a.thread == doctest::Approx(0.75 + 5.0 / 6.0 - 1)); // = 0.5833
    CHECK(a.process == doctest::Approx(1.0)); // no MPI: the process never leaves useful/OpenMP time
    CHECK(a.parallel == doctest::Approx(a.process + a.thread - 1));
}

TEST_CASE("openmp: TALP's split of idle time on the S1 OpenMP example") {
    // CPU time: useful 28 s; workers idle outside the region 2 x 4 s = 8 s (serialisation); in the
    // region idle = 3, 3, 6 s: load imbalance (0 + 0 + 3) = 3 s, scheduling 3 x 3 = 9 s. Total 48
    // s.
    const auto t = metrics::talp(run_of("omp_example_talp", test::k_omp_example));
    CHECK(t.parallel == doctest::Approx(28.0 / 48.0));
    CHECK(t.omp_serialization == doctest::Approx(28.0 / 36.0));
    CHECK(t.omp_load_balance == doctest::Approx(36.0 / 39.0));
    CHECK(t.omp_scheduling == doctest::Approx(39.0 / 48.0));
    CHECK(t.omp_parallel ==
          doctest::Approx(t.omp_serialization * t.omp_load_balance * t.omp_scheduling));
    CHECK(t.mpi_parallel == doctest::Approx(1.0)); // no MPI
}

// DLB's functional test tests/functional/talp/hybrid (test_hybrid.c, test_hybrid.py), one
// repetition of its "Test" region, 2 ranks x 2 threads: both masters compute 0.5 s serially, then
// a parallel region (rank 0: 1 s, the worker computes 0.5 s and waits 0.5 s in the barrier;
// rank 1: 0.5 s, the worker 0.25 + 0.25 s); rank 1's master then waits 0.5 s in MPI_Recv for
// rank 0, and both exchange at 1.5 s. DLB expects PE 0.54, MPI PE 0.83, MPI comm 1.00, MPI LB
// 0.83, OpenMP PE 0.625, LB 0.875, serialisation 0.71, scheduling 0.99 (+-0.02): useful 3.25 s,
// serialisation 1.5 s (the workers outside regions, also while rank 1's master waits in MPI).
const char* k_dlb_talp_hybrid = R"(ranks 2 threads 2
0.0 compute 500ms
0.0 event 60000001 1
0.0 compute 1s
0.0 event 60000001 0
0.0 Send 1us to=1 size=8
0.0 Recv 1us from=1 size=8
0.1 at 500ms
0.1 event 60000018 1
0.1 compute 500ms
0.1 state 5 500ms
0.1 event 60000018 0
1.0 compute 500ms
1.0 event 60000001 1
1.0 compute 500ms
1.0 event 60000001 0
1.0 Recv 500ms from=0 size=8
1.0 Send 1us to=0 size=8
1.1 at 500ms
1.1 event 60000018 1
1.1 compute 250ms
1.1 state 5 250ms
1.1 event 60000018 0
)";

TEST_CASE("TALP: DLB's functional test talp/hybrid gives DLB's numbers") {
    const auto t = metrics::talp(run_of("dlb_talp_hybrid", k_dlb_talp_hybrid));
    const auto dlb = [](double expected) {
        return doctest::Approx(expected).epsilon(0.02 / expected);
    };
    CHECK(t.parallel == dlb(0.54));
    CHECK(t.mpi_parallel == dlb(0.83));
    CHECK(t.mpi_communication == dlb(1.00));
    CHECK(t.mpi_load_balance == dlb(0.83));
    CHECK(t.omp_parallel == dlb(0.625));
    CHECK(t.omp_load_balance == dlb(0.875));
    CHECK(t.omp_serialization == dlb(0.71));
    CHECK(t.omp_scheduling == dlb(0.99));
    // The hand computation of the numbers DLB rounds: 3.25 / 6 and 3.75 / 5.25.
    CHECK(t.parallel == doctest::Approx(3.25 / 6.0).epsilon(1e-4));
    CHECK(t.omp_serialization == doctest::Approx(3.75 / 5.25).epsilon(1e-4));
}

// DLB's functional test tests/functional/talp/mpi (test_mpi.c, test_mpi.py), one repetition, 2
// ranks: rank 0 computes 1 s, sends, and waits for the reply; rank 1 computes 0.5 s, waits 0.5 s
// in MPI_Recv, computes 1 s and replies at 2 s. DLB expects elapsed 2 s, useful 2.5 s, MPI 1.5 s,
// MPI PE 0.625, MPI communication 0.75, MPI LB 0.83 (+-0.02).
const char* k_dlb_talp_mpi = R"(ranks 2
0.0 compute 1s
0.0 Send 1us to=1 size=4
0.0 Recv 1000001us from=1 size=4
1.0 compute 500ms
1.0 Recv 500001us from=0 size=4
1.0 compute 1s
1.0 Send 1us to=0 size=4
)";

// DLB's functional test tests/functional/talp/omp (test_omp.c, test_omp.py), one repetition, 1
// process x 4 threads: the master computes 1 s serially; in the parallel region thread k computes
// 1 - 0.25 k s and waits at a barrier for thread 0, then each runs a quarter of a 100 x 5 ms
// dynamic loop (125 ms). DLB expects OpenMP PE 0.48, LB 0.83, serialisation 0.58, scheduling
// 0.99 (+-0.02); useful 4 s, serialisation 3 s, load imbalance 1.5 s, elapsed 2.1 s.
std::string dlb_talp_omp() {
    std::string d = "ranks 1 threads 4\n0.0 compute 1s\n0.0 event 60000001 1\n0.0 compute 1125ms\n"
                    "0.0 event 60000001 0\n";
    for (int k = 1; k < 4; ++k) {
        const auto t = "0." + std::to_string(k);
        d += t + " at 1s\n" + t + " event 60000018 1\n" + t + " compute " +
             std::to_string(1000 - 250 * k) + "ms\n" + t + " state 5 " + std::to_string(250 * k) +
             "ms\n" + t + " compute 125ms\n" + t + " event 60000018 0\n";
    }
    return d;
}

TEST_CASE("TALP: DLB's functional tests talp/mpi and talp/omp give DLB's numbers") {
    const auto dlb = [](double expected) {
        return doctest::Approx(expected).epsilon(0.02 / expected);
    };
    const auto mpi = metrics::talp(run_of("dlb_talp_mpi", k_dlb_talp_mpi));
    CHECK(mpi.mpi_parallel == dlb(0.625));
    CHECK(mpi.mpi_communication == dlb(0.75));
    CHECK(mpi.mpi_load_balance == dlb(0.83));
    CHECK(mpi.omp_parallel == 1.0); // one thread per process: no OpenMP inefficiency
    // By hand: useful 2.5 s and MPI 1.5 s (+ 4 us) over 2 CPUs x 2.000002 s; rank 1 waits least.
    CHECK(mpi.mpi_parallel == doctest::Approx(2.5 / 4.000004).epsilon(1e-9));
    CHECK(mpi.mpi_communication == doctest::Approx(1.5 / 2.000002).epsilon(1e-9));

    const auto omp = metrics::talp(run_of("dlb_talp_omp", dlb_talp_omp()));
    CHECK(omp.omp_parallel == dlb(0.48));
    CHECK(omp.omp_load_balance == dlb(0.83));
    CHECK(omp.omp_serialization == dlb(0.58));
    CHECK(omp.omp_scheduling == dlb(0.99));
    CHECK(omp.mpi_parallel == 1.0); // no MPI
    // By hand, on 4 CPUs x 2.125 s = 8.5 s: useful 4 s, serialisation 3 s, imbalance 1.5 s, and
    // no scheduling loss (the synthetic loop splits evenly; DLB measures a few ms).
    CHECK(omp.omp_serialization == doctest::Approx(4.0 / 7.0));
    CHECK(omp.omp_load_balance == doctest::Approx(7.0 / 8.5));
    CHECK(omp.omp_parallel == doctest::Approx(4.0 / 8.5));
    CHECK(omp.parallel == doctest::Approx(4.0 / 8.5));
}

// Issue 34, item 1, in the hybrid models: 2 ranks x 2 threads spend 3 s in MPI_Init (as Score-P
// records it), then a parallel region (rank 0: 1 s, rank 1: 0.5 s), an Allreduce and
// MPI_Finalize. T = 4.000002 s, of which S = 3.000001 s is start-up and shut-down; the ideal run
// takes 1 s.
const char* k_hybrid_long_init = R"(ranks 2 threads 2
0.0 Init 3s
0.0 event 60000001 1
0.0 compute 1s
0.0 event 60000001 0
0.0 Allreduce 1us size=8
0.0 Finalize 1us
0.1 at 3s
0.1 event 60000018 1
0.1 compute 1s
0.1 event 60000018 0
1.0 Init 3s
1.0 event 60000001 1
1.0 compute 500ms
1.0 event 60000001 0
1.0 Allreduce 500001us size=8
1.0 Finalize 1us
1.1 at 3s
1.1 event 60000018 1
1.1 compute 500ms
1.1 event 60000018 0
)";

TEST_CASE("hybrid: start-up and shut-down stay out of MPI transfer, and out of TALP") {
    const auto run = run_of("hybrid_long_init", k_hybrid_long_init, true);
    const double T = 4.000002, S = 3.000001;
    REQUIRE(run.runtime == 4000002000);
    REQUIRE(run.ideal->runtime == 1000000000);
    CHECK(run.startup.traced == 3000001000);
    // Multiplicative: CommE 1/T = start-up (T - S)/T x SerE x TE, TE = (1 s - 0) / (T - S).
    const auto m = metrics::hybrid_multiplicative(run);
    CHECK(m.mpi_communication == doctest::Approx(1 / T));
    CHECK(m.mpi_startup == doctest::Approx((T - S) / T));
    CHECK(*m.mpi_transfer == doctest::Approx(1 / (T - S)));
    CHECK(*m.mpi_serialization == doctest::Approx(1.0));
    // Additive: 1 - CommE = (1 - start-up) + (1 - SerE) + (1 - TE). Per process (S0), the MPI
    // time without MPI_Init and MPI_Finalize: rank 0's Allreduce of 1 us is the least; the ideal
    // run's least is 0.
    const auto a = metrics::hybrid_additive(run);
    CHECK(a.process_startup == doctest::Approx(1 - S / T));
    CHECK(*a.process_transfer == doctest::Approx((T - 1e-6) / T));
    CHECK(*a.process_serialization == doctest::Approx(1.0));
    CHECK(*a.process_transfer_s1 == doctest::Approx(1 - (T - S - 1) / T));
    CHECK(*a.process_serialization_s1 == doctest::Approx(1.0));
    CHECK((1 - a.process_startup) + (1 - *a.process_serialization_s1) +
              (1 - *a.process_transfer_s1) ==
          doctest::Approx(1 - a.process_communication));
    // TALP, from the end of MPI_Init to the start of MPI_Finalize (E = 1.000001 s): useful 3 s;
    // MPI 0.500002 s plus as much worker idle; serialisation 1 us + 0.500001 s.
    const auto t = metrics::talp(run);
    const double E = T - S, mpi = 0.500002;
    CHECK(t.parallel == doctest::Approx(3 / (3 + mpi + 0.500002)));
    CHECK(t.omp_serialization == doctest::Approx((3 + mpi) / (3 + mpi + 0.500002)));
    CHECK(t.mpi_parallel == doctest::Approx((E - 2 * mpi / 4) / E));
    CHECK(t.mpi_communication == doctest::Approx((E - 1e-6) / E)); // rank 0: 2 x 1 us / 2 CPUs
}

TEST_CASE("TALP: a process without MPI time is left out of the communication minimum, as DLB") {
    // DLB's min_double_non_zero (perf_metrics.c): rank 2 never calls MPI, so the least MPI time
    // per CPU is rank 1's 0.2 s, not 0. E = 1.2 s; MPI 0.9 s on 3 CPUs.
    const auto t = metrics::talp(run_of("talp_no_mpi_rank", R"(ranks 3
0.0 compute 500ms
0.0 Recv 700ms from=1 size=8
1.0 compute 1s
1.0 Send 200ms to=0 size=8
2.0 compute 1200ms
)"));
    CHECK(t.mpi_communication == doctest::Approx(1.0 / 1.2));
    CHECK(t.mpi_parallel == doctest::Approx(0.9 / 1.2));
    CHECK(t.mpi_load_balance == doctest::Approx(0.9));
}

TEST_CASE(
    "hybrid: the S1 multiplicative example (66.7 / 80 / 83.3 % and 62.5 / 75 / 83.3 / 93.8 %)") {
    const auto run = run_of("mult_example", multiplicative_example(), true);
    CHECK(run.runtime == 12 * k_ns_per_s);
    REQUIRE(run.ideal);
    CHECK(run.ideal->runtime == 10 * k_ns_per_s); // the Allreduce waits for the 10 s process only
    const auto m = metrics::hybrid_multiplicative(run);
    CHECK(m.mpi_parallel == doctest::Approx(8.0 / 12));
    CHECK(m.mpi_load_balance == doctest::Approx(0.8));
    CHECK(m.mpi_communication == doctest::Approx(10.0 / 12));
    CHECK(*m.mpi_transfer == doctest::Approx(10.0 / 12));
    CHECK(*m.mpi_serialization == doctest::Approx(1.0));
    CHECK(m.hybrid_parallel == doctest::Approx(0.625));
    CHECK(m.hybrid_load_balance == doctest::Approx(0.75));
    CHECK(m.hybrid_communication == doctest::Approx(10.0 / 12));
    CHECK(m.omp_parallel == doctest::Approx(0.9375));
    CHECK(m.omp_load_balance == doctest::Approx(0.9375));
    CHECK(m.omp_communication == doctest::Approx(1.0));
}

TEST_CASE("hybrid: Process transfer and serialisation with MPI outside and inside OpenMP (S0)") {
    // Rank 0: parallel region 0-4 s (master and worker compute 4 s), Allreduce 4-7 s, compute 5 s.
    // Rank 1: parallel region 0-6 s; its master computes 2 s, calls MPI_Iprobe for 0.5 s inside
    // the region, computes 3.5 s; worker computes 6 s; Allreduce 6-7 s, compute 5 s. T = 12 s.
    // Real MPI outside OpenMP: rank 0 = 3 s, rank 1 = 1 s (its Iprobe is inside the region): min 1
    // s. Ideal: rank 1's master reaches the join after 5.5 s, but its worker computes 6 s, so the
    // region still ends at 6 s (the Iprobe overlapped the worker's work); rank 0 reaches the
    // Allreduce at 4 s: both leave at 6 s, then 5 s: T_id = 11 s. Ideal MPI outside OpenMP:
    // rank 0 = 2 s, rank 1 = 0: min 0.
    // S0: transfer = (12 - 1 + 0) / 12, serialisation = (12 - 0) / 12. S1: transfer = 11 / 12.
    const auto run = run_of("hybrid_s0", R"(ranks 2 threads 2
0.0 event 60000001 1
0.0 compute 4s
0.0 event 60000001 0
0.0 Allreduce 3s size=8
0.0 compute 5s
0.1 event 60000018 1
0.1 compute 4s
0.1 event 60000018 0
1.0 event 60000001 1
1.0 compute 2s
1.0 Iprobe 500ms
1.0 compute 3500ms
1.0 event 60000001 0
1.0 Allreduce 1s size=8
1.0 compute 5s
1.1 event 60000018 1
1.1 compute 6s
1.1 event 60000018 0
)",
                            true);
    CHECK(run.threads[run.master[1]].mpi_outside_omp == 1 * k_ns_per_s);
    CHECK(run.threads[run.master[1]].mpi == 1500 * k_ns_per_ms);
    REQUIRE(run.ideal);
    CHECK(run.ideal->runtime == 11 * k_ns_per_s);
    CHECK(run.ideal->task_mpi_outside_omp[0] == 2 * k_ns_per_s);
    CHECK(run.ideal->task_mpi_outside_omp[1] == 0);
    const auto a = metrics::hybrid_additive(run);
    CHECK(*a.process_transfer == doctest::Approx(11.0 / 12));
    CHECK(*a.process_serialization == doctest::Approx(1.0));
    CHECK(*a.process_transfer_s1 == doctest::Approx(11.0 / 12));
    // Process communication = max non-MPI / T: rank 1's master has 5 s serial + 6 s region = 11 s.
    CHECK(a.process_communication == doctest::Approx(11.0 / 12));
}

TEST_CASE("hybrid: pure MPI and pure OpenMP traces give finite values") {
    const auto mpi =
        run_of("pure_mpi", "ranks 2\n0 compute 1s\n0 Barrier 1s\n1 compute 2s\n1 Barrier 0s\n");
    const auto e = metrics::openmp_efficiencies(mpi);
    CHECK(e.serial_region == 1.0);
    CHECK(e.omp_region == 1.0);
    const auto t = metrics::talp(mpi);
    for (double v : {t.parallel, t.mpi_parallel, t.mpi_communication, t.mpi_load_balance,
                     t.omp_parallel, t.omp_serialization, t.omp_load_balance, t.omp_scheduling})
        CHECK(std::isfinite(v));
    const auto m = metrics::hybrid_multiplicative(run_of("pure_omp", test::k_omp_example));
    CHECK(m.omp_parallel == doctest::Approx(m.hybrid_parallel / m.mpi_parallel));
    CHECK(std::isfinite(m.omp_load_balance));
}

namespace {
/// The series' table against PyPOP's published one, to 0.01 (its tolerance).
void check_published_pypop(const std::vector<metrics::HybridRun>& runs) {
    const auto csv =
        simulator::format_pypop_csv(simulator::openmp_table(metrics::analyze_openmp_series(runs)));
    std::ifstream in(test::shared_data("imagemagick-omp/published_pypop_openmp.csv"));
    std::stringstream published;
    published << in.rdbuf();
    std::istringstream ours_lines(csv), published_lines(published.str());
    std::string ours_line, published_line;
    int rows = 0;
    double worst = 0;
    while (std::getline(published_lines, published_line)) {
        REQUIRE(std::getline(ours_lines, ours_line));
        const auto label = published_line.substr(0, published_line.find(','));
        CHECK(ours_line.substr(0, ours_line.find(',')) == label);
        if (label == "\"Threads\"") continue;
        std::istringstream a(ours_line.substr(ours_line.find(',') + 1)),
            b(published_line.substr(published_line.find(',') + 1));
        std::string x, y;
        while (std::getline(b, y, ',')) {
            REQUIRE(std::getline(a, x, ','));
            const double expected = std::stod(y), got = std::stod(x);
            const double tolerance = label == "\"Runtime (ns)\"" ? 1e-6 * expected : 0.01;
            CHECK(std::abs(got - expected) <= tolerance);
            if (label != "\"Runtime (ns)\"") worst = std::max(worst, std::abs(got - expected));
        }
        ++rows;
    }
    CHECK(rows == 10);
    CHECK(worst < 1e-6); // in fact every value agrees to the 6 decimals PyPOP prints
}
} // namespace

TEST_CASE("openmp: PyPOP's published metrics on the ImageMagick traces, to 0.01 (its tolerance)") {
    // Read into memory, and streamed (analyze's pass).
    for (const bool streamed : {false, true}) {
        CAPTURE(streamed);
        std::vector<metrics::HybridRun> runs;
        for (int t : {8, 1, 4, 2}) {
            const auto path =
                test::shared_data("imagemagick-omp/omp" + std::to_string(t) + ".prv.gz");
            runs.push_back(
                streamed
                    ? metrics::analyze_streaming(path, test::quiet_options(), false, nullptr).run
                    : metrics::hybrid_run(test::read_quiet(path)));
        }
        check_published_pypop(runs);
    }
}

TEST_CASE("openmp: per-region child metrics add up to the OpenMP region inefficiency") {
    // Two regions on 1 process x 2 threads, T = 10 s. Region A (function 7): 4 s, useful 4 and 2 s.
    // Region B (function 9): 4 s, useful 4 and 4 s. Serial 2 s on the master.
    // A: contribution (4 - 3) / 10 = 0.1, imbalance (4 - 3) / 10 = 0.1, PE 3/4, LB 1 - 1/4 = 0.75.
    // B: contribution 0, PE 1, LB 1. OpenMP Region Efficiency = 1 - (8 - 7) / 10 = 0.9.
    const auto run = run_of("regions", R"(ranks 1 threads 2
0.0 compute 2s
0.0 event 60000001 1
0.0 event 60000018 7
0.0 compute 4s
0.0 event 60000018 0
0.0 event 60000001 0
0.0 event 60000001 1
0.0 event 60000018 9
0.0 compute 4s
0.0 event 60000018 0
0.0 event 60000001 0
0.1 at 2s
0.1 event 60000018 7
0.1 compute 2s
0.1 state 5 2s
0.1 event 60000018 0
0.1 event 60000018 9
0.1 compute 4s
0.1 event 60000018 0
)");
    const auto regions = metrics::region_metrics(run);
    REQUIRE(regions.size() == 2);
    CHECK(regions[0].region == 7);
    CHECK(regions[0].parallel_inefficiency_contribution == doctest::Approx(0.1));
    CHECK(regions[0].load_imbalance_contribution == doctest::Approx(0.1));
    CHECK(regions[0].parallel_efficiency == doctest::Approx(0.75));
    CHECK(regions[0].load_balance == doctest::Approx(0.75));
    CHECK(regions[1].parallel_inefficiency_contribution == doctest::Approx(0.0));
    CHECK(regions[1].load_balance == doctest::Approx(1.0));
    const double sum = regions[0].parallel_inefficiency_contribution +
                       regions[1].parallel_inefficiency_contribution;
    CHECK(sum == doctest::Approx(1 - metrics::openmp_efficiencies(run).omp_region));
    CHECK(metrics::openmp_efficiencies(run).omp_region == doctest::Approx(0.9));
}

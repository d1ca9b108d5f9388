// SPDX-License-Identifier: BSD-3-Clause
// Issue 34, item 1: start-up and shut-down (not created, MPI_Init, MPI_Finalize) have a line of
// their own and stay out of Serialisation and Transfer. Expected values computed by hand.
#include "metrics/ideal_replay.hpp"
#include "metrics/pop_mpi.hpp"
#include "metrics/root_causes.hpp"
#include "metrics/streaming_analysis.hpp"
#include "replay/program/mpi_calls.hpp"
#include "simulator/reports/metric_table.hpp"
#include "simulator/reports/modelfactors_csv.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace popsim;

namespace {
// Rank 0 computes 1 s, then waits in MPI_Init [1, 5) s; rank 1 is not created until 2 s and is in
// MPI_Init [2, 5) s. Both compute (2 s, 1 s), meet in a Barrier at 8 s, and are in MPI_Finalize
// [8, 9) s. Every task is starting or stopping in [1, 5) and [8, 9): S = 5 s of T = 9 s.
// Ideal network: rank 0 enters MPI_Init at 1 s and waits until rank 1 enters at 2 s (S_id = 1 s),
// computes until 4 s, where rank 1 (2 s not created + 1 s) also is: T_id = 4 s.
const char* k_late_start = R"(ranks 2
0 compute 1s
0 Init 4s
1 at 2s
1 Init 3s
0 compute 2s
1 compute 1s
0 Barrier 1s
1 Barrier 2s
0 Finalize 1s
1 Finalize 1s
)";
constexpr Time s = k_ns_per_s;
} // namespace

TEST_CASE("start-up and shut-down: a late task and a long MPI_Init, by hand") {
    const auto path = test::synth_trace("late_start", k_late_start);
    auto summary = metrics::summarize(test::read_quiet(path));
    summary.ideal = metrics::ideal_run(test::read_quiet(path), {});
    CHECK(summary.runtime == 9 * s);
    CHECK(summary.startup.traced == 5 * s);
    CHECK(summary.startup.ideal == 1 * s);
    CHECK(summary.startup.task_startup == std::vector<Time>{4 * s, 5 * s});
    CHECK(summary.startup.task_shutdown == std::vector<Time>{1 * s, 1 * s});
    CHECK(summary.startup.init_end == 5 * s);
    CHECK(summary.startup.finalize_begin == 8 * s);
    REQUIRE(summary.ideal->runtime == 4 * s);

    // CommE = max U / T = 3/9 = start-up (4/9) x SerE x TE. POP convention: the ideal run less
    // its start-up (3 s) is rank 0's 3 s of computation: TE = (4 - 1) / (9 - 5) = 3/4, SerE = 1.
    const auto pop = metrics::mpi_multiplicative(summary, metrics::SerTransConvention::pop);
    CHECK(pop.communication == doctest::Approx(1.0 / 3));
    CHECK(pop.startup == doctest::Approx(4.0 / 9));
    CHECK(*pop.serialization == doctest::Approx(1.0));
    CHECK(*pop.transfer == doctest::Approx(0.75));
    // modelfactors convention: Dimemas' SerE = max ideal useful (3 s, rank 1's not-created burst
    // counted) / T_id = 3/4, TE = (1/3) / (4/9) / (3/4) = 1.
    const auto mf = metrics::mpi_multiplicative(summary, metrics::SerTransConvention::modelfactors);
    CHECK(mf.startup == doctest::Approx(4.0 / 9));
    CHECK(*mf.serialization == doctest::Approx(0.75));
    CHECK(*mf.transfer == doctest::Approx(1.0));
    // Additive: 1 - CommE = 6/9 = start-up 5/9 + transfer ((9 - 5) - (4 - 1)) / 9 + serialisation
    // 0.
    const auto a = metrics::mpi_additive(summary);
    CHECK(a.startup == doctest::Approx(4.0 / 9));
    CHECK(*a.transfer == doctest::Approx(8.0 / 9));
    CHECK(*a.serialization == doctest::Approx(1.0));

    SUBCASE("streamed, the same") {
        const metrics::IdealOptions ideal;
        const auto streamed =
            metrics::analyze_streaming(path, test::quiet_options(), false, &ideal).summary;
        CHECK(streamed.startup.traced == summary.startup.traced);
        CHECK(streamed.startup.ideal == summary.startup.ideal);
        CHECK(streamed.startup.task_startup == summary.startup.task_startup);
        CHECK(streamed.startup.task_shutdown == summary.startup.task_shutdown);
    }
    SUBCASE("modelfactors' CSV has no start-up row: its Transfer holds it, CommE / SerE") {
        const auto series = metrics::analyze_series({summary}, std::nullopt,
                                                    metrics::SerTransConvention::modelfactors);
        const auto csv = simulator::format_modelfactors_csv(simulator::modelfactors_table(series));
        CHECK(csv.find("Serialization efficiency;75.000000\n") != std::string::npos);
        CHECK(csv.find("Transfer efficiency;44.444444\n") != std::string::npos);
        CHECK(csv.find("Start-up") == std::string::npos);
    }
}

TEST_CASE("start-up and shut-down: a run without MPI_Init or MPI_Finalize has none") {
    const auto path = test::synth_trace("no_init", "ranks 2\n0 compute 2s\n0 Barrier 1s\n"
                                                   "1 compute 1s\n1 Barrier 2s\n");
    const auto summary = metrics::summarize(test::read_quiet(path));
    CHECK(summary.startup.traced == 0);
    CHECK(summary.startup.ideal == 0);
    CHECK(summary.startup.finalize_begin == 3 * s);
    CHECK(metrics::mpi_multiplicative(summary, metrics::SerTransConvention::pop).startup == 1.0);
}

TEST_CASE("start-up and shut-down in the per-rank table, the root causes and the critical path") {
    // Issue 34, item 2, on k_late_start. Per rank, in the traced run's time: start-up is all before
    // MPI_Init returns (rank 1's 1 s of computation before it, rank 2's 2 s not created) and
    // MPI_Init and MPI_Finalize: 6 s each. Useful after it: 2 s and 1 s. The rest (1 s and 2 s in
    // the Barrier) splits by the ideal run: after the start-up both ranks leave MPI_Init's barrier
    // at 2 s; rank 1 computes to 4 s, rank 2 to 3 s and waits 1 s: transfer 1 s each, load
    // imbalance 0 and 1 s, serialisation 0 (the ideal run proper, 2 s, is rank 1's computation).
    const auto path = test::synth_trace("late_start", k_late_start);
    const auto trace = test::read_quiet(path);
    auto summary = metrics::summarize(trace);
    summary.ideal = metrics::ideal_run(trace, {});
    const auto ranks = metrics::rank_breakdown(summary);
    REQUIRE(ranks.size() == 2);
    CHECK(ranks[0].useful == 2 * s);
    CHECK(ranks[0].startup == 6 * s);
    CHECK(ranks[0].load_imbalance == 0);
    CHECK(ranks[0].serialization == 0);
    CHECK(ranks[0].transfer == 1 * s);
    CHECK(ranks[1].useful == 1 * s);
    CHECK(ranks[1].startup == 6 * s);
    CHECK(ranks[1].load_imbalance == 1 * s);
    CHECK(ranks[1].serialization == 0);
    CHECK(ranks[1].transfer == 1 * s);

    // The ideal critical path (4 s): rank 1's computation [2, 4) s, and before MPI_Init's barrier
    // rank 2, the last to enter it, not created [0, 2) s: start-up, not computation. Rank 2's wait
    // in the Barrier [3, 4) s is rank 1's computation's doing.
    const auto program = replay::build_replay_program(trace);
    const auto causes = metrics::root_causes(trace, program, 0);
    CHECK(causes.critical_path.length == 4 * s);
    CHECK(causes.critical_path.per_task == std::vector<Time>{2 * s, 0});
    CHECK(causes.critical_path.startup == std::vector<Time>{0, 2 * s});
    CHECK(causes.delays.caused == std::vector<Time>{1 * s, 0});
}

TEST_CASE("start-up and shut-down: MPI_Init_thread is MPI_Init, as Extrae records it") {
    // Extrae's wrappers emit MPI_Init's event (50000003:31) for MPI_Init_thread; a Score-P
    // archive names the region MPI_Init_thread, and its readers take it for MPI_Init.
    const auto init = replay::mpi_call_by_name("MPI_Init_thread");
    REQUIRE(init);
    CHECK(init->id == 31);
    CHECK(init->cls == replay::CallClass::init);
    const auto synth = test::synth_trace("init_thread", "ranks 2\n0 Init_thread 2s\n1 at 1s\n1 "
                                                        "MPI_Init_thread 1s\n0 compute 1s\n1 "
                                                        "compute 1s\n");
    CHECK(metrics::summarize(test::read_quiet(synth)).startup.traced == 2 * s);
}

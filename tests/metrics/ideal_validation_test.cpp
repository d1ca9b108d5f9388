// SPDX-License-Identifier: BSD-3-Clause
// Issue 3, must show 1 and 2: the ideal-network replay against Dimemas' published results, and
// the event engine against the longest-path pass on the real traces.
#include "metrics/ideal_replay.hpp"
#include "metrics/scaling.hpp"
#include "replay/engine/engine.hpp"
#include "replay/extrae_events.hpp"
#include "replay/network/ideal.hpp"
#include "replay/output/simulated_trace.hpp"
#include "replay/program/dependency_graph.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>

using namespace popsim;

namespace {
metrics::TraceSummary with_ideal(const std::string& path, metrics::ReplayMethod method) {
    const auto trace = test::read_quiet(path);
    auto s = metrics::summarize(trace);
    metrics::IdealOptions o;
    o.method = method;
    s.ideal = metrics::ideal_run(trace, o);
    return s;
}
bool close(double a, double b, double rel) {
    return std::abs(a - b) <= rel * std::abs(b);
}
} // namespace

TEST_CASE("ideal replay: epoch traces match modelfactors' Dimemas columns") {
    // published_modelfactors.csv: Runtime (ideal), Useful duration (ideal, max) in us; SerE, TE in
    // %.
    struct Row {
        int procs;
        double ideal_runtime_us, ideal_useful_us, serialization, transfer;
    };
    const Row rows[] = {{1, 21884758.97, 21884758.97, 100.000000, 99.925583},
                        {2, 11504370.09, 11486234.50, 99.842359, 99.773690},
                        {4, 6051059.08, 6002862.00, 99.203493, 99.436599},
                        {8, 3486349.43, 3426454.46, 98.282015, 99.084296}};
    for (const auto& row : rows) {
        INFO("ranks: " << row.procs);
        const auto path =
            test::shared_data("epoch/epoch_" + std::to_string(row.procs) + "proc.prv.gz");
        for (auto method : {metrics::ReplayMethod::longest_path, metrics::ReplayMethod::events}) {
            const auto s = with_ideal(path, method);
            CHECK(close(static_cast<double>(s.ideal->runtime) / 1000, row.ideal_runtime_us, 1e-4));
            CHECK(
                close(static_cast<double>(s.ideal->max_useful) / 1000, row.ideal_useful_us, 1e-4));
            const auto e =
                metrics::mpi_multiplicative(s, metrics::SerTransConvention::modelfactors);
            CHECK(std::abs(*e.serialization * 100 - row.serialization) <= 0.01);
            // modelfactors has no start-up factor: its Transfer is popsim's x start-up.
            CHECK(std::abs(*e.transfer * e.startup * 100 - row.transfer) <= 0.01);
        }
    }
}

TEST_CASE("ideal replay: epoch runtimes equal Dimemas 5.5.0 to the nanosecond") {
    // dimemas/dimemas_results.csv, ideal_dimemas5.5.0_legacy_running rows.
    const std::pair<int, Time> expected[] = {
        {1, 21884758971}, {2, 11504370091}, {4, 6051059081}, {8, 3486349432}};
    const std::pair<int, Time> useful[] = {
        {1, 21884758971}, {2, 11486234503}, {4, 6002862002}, {8, 3426454462}};
    for (std::size_t i = 0; i < 4; ++i) {
        const auto s = with_ideal(
            test::shared_data("epoch/epoch_" + std::to_string(expected[i].first) + "proc.prv.gz"),
            metrics::ReplayMethod::events);
        CHECK(s.ideal->runtime == expected[i].second);
        CHECK(s.ideal->max_useful == useful[i].second);
    }
}

TEST_CASE("ideal replay: LAMMPS and the MPI_Reduce microbenchmark equal Dimemas to the ns") {
    // lammps-melt/dimemas_ideal.csv and collected/DIMEMAS.md. Both have MPI_Reduce, which
    // Dimemas replays root-synchronised: the non-roots go on (LAMMPS was +71 ns, the
    // microbenchmark +128075 ns while every member waited for the last).
    const std::pair<const char*, std::pair<Time, Time>> expected[] = {
        {"lammps-melt/lammps_melt_2.prv.gz", {448982768, 364860979}},
        {"lammps-melt/lammps_melt_4.prv.gz", {276345893, 257867905}},
        {"collected/dosimont_microbench/reduce.prv.gz", {7140850, 0}}};
    for (const auto& [file, values] : expected) {
        CAPTURE_BINDING(file);
        for (auto method : {metrics::ReplayMethod::longest_path, metrics::ReplayMethod::events}) {
            const auto s = with_ideal(test::shared_data(file), method);
            CHECK(s.ideal->runtime == values.first);
            if (values.second != 0) CHECK(s.ideal->max_useful == values.second);
        }
    }
}

TEST_CASE("ideal replay: the per-rank breakdown adds up to the runtime") {
    const auto trace = test::read_quiet(test::shared_data("epoch/epoch_4proc.prv.gz"));
    auto s = metrics::summarize(trace);
    s.ideal = metrics::ideal_run(trace, {});
    const auto ranks = metrics::rank_breakdown(s);
    REQUIRE(ranks.size() == 4);
    for (const auto& r : ranks)
        CHECK(r.useful + r.startup + r.load_imbalance + r.serialization + r.transfer == s.runtime);
    // The serialisation part is the same for every rank (the ideal run's waiting on its critical
    // path), and the rank computing most waits least for the others.
    for (const auto& r : ranks) CHECK(r.serialization == ranks[0].serialization);
    const auto most =
        std::max_element(ranks.begin(), ranks.end(),
                         [](const auto& a, const auto& b) { return a.useful < b.useful; });
    for (const auto& r : ranks) CHECK(most->load_imbalance <= r.load_imbalance);
}

TEST_CASE("ideal replay: the simulated timeline matches Dimemas' simulated trace task by task") {
    // epoch/dimemas/epoch_4proc.ideal_dimemas5.5.0_legacy_running.sim.prv.gz, written by Dimemas:
    // per task Running time and end, from its state records.
    const auto dimemas = test::read_quiet(test::shared_data(
        "epoch/dimemas/epoch_4proc.ideal_dimemas5.5.0_legacy_running.sim.prv.gz"));
    REQUIRE(dimemas.warnings.all().size() ==
            1); // Dimemas writes 8 intervals twice; the reader says so
    CHECK(dimemas.warnings.all()[0].line().starts_with("8 state records overlap"));
    const auto dimemas_summary = metrics::summarize(dimemas);

    const auto original = test::read_quiet(test::shared_data("epoch/epoch_4proc.prv.gz"));
    const auto program = replay::build_replay_program(original);
    replay::network::IdealNetwork ideal;
    const auto result = replay::replay_events(program, ideal);
    const auto path = (test::scratch_dir("sim_vs_dimemas") / "sim.prv").string();
    replay::write_simulated_paraver(original, program, result, path);
    const auto ours = metrics::summarize(test::read_quiet(path));

    REQUIRE(ours.useful.size() == 4);
    CHECK(ours.runtime == dimemas_summary.runtime);
    for (std::size_t t = 0; t < 4; ++t) {
        INFO("task " << t + 1);
        CHECK(ours.useful[t] == dimemas_summary.useful[t]);
        CHECK(result.threads[t].end == dimemas.threads[t].states_end);
    }
}

TEST_CASE("ideal replay: MPI time outside OpenMP per process (hybrid S0 input)") {
    // Traced: rank 0's master opens a parallel region at 0, computes 3 s, calls MPI_Barrier inside
    // the region (3-4 s), closes it at 4 s, computes 1 s, then MPI_Allreduce (5-7 s); its worker
    // computes 0-4 s. Rank 1 (no OpenMP) calls MPI_Barrier at 0-1 s, computes 6 s, MPI_Allreduce
    // 7-8 s.
    // Ideal replay: the Barrier completes when rank 0's master arrives at 3 s (rank 1 waited 0-3
    // s); the master then reaches the region's join at 3 s, but its worker computes until 4 s, so
    // the region still ends at 4 s; rank 0 reaches the Allreduce at 4 + 1 = 5 s, rank 1 at 3 + 6 =
    // 9 s: both end at 9 s. MPI outside OpenMP: rank 0 = the Allreduce, 5-9 s = 4 s (its Barrier,
    // inside the region, is excluded); rank 1 = Barrier 3 s + Allreduce 0 s = 3 s.
    const auto path = test::synth_trace("hybrid_mpi_ideal", R"(ranks 2 threads 2
0.0 event 60000001 1
0.0 compute 3s
0.0 Barrier 1s
0.0 event 60000001 0
0.0 compute 1s
0.0 Allreduce 2s
0.1 compute 4s
1.0 Barrier 1s
1.0 compute 6s
1.0 Allreduce 1s
)");
    const auto run = metrics::ideal_run(test::read_quiet(path), {});
    REQUIRE(run.task_mpi_outside_omp.size() == 2);
    CHECK(run.task_end[0] == 9 * k_ns_per_s);
    CHECK(run.task_end[1] == 9 * k_ns_per_s);
    CHECK(run.task_mpi_outside_omp[0] == 4 * k_ns_per_s);
    CHECK(run.task_mpi_outside_omp[1] == 3 * k_ns_per_s);
}

TEST_CASE("ideal replay: pure OpenMP traces replay to their own runtime with every thread") {
    // No MPI: the ideal network changes nothing, so the replay of each thread's work between the
    // fork and join barriers must end exactly when the trace does; both replays agree.
    for (const char* name : {"imagemagick-omp/omp2.prv.gz", "imagemagick-omp/omp8.prv.gz"}) {
        CAPTURE(name);
        const auto trace = test::read_quiet(test::shared_data(name));
        const auto program = replay::build_replay_program(trace);
        CHECK(program.thread_count() == trace.thread_count());
        replay::network::IdealNetwork ideal;
        const auto events = replay::replay_events(program, ideal);
        CHECK(events.runtime == trace.end_time());
        CHECK(
            replay::replay_longest_path(program, replay::build_dependency_graph(program)).op_end ==
            events.op_end);
    }
}

TEST_CASE("ideal replay: the simulated trace of a hybrid program has every replayed thread") {
    // Rank 0: region 0-3 s, master computes 1 s then 2 s in MPI_Recv, worker computes 3 s; rank 1
    // computes 1 s and sends (eager). Ideal: the Recv ends at 1 s, the master waits at the join
    // until 3 s (Synchronization 1-3 s), the region events sit at 0 s and 3 s.
    const auto original = test::read_quiet(test::synth_trace("sim_hybrid", R"(ranks 2 threads 2
0.0 event 60000001 1
0.0 compute 1s
0.0 Recv 2s from=1 size=8
0.0 event 60000001 0
0.1 compute 3s
1.0 compute 1s
1.0 Send 0s to=0 size=8
)"));
    const auto program = replay::build_replay_program(original);
    replay::network::IdealNetwork ideal;
    const auto result = replay::replay_events(program, ideal);
    const auto path = (test::scratch_dir("sim_hybrid_out") / "sim.prv").string();
    replay::write_simulated_paraver(original, program, result, path);
    const auto sim = test::read_quiet(path);
    REQUIRE(sim.thread_count() == 3);
    CHECK(to_string(sim.threads[1].name) == "1.1.2");
    CHECK(sim.end_time() == 3 * k_ns_per_s);
    const auto& master = sim.threads[0];
    REQUIRE(master.state_count() ==
            2); // Running 0-1 s, Synchronization 1-3 s (the Recv takes no time)
    CHECK(master.state_value[0] == replay::extrae::k_state_running);
    CHECK(master.state_value[1] == replay::extrae::k_state_synchronization);
    CHECK(master.state_begin[1] == 1 * k_ns_per_s);
    const auto* region = master.series(replay::extrae::k_omp_parallel);
    REQUIRE(region);
    REQUIRE(region->time.size() == 2);
    CHECK(region->time[0] == 0);
    CHECK(region->time[1] == 3 * k_ns_per_s);
    REQUIRE(sim.comms.size() == 1);
    CHECK(sim.comms.physical_recv[0] == 1 * k_ns_per_s);
}

TEST_CASE("ideal replay: a message received before it was sent is dropped, so the replay ends "
          "no later than the trace") {
    // Rank 0 computes 5 s and sends; rank 1's Recv ends at 2 s (its clock runs 3+ s behind): the
    // record says the message left at 5 s. Replayed, rank 1 would wait until 5 s and compute 1 s:
    // 6 s > T. The dependency runs backwards in traced time, so the reader drops it: rank 1's
    // Recv replays without a message, and the ideal run is rank 0's 5 s.
    const auto trace = test::read_quiet(test::synth_trace("clock_skew", R"(ranks 2
0 compute 5s
0 Send 0s to=1 size=8
1 compute 1s
1 Recv 1s from=0 size=8
1 compute 1s
)"));
    CHECK(trace.repairs.backward_records == 1);
    CHECK(trace.repairs.unpaired_sends == 1);
    CHECK(trace.repairs.unpaired_receives == 1);
    CHECK(trace.comms.size() == 0);
    replay::WarningLog warnings;
    const auto run = metrics::ideal_run(trace, {}, &warnings);
    CHECK(trace.end_time() == 5 * k_ns_per_s);
    CHECK(run.runtime == 5 * k_ns_per_s);
    CHECK(warnings.find("ideal-after-real") == nullptr);
}

// SPDX-License-Identifier: BSD-3-Clause
// Issue 17, must show 3: the streaming analysis gives the in-memory one's numbers to the ns (and
// the same warnings) on every real trace it streams, and says why for the others. The in-memory
// analysis is the one validated against modelfactors, PyPOP and Dimemas.
#include "metrics/streaming_analysis.hpp"
#include "replay/traced_windows.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace popsim;

namespace {

struct InMemory {
    replay::Trace trace;
    metrics::TraceSummary summary;
    metrics::HybridRun run;
    replay::WarningLog warnings;
};

InMemory analyze_in_memory(const std::string& path, const replay::ReadOptions& read,
                           const metrics::IdealOptions& ideal) {
    InMemory m{replay::read_paraver(path, read), {}, {}, {}};
    m.warnings = m.trace.warnings;
    const auto program = replay::build_replay_program(m.trace, ideal.program);
    m.summary = metrics::summarize(m.trace, program.untraced);
    m.run = metrics::hybrid_run(m.trace);
    m.summary.ideal = m.run.ideal = metrics::ideal_run(m.trace, program, ideal, &m.warnings);
    return m;
}

/// Every number the reports take from a summary, a run and an ideal run.
void check_equal(const InMemory& m, const metrics::StreamedAnalysis& s) {
    CHECK(s.summary.runtime == m.summary.runtime);
    CHECK(s.summary.useful == m.summary.useful);
    CHECK(s.summary.instructions == m.summary.instructions);
    CHECK(s.summary.cycles == m.summary.cycles);
    CHECK(s.summary.windows == m.summary.windows);
    REQUIRE(s.summary.ideal.has_value());
    const auto &a = *s.summary.ideal, &b = *m.summary.ideal;
    CHECK(a.runtime == b.runtime);
    CHECK(a.max_useful == b.max_useful);
    CHECK(a.task_useful == b.task_useful);
    CHECK(a.task_end == b.task_end);
    CHECK(a.task_mpi_outside_omp == b.task_mpi_outside_omp);
    CHECK(s.run.runtime == m.run.runtime);
    REQUIRE(s.run.threads.size() == m.run.threads.size());
    for (std::size_t t = 0; t < s.run.threads.size(); ++t) {
        const auto &x = s.run.threads[t], &y = m.run.threads[t];
        CHECK(std::tie(x.useful, x.active, x.mpi, x.mpi_outside_omp, x.instructions, x.cycles) ==
              std::tie(y.useful, y.active, y.mpi, y.mpi_outside_omp, y.instructions, y.cycles));
        CHECK(std::tie(x.useful_in_omp, x.omp_region) == std::tie(y.useful_in_omp, y.omp_region));
    }
    CHECK(std::tie(s.run.path, s.run.processes, s.run.threads_per_process, s.run.master,
                   s.run.process_of) == std::tie(m.run.path, m.run.processes,
                                                 m.run.threads_per_process, m.run.master,
                                                 m.run.process_of));
    CHECK(std::tie(s.run.region_time, s.run.omp_load_imbalance, s.run.omp_scheduling) ==
          std::tie(m.run.region_time, m.run.omp_load_imbalance, m.run.omp_scheduling));
    CHECK(s.run.regions == m.run.regions);
    CHECK(test::warning_lines(s.trace.warnings) == test::warning_lines(m.warnings));
}

} // namespace

metrics::StreamedAnalysis streamed(const std::string& path) {
    const auto read = test::quiet_options();
    const metrics::IdealOptions ideal;
    return metrics::analyze_streaming(path, read, false, &ideal);
}

TEST_CASE("streaming analysis: a rendezvous and a rooted Reduce, computed by hand") {
    // Traced: rank 0 computes 10 us, sends 64 KB (rendezvous at the 32 KB eager limit) in a 12 us
    // MPI_Send, computes 2 us and enters MPI_Reduce; rank 1 computes 20 us, receives in 3 us,
    // computes 1 us, enters the Reduce; rank 2, the root, computes 30 us.
    const auto path = test::synth_trace("streaming_hand", R"(ranks 3
0 compute 10us
0 Send 12us to=1 size=65536
0 compute 2us
0 Reduce 6us root=2 size=8
1 compute 20us
1 Recv 3us from=0 size=65536
1 compute 1us
1 Reduce 6us root=2 size=8
2 compute 30us
2 Reduce 1us root=2 size=8
)");
    const auto a = streamed(path);
    // Ideal network: rank 0's send waits for the post at rank 1's 20 us and leaves then; +2 us
    // = 22 us into the Reduce, which it leaves at once (Dimemas' root-synchronised Reduce).
    // Rank 1 receives at 20 us, computes to 21 us and leaves the Reduce. The root waits for
    // the last arrival, its own at 30 us.
    REQUIRE(a.summary.ideal.has_value());
    const auto& ideal = *a.summary.ideal;
    CHECK(ideal.runtime == 30'000);
    CHECK(ideal.task_end == std::vector<Time>{22'000, 21'000, 30'000});
    CHECK(ideal.task_useful == std::vector<Time>{12'000, 21'000, 30'000});
    CHECK(ideal.task_mpi_outside_omp == std::vector<Time>{10'000, 0, 0});
    CHECK(a.summary.runtime == 31'000);
    const auto read = test::quiet_options();
    check_equal(analyze_in_memory(path, read, {}), a);
}

TEST_CASE("streaming analysis: the in-memory numbers on synthetic traces") {
    const auto read = test::quiet_options();
    for (const auto& [name, description] : test::k_streaming_cases) {
        CAPTURE_BINDING(name);
        const auto path = test::synth_trace(name, description);
        check_equal(analyze_in_memory(path, read, {}), streamed(path));
    }
    const auto halo = (test::scratch_dir("streaming_halo") / "halo.prv").string();
    replay::synth::write_paraver(replay::synth::halo_exchange(8, 300), halo);
    check_equal(analyze_in_memory(halo, read, {}), streamed(halo));
    const auto hybrid = (test::scratch_dir("streaming_halo") / "hybrid.prv").string();
    replay::synth::write_paraver(replay::synth::halo_exchange(4, 100, 3), hybrid);
    const auto s = streamed(hybrid);
    CHECK(s.run.regions.size() == 4); // one region per process
    CHECK(s.run.regions.begin()->second.instances == 100);
    check_equal(analyze_in_memory(hybrid, read, {}), s);
}

TEST_CASE("streaming analysis: a hybrid run, computed by hand") {
    // Rank 0's master computes 0-1 s, opens a parallel region at 1 s, computes 1-3 s, calls
    // MPI_Barrier in the region (3-4 s), closes it at 4 s and calls MPI_Allreduce (4-5 s); its
    // worker runs an outlined function 1-3.5 s. Rank 1 computes 0-2 s, Barrier 2-3 s, computes
    // 3-4 s, Allreduce 4-5 s.
    const auto path = test::synth_trace("streaming_hybrid_hand", R"(ranks 2 threads 2
0.0 compute 1s
0.0 event 60000001 1
0.0 compute 2s
0.0 Barrier 1s
0.0 event 60000001 0
0.0 Allreduce 1s
0.1 at 1s
0.1 event 60000018 3
0.1 compute 2500ms
0.1 event 60000018 0
1.0 compute 2s
1.0 Barrier 1s
1.0 compute 1s
1.0 Allreduce 1s
)");
    const auto a = streamed(path);
    constexpr Time s = k_ns_per_s, ms = s / 1000;
    // Thread breakdowns: the master is in OpenMP 1-4 s (useful 2 s of it) and in MPI outside it
    // only in the Allreduce; the worker is in OpenMP 1-3.5 s, all useful.
    const auto& master = a.run.threads[0];
    CHECK(std::tie(master.omp_region, master.useful_in_omp, master.mpi, master.mpi_outside_omp) ==
          std::tuple(3 * s, 2 * s, 2 * s, 1 * s));
    const auto& worker = a.run.threads[1];
    CHECK(std::tie(worker.omp_region, worker.useful_in_omp, worker.useful) ==
          std::tuple(2500 * ms, 2500 * ms, 2500 * ms));
    // The region (3 s): useful 2 and 2.5 s, idle 1 and 0.5 s: load imbalance 0.5 s, scheduling
    // 2 x 0.5 s; the master runs no outlined function, so the region is keyed by its value, 1.
    using Sums = metrics::HybridRun::RegionSums;
    REQUIRE(a.run.regions.size() == 1);
    CHECK(a.run.regions.begin()->first == std::pair(std::uint64_t{1}, 0u));
    CHECK(a.run.regions.begin()->second ==
          Sums{.instances = 1, .length = 3 * s, .useful = 4500 * ms, .max_useful = 2500 * ms});
    CHECK(a.run.region_time == std::vector<Time>{3 * s, 0});
    CHECK(a.run.omp_load_imbalance == std::vector<Time>{500 * ms, 0});
    CHECK(a.run.omp_scheduling == std::vector<Time>{1 * s, 0});
    // Ideal network: the Barrier completes at 3 s, when the master arrives (rank 1 waits 2-3 s);
    // the master leaves it at 3 s and waits at the join for its worker, which forked at 1 s and
    // works 2.5 s: 3.5 s. Its arrival in the trace is the Barrier's exit, 4 s, as late as the
    // region's exit: no burst after the join. Both reach the Allreduce, rank 1 at 3 + 1 = 4 s,
    // and leave at 4 s. MPI outside OpenMP: rank 0 the Allreduce 3.5-4 s, rank 1 the Barrier's
    // wait and an instant Allreduce.
    REQUIRE(a.summary.ideal.has_value());
    const auto& ideal = *a.summary.ideal;
    CHECK(ideal.runtime == 4 * s);
    CHECK(ideal.task_end == std::vector<Time>{4 * s, 4 * s});
    CHECK(ideal.task_useful == std::vector<Time>{3500 * ms, 3 * s}); // with the join's wait
    CHECK(ideal.task_mpi_outside_omp == std::vector<Time>{500 * ms, 1 * s});
    check_equal(analyze_in_memory(path, test::quiet_options(), {}), a);
}

TEST_CASE("streaming analysis: OpenMP corner cases as the in-memory analysis") {
    const auto read = test::quiet_options();
    const std::pair<const char*, const char*> cases[] = {
        // Changes at one time apply in the stack's type order, not the file's: the barrier's 0
        // after the region's entry closes the stack at once, an empty span.
        {"streaming_omp_same_time", R"(ranks 1 threads 2
0.0 compute 1us
0.0 event 60000005 0
0.0 event 60000001 1
0.0 compute 2us
0.0 event 60000001 0
0.1 at 1us
0.1 compute 1us
)"},
        // An MPI call of no length at a region's entry is in the region; a region still open
        // at the end ends there; the outlined function keys regions that began before it.
        {"streaming_omp_instant_call", R"(ranks 2 threads 2
0.0 compute 1us
0.0 event 60000001 5
0.0 Barrier 0us
0.0 compute 2us
0.0 event 60000001 0
0.0 compute 1us
0.0 event 60000001 6
0.0 compute 1us
0.0 event 60000018 77
0.0 compute 1us
0.1 at 1us
0.1 compute 3us
0.1 state 5 1us
0.1 compute 2us
1.0 compute 1us
1.0 Barrier 1us
1.0 compute 5us
)"},
        {"streaming_omp_example", test::k_omp_example},
    };
    for (const auto& [name, description] : cases) {
        CAPTURE_BINDING(name);
        const auto path = test::synth_trace(name, description);
        check_equal(analyze_in_memory(path, read, {}), streamed(path));
    }
}

TEST_CASE("streaming analysis: what it leaves to the in-memory analysis, it names") {
    // A cancelled receive: the in-memory reader may re-pair the channel's records.
    const auto path = test::synth_trace("streaming_cancel", R"(ranks 2
0 Irecv 1us from=1 size=8 req=a
0 Cancel 1us req=a
0 Irecv 1us from=1 size=8 req=a
0 Wait 5us req=a
1 compute 2us
1 Send 1us to=0 size=8
)");
    CHECK_THROWS_WITH_AS(streamed(path), doctest::Contains("MPI_Cancel"),
                         replay::StreamingUnsupported);
    // Tracing off on every thread: the in-memory analysis leaves that span out (traced windows).
    const auto off = test::synth_trace("streaming_tracing_off", R"(ranks 2
0 compute 1ms
0 state 14 1ms
0 Barrier 1ms
1 state 14 1ms
1 compute 1ms
1 Barrier 1ms
)");
    CHECK_THROWS_WITH_AS(streamed(off), doctest::Contains("tracing is disabled"),
                         replay::StreamingUnsupported);
    // A worker thread calling MPI is replayed in memory.
    const auto worker_mpi = test::synth_trace("streaming_worker_mpi", test::k_worker_calls_mpi);
    CHECK_THROWS_WITH_AS(streamed(worker_mpi), doctest::Contains("calls MPI"),
                         replay::StreamingUnsupported);
}

TEST_CASE("streaming analysis: the in-memory numbers on every real trace it streams") {
    const auto root = test::shared_data("");
    const auto read = test::quiet_options();
    const metrics::IdealOptions ideal;
    std::size_t streamed = 0;
    for (const auto& path : test::real_paraver_traces()) {
        CAPTURE(path);
        std::optional<metrics::StreamedAnalysis> s;
        std::string why;
        try {
            s = metrics::analyze_streaming(path, read, false, &ideal);
        } catch (const replay::StreamingUnsupported& e) {
            why = e.what();
        } catch (const std::exception& e) {
            why = fmt::format("error: {}", e.what());
        }
        MESSAGE(fmt::format("{}: {}", path.substr(root.size()), s ? "streamed" : why));
        if (!s) continue;
        ++streamed;
        check_equal(analyze_in_memory(path, read, ideal), *s);
    }
    CHECK(streamed > 0);
}

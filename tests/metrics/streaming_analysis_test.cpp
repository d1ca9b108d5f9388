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
    }
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
        CAPTURE(name);
        const auto path = test::synth_trace(name, description);
        check_equal(analyze_in_memory(path, read, {}), streamed(path));
    }
    const auto halo = (test::scratch_dir("streaming_halo") / "halo.prv").string();
    replay::synth::write_paraver(replay::synth::halo_exchange(8, 300), halo);
    check_equal(analyze_in_memory(halo, read, {}), streamed(halo));
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
    // OpenMP regions need the in-memory program's fork/join barriers.
    const auto omp = test::synth_trace("streaming_omp", R"(ranks 1 threads 2
0 event 60000001 1
0 compute 5us
0 event 60000001 0
)");
    CHECK_THROWS_WITH_AS(streamed(omp), doctest::Contains("OpenMP"), replay::StreamingUnsupported);
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

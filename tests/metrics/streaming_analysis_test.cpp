// Issue 17, must show 3: the streaming analysis gives the in-memory one's numbers to the ns (and
// the same warnings) on every real trace it streams, and says why for the others. The in-memory
// analysis is the one validated against modelfactors, PyPOP and Dimemas.
#include "metrics/streaming_analysis.hpp"
#include "replay/traced_windows.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
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

std::vector<std::string> lines(const replay::WarningLog& log) {
    std::vector<std::string> out;
    for (const auto& w : log.all()) out.push_back(w.line());
    return out;
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
    CHECK(lines(s.trace.warnings) == lines(m.warnings));
}

} // namespace

TEST_CASE("streaming analysis: the in-memory numbers on every real trace it streams") {
    const auto root = test::shared_data("");
    std::vector<std::string> traces;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
        const auto name = e.path().filename().string();
        if (name.ends_with(".prv.gz") && !name.ends_with(".sim.prv.gz") &&
            e.path().string().find("/otf2/") == std::string::npos)
            traces.push_back(e.path().string());
    }
    std::sort(traces.begin(), traces.end());
    replay::ReadOptions read;
    read.read_labels = false;
    const metrics::IdealOptions ideal;
    std::size_t streamed = 0;
    for (const auto& path : traces) {
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

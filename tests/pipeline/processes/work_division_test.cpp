// SPDX-License-Identifier: BSD-3-Clause
// Work divided among the processes of an MPI run: who does which item, and a trace's results
// through the bytes that carry them to the reporting process.
#include "pipeline/processes/analysis_bytes.hpp"
#include "pipeline/processes/work_division.hpp"
#include "replay/network/ideal.hpp"
#include "replay/synth.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <map>
#include <utility>

using namespace popsim;

TEST_CASE("work division: the heaviest item first, to the process with the least weight") {
    // 30 -> 0 (30); 20 -> 1 (20); 10 -> 1 (30); 5 -> 0, the first of two at 30.
    CHECK(pipeline::divide_by_weight({10, 30, 20, 5}, 2) == std::vector<std::uint32_t>{1, 0, 1, 0});
    // Equal sizes keep their order; more processes than traces leave some idle.
    CHECK(pipeline::divide_by_weight({5, 5}, 4) == std::vector<std::uint32_t>{0, 1});
    // Empty (or unreadable) files count as one byte each: they still spread; equal weights (a
    // sweep's configurations) go round robin.
    CHECK(pipeline::divide_by_weight({0, 0, 0}, 2) == std::vector<std::uint32_t>{0, 1, 0});
    CHECK(pipeline::divide_by_weight({1, 1, 1, 1, 1}, 3) ==
          std::vector<std::uint32_t>{0, 1, 2, 0, 1});
    CHECK(pipeline::divide_by_weight({7, 3}, 1) == std::vector<std::uint32_t>{0, 0});
}

TEST_CASE("work division: the processes left without a trace help read the dividable ones") {
    using Helpers = std::vector<std::vector<std::uint32_t>>;
    // One trace on 4 processes: read by 0, helped by the 3 others.
    CHECK(pipeline::helpers_of({0}, {100}, {true}, 4) == Helpers{{1, 2, 3}});
    // Two traces read by 0 and 1 on 5 processes: 2, 3, 4 shared round robin, the heavier first.
    CHECK(pipeline::helpers_of({0, 1}, {10, 20}, {true, true}, 5) == Helpers{{3}, {2, 4}});
    // A trace that cannot be divided (a gzip stream) gets none; the others get them all.
    CHECK(pipeline::helpers_of({0, 1}, {10, 20}, {true, false}, 4) == Helpers{{2, 3}, {}});
    // A process that reads two traces (all of them on the reporting one, for --root-causes): no
    // helpers at all, as the reader's threads would then call MPI at once.
    CHECK(pipeline::helpers_of({0, 0}, {10, 20}, {true, true}, 3) == Helpers{{}, {}});
    // As many traces as processes: nobody is left to help.
    CHECK(pipeline::helpers_of({0, 1}, {10, 20}, {true, true}, 2) == Helpers{{}, {}});
}

TEST_CASE("work division: a trace's results survive their bytes") {
    // A hybrid halo exchange (4 ranks of 3 threads): summaries, threads, OpenMP regions.
    const auto path = (test::scratch_dir("work_division") / "hybrid.prv").string();
    replay::synth::write_paraver(replay::synth::halo_exchange(4, 50, 3), path);
    const auto analysis = pipeline::analyze({.traces = {path}});
    const auto& a = analysis.analyzed;
    pipeline::Analyzed b;
    b.passes.resize(1);
    b.summaries.resize(1);
    b.runs.resize(1);
    b.warnings.resize(1);
    b.repairs.resize(1);
    pipeline::trace_from_bytes(pipeline::trace_to_bytes(a, 0), b, 0);

    CHECK(b.passes[0].streamed == a.passes[0].streamed);
    const auto &s = a.summaries[0], &t = b.summaries[0];
    CHECK(t.path == path);
    CHECK(t.runtime == s.runtime);
    CHECK(t.useful == s.useful);
    CHECK(t.windows == s.windows);
    CHECK(t.task_first_thread == s.task_first_thread);
    CHECK(t.startup.task_startup == s.startup.task_startup);
    REQUIRE(s.ideal);
    REQUIRE(t.ideal);
    CHECK(t.ideal->runtime == s.ideal->runtime);
    CHECK(t.ideal->task_end == s.ideal->task_end);
    const auto &r = a.runs[0], &q = b.runs[0];
    CHECK(q.total_threads == 12);
    CHECK(q.threads.size() == r.threads.size());
    for (std::size_t k = 0; k < r.threads.size(); ++k) {
        CAPTURE(k);
        CHECK(q.threads[k].useful_in_omp == r.threads[k].useful_in_omp);
        CHECK(q.threads[k].mpi_outside_omp == r.threads[k].mpi_outside_omp);
    }
    CHECK(!r.regions.empty());
    CHECK(q.regions == r.regions);
    CHECK(q.omp_scheduling == r.omp_scheduling);
    CHECK(b.warnings[0].all().size() == a.warnings[0].all().size());
}

TEST_CASE("work division: a program handed on without its trace breaks the same cycles") {
    // test::gather_cycle_trace: every member waiting for the last (Dimemas), rank 0 waits in the
    // Gather for rank 1, which waits for rank 0's message. The Gather's members left early in the
    // trace, so it replays as its data flows: 3 s on the ideal network. Handed on, the program
    // carries which collectives' members left early, with who and when; without that only sends
    // would relax and the replay would deadlock.
    const auto path = test::gather_cycle_trace("handed_cycle");
    pipeline::LoadOptions in_memory;
    in_memory.in_memory = true;
    const auto loaded = pipeline::load_program(path, {}, in_memory);
    REQUIRE(loaded.trace);
    std::string bytes;
    pipeline::loaded_program_to_bytes(loaded, bytes);
    auto handed = pipeline::loaded_program_from_bytes(bytes, path);
    CHECK_FALSE(handed.trace);
    const std::string why = "MPI_Gather: task 1 left it at 1.001000000 s, before task 2 entered at "
                            "2.001000000 s";
    CHECK(handed.left_early == std::map<replay::CollectiveIndex, std::string>{{0, why}});
    for (const pipeline::LoadedProgram* program : {&loaded, &std::as_const(handed)}) {
        replay::network::IdealNetwork ideal;
        replay::WarningLog warnings;
        CHECK(pipeline::replay_on(*program, ideal, {}, &warnings).runtime == 3 * k_ns_per_s);
        REQUIRE(warnings.find("collectives-replayed-as-data-flows") != nullptr);
        CHECK(warnings.find("collectives-replayed-as-data-flows")->instances ==
              std::vector<std::string>{why});
    }
    handed.left_early.clear();
    replay::network::IdealNetwork ideal;
    CHECK_THROWS_AS(pipeline::replay_on(handed, ideal, {}, nullptr), replay::ReplayDeadlock);
}

// SPDX-License-Identifier: BSD-3-Clause
// Where prv2dim cuts CPU bursts: the cuts read from small traces, each derived by hand from the
// rule in replay/input/prv2dim_cuts.hpp (prv2dim's TaskTranslationInfo, Dimemas 5.5.0).
#include "replay/input/paraver_reader.hpp"
#include "replay/input/prv2dim_cuts.hpp"
#include "replay/program/replay_program.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <vector>

using namespace popsim;
using namespace popsim::replay;

namespace {

Trace read_with_cuts(const std::string& path) {
    ReadOptions options;
    options.threads = 1;
    options.cut_bursts_if = [](const ParaverHeader&) { return true; };
    return read_paraver(path, options);
}

std::vector<Time> cuts_of(const ThreadTimeline& t) {
    return {t.burst_cuts.begin(), t.burst_cuts.end()};
}

std::vector<Time> burst_durations(const ReplayProgram& p, ReplayThread thread) {
    std::vector<Time> out;
    for (OpIndex op = p.thread_first_op[thread]; op < p.thread_end_op(thread); ++op)
        if (p.op_kind[op] == OpKind::burst) out.push_back(p.burst_duration(op));
    return out;
}

} // namespace

TEST_CASE("prv2dim cuts: which event types end a burst") {
    CHECK(prv2dim_plain_event(40000001));       // Application
    CHECK(prv2dim_plain_event(40000003));       // Flushing
    CHECK(prv2dim_plain_event(42000050));       // a hardware counter
    CHECK(prv2dim_plain_event(60000003));       // an OpenMP-range type prv2dim does not know
    CHECK_FALSE(prv2dim_plain_event(50000001)); // MPI calls
    CHECK_FALSE(prv2dim_plain_event(50000005));
    CHECK_FALSE(prv2dim_plain_event(60000019)); // user functions
    CHECK_FALSE(prv2dim_plain_event(60000001)); // OpenMP parallel
    CHECK_FALSE(prv2dim_plain_event(60000018));
    CHECK_FALSE(prv2dim_plain_event(90000001)); // cluster
    CHECK_FALSE(prv2dim_plain_event(63000000)); // CUDA
    CHECK_FALSE(prv2dim_plain_event(64100000)); // OpenCL
    CHECK_FALSE(prv2dim_plain_event(50000300)); // probe counter
    CHECK_FALSE(prv2dim_plain_event(12));       // pseudo logical receive
}

TEST_CASE("prv2dim cuts: two pieces at the start, one per event at time 0, one per later time") {
    // Rank 0: two events at 0 (an empty piece each, after the start's two), a Flushing begin at
    // 100 (a cut) and its end at 100 (the same time: none), a user function entered at 100 (no
    // time passed: none), a counter at 200 (a cut; the Send's entry at 200 then ends no piece),
    // an event at the Send's exit, 250 (none: the call ended there), the user function's exit at
    // 300 (a cut) and the Application end at 350 (a cut). Rank 1
    // starts at 50 (its "not created" time): a start piece up to 50; a user function entered at
    // 50 (none: no time passed); its events at its Recv's exit, 400, cut nothing (the end of a
    // user function that rank 1 left already is ignored).
    const auto path = test::synth_trace("prv2dim_cuts", test::k_prv2dim_cuts_program);
    const auto trace = read_with_cuts(path);
    CHECK(cuts_of(trace.threads[0]) == std::vector<Time>{0, 0, 0, 0, 100, 200, 300, 350});
    CHECK(cuts_of(trace.threads[1]) == std::vector<Time>{0, 50});
    // The program's bursts are those pieces: empty ones included, the one before the Send ended
    // by the cut at its entry, the last up to the thread's end (350).
    const auto program = build_replay_program(trace, {.threads = false});
    CHECK(burst_durations(program, 0) == std::vector<Time>{0, 0, 0, 0, 100, 100, 50, 50});
    CHECK(burst_durations(program, 1) == std::vector<Time>{0, 50});
    // Read without cuts, the bursts are whole.
    const auto whole = build_replay_program(test::read_quiet(path), {.threads = false});
    CHECK(burst_durations(whole, 0) == std::vector<Time>{200, 100});
    CHECK(burst_durations(whole, 1) == std::vector<Time>{50});
}

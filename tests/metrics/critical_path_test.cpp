// SPDX-License-Identifier: BSD-3-Clause
// Issue 18: the critical path of the ideal replay, by hand on a chain of late senders, and its
// length equal to the ideal runtime on the validation traces.
#include "metrics/critical_path.hpp"
#include "metrics/ideal_replay.hpp"
#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace popsim;

namespace {
metrics::CriticalPath path_of(const replay::Trace& trace) {
    const auto program = replay::build_replay_program(trace);
    replay::network::IdealNetwork ideal;
    return metrics::critical_path(
        program, replay::replay_events(program, ideal, {.timeline = true}),
        metrics::CodeRegions(trace, program, 0), metrics::StartupBursts(trace, program));
}
} // namespace

TEST_CASE("critical path: through a chain of late senders, by hand") {
    // Ideal network: rank 0 computes 10 us and sends to rank 1, whose Recv (from 2 us) ends at
    // 10 us; it sends at once to rank 2, whose Recv (from 1 us) ends at 10 us; rank 2 computes
    // 3 us more and ends last, at 13 us. Backwards: rank 2's 3 us, its wait leads to rank 1's
    // send, rank 1's wait to rank 0's send, then rank 0's 10 us. Rank 1's 2 us are off the path.
    const auto trace =
        test::read_quiet(test::synth_trace("critical_chain", test::k_late_sender_chain));
    const auto path = path_of(trace);
    CHECK(path.length == 13'000);
    CHECK(path.per_task == std::vector<Time>{10'000, 0, 3'000});
    CHECK(path.jumps == 2);
    CHECK(path.useful == std::vector<Time>{10'000, 2'000, 4'000});
    CHECK(path.imbalance() == 13'000 - 16'000 / 3); // the mean computation is 5.33 us
}

TEST_CASE("critical path: of the traced run, through its wait states, by hand") {
    // Traced chain: rank 2 ends last at 15 us; its Recv's wait ended at 11 us, when rank 1
    // entered its Send: 11-15 us on rank 2. Rank 1's Recv waited until rank 0's Send at 10 us:
    // 10-11 us on rank 1. Rank 0 from the start: 0-10 us.
    const auto trace =
        test::read_quiet(test::synth_trace("critical_traced", test::k_late_sender_chain));
    const auto program = replay::build_replay_program(trace);
    const auto calls = metrics::traced_calls(trace, program);
    const metrics::CodeRegions none(trace, program, 0);
    const auto path = metrics::traced_critical_path(
        trace, program, calls, metrics::wait_states(program, calls, none), none);
    CHECK(path.length == 15'000);
    CHECK(path.per_task == std::vector<Time>{10'000, 1'000, 4'000});
    CHECK(path.jumps == 2);
}

TEST_CASE("critical path: a late root of a broadcast, and a rendezvous") {
    // Rank 0 (the root) computes 6 us, then Bcast; ranks 1 and 2 enter it at 1 and 0 us and
    // wait for the root until 6 us. Rank 1 computes 2 us and sends 64 KB (rendezvous) to rank 2,
    // which posts its receive after 9 us of computing, at 15 us; both end at 16 us. The walk
    // starts on the lower, rank 1: its last 1 us, its Send's wait leads to rank 2's post, rank
    // 2's 9 us, its Bcast's wait to the root, rank 0's 6 us.
    const auto trace =
        test::read_quiet(test::synth_trace("critical_bcast", test::k_late_root_and_rendezvous));
    const auto path = path_of(trace);
    const auto ideal = metrics::ideal_run(trace, {});
    CHECK(path.length == ideal.runtime);
    CHECK(path.length == 16'000);
    CHECK(path.per_task == std::vector<Time>{6'000, 1'000, 9'000});
    CHECK(path.jumps == 2);
}

TEST_CASE("critical path: its length is the ideal runtime on every real trace") {
    std::size_t checked = 0;
    for (const auto& name : test::real_paraver_traces()) {
        CAPTURE(name);
        replay::Trace trace;
        try {
            trace = test::read_quiet(name);
        } catch (const replay::TraceError& e) { // the bad traces of the collection
            MESSAGE(e.what());
            continue;
        }
        ++checked;
        const auto path = path_of(trace);
        CHECK(path.length == metrics::ideal_run(trace, {}).runtime);
        Time on_path = 0;
        for (const Time t : path.per_task) on_path += t;
        for (const Time t : path.startup) on_path += t;
        CHECK(on_path == path.length);
        // The traced run's path spends all of the latest thread end somewhere.
        const auto program = replay::build_replay_program(trace);
        const auto calls = metrics::traced_calls(trace, program);
        const metrics::CodeRegions none(trace, program, 0);
        const auto traced = metrics::traced_critical_path(
            trace, program, calls, metrics::wait_states(program, calls, none), none);
        Time traced_on_path = 0;
        for (const Time t : traced.per_task) traced_on_path += t;
        CHECK(traced_on_path == traced.length);
        CHECK(traced.length > 0);
    }
    CHECK(checked >= 50);
}

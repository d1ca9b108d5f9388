// SPDX-License-Identifier: BSD-3-Clause
// Issue 18: wait states by Scalasca's patterns, on hand-computed synthetic traces, in the traced
// run and in the ideal replay.
#include "metrics/ideal_replay.hpp"
#include "metrics/root_causes.hpp"
#include "metrics/wait_states.hpp"
#include "replay/engine/engine.hpp"
#include "replay/extrae_events.hpp"
#include "replay/network/ideal.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace popsim;
using metrics::WaitPattern;

namespace {

struct Both {
    metrics::WaitStates traced, ideal;
};

Both wait_states_of(const std::string& name, const std::string& description) {
    const auto trace = test::read_quiet(test::synth_trace(name, description));
    const auto program = replay::build_replay_program(trace);
    replay::network::IdealNetwork ideal;
    const auto result = replay::replay_events(program, ideal, {.timeline = true});
    const metrics::CodeRegions regions(trace, program, 0);
    return {
        metrics::wait_states(program, metrics::traced_calls(trace, program), regions),
        metrics::wait_states(program, metrics::replayed_calls(trace, program, result), regions)};
}

/// (task, pattern, time in us, late task) of each instance.
std::vector<std::tuple<std::uint32_t, WaitPattern, Time, std::uint32_t>>
listed(const metrics::WaitStates& w) {
    std::vector<std::tuple<std::uint32_t, WaitPattern, Time, std::uint32_t>> out;
    for (const auto& i : w.instances)
        out.emplace_back(i.task, i.pattern, i.time / 1000, i.late_task);
    return out;
}

} // namespace

TEST_CASE("wait states: late senders along a chain") {
    // Rank 0 computes 10 us and sends to rank 1, which entered its Recv at 2 us: it waits 8 us.
    // Rank 1 then sends to rank 2 at 11 us; rank 2 entered its Recv at 1 us: 10 us. In the ideal
    // replay rank 1 leaves its Recv at 10 us and sends then: rank 2 waits 9 us.
    const auto w = wait_states_of("wait_chain", test::k_late_sender_chain);
    using L = decltype(listed(w.traced));
    CHECK(listed(w.traced) ==
          L{{1, WaitPattern::late_sender, 8, 0}, {2, WaitPattern::late_sender, 10, 1}});
    CHECK(listed(w.ideal) ==
          L{{1, WaitPattern::late_sender, 8, 0}, {2, WaitPattern::late_sender, 9, 1}});
    CHECK(w.traced.per_task[2][WaitPattern::late_sender] == 10'000);
    CHECK(w.traced.total.total() == 18'000);
}

TEST_CASE("wait states: a late receiver of a rendezvous send") {
    // 64 KB is past the 32 KB eager limit: rank 0's Send (entered at 1 us) waits for rank 1 to
    // post its receive at 8 us: 7 us. Rank 1's Recv does not wait: the send began before.
    const auto w = wait_states_of("wait_late_receiver", R"(ranks 2
0 compute 1us
0 Send 10us to=1 size=65536
1 compute 8us
1 Recv 3us from=0 size=65536
)");
    using L = decltype(listed(w.traced));
    CHECK(listed(w.traced) == L{{0, WaitPattern::late_receiver, 7, 1}});
    CHECK(listed(w.ideal) == L{{0, WaitPattern::late_receiver, 7, 1}});
}

TEST_CASE("wait states: collectives") {
    // Bcast from root 0, which enters at 5 us: ranks 1 and 2, in at 1 and 2 us, wait 4 and 3 us.
    // Reduce to root 0, in at 6 + 1 = 7 us... see each rank's timeline below.
    const auto bcast = wait_states_of("wait_bcast", R"(ranks 3
0 compute 5us
0 Bcast 1us root=0 size=8
1 compute 1us
1 Bcast 5us root=0 size=8
2 compute 2us
2 Bcast 4us root=0 size=8
)");
    using L = decltype(listed(bcast.traced));
    CHECK(listed(bcast.traced) ==
          L{{1, WaitPattern::late_broadcast, 4, 0}, {2, WaitPattern::late_broadcast, 3, 0}});
    // Reduce to root 0, in at 1 us; the others enter at 3 and 6 us: the root waits for the last,
    // 5 us; the others do not wait.
    const auto reduce = wait_states_of("wait_reduce", R"(ranks 3
0 compute 1us
0 Reduce 6us root=0 size=8
1 compute 3us
1 Reduce 1us root=0 size=8
2 compute 6us
2 Reduce 1us root=0 size=8
)");
    CHECK(listed(reduce.traced) == L{{0, WaitPattern::early_reduce, 5, 2}});
    // Allreduce then Barrier: rank 0 enters each 3 us before rank 1.
    const auto nxn = wait_states_of("wait_nxn", R"(ranks 2
0 compute 1us
0 Allreduce 4us size=8
0 compute 1us
0 Barrier 4us
1 compute 4us
1 Allreduce 1us size=8
1 compute 4us
1 Barrier 1us
)");
    CHECK(listed(nxn.traced) ==
          L{{0, WaitPattern::wait_at_nxn, 3, 1}, {0, WaitPattern::wait_at_barrier, 3, 1}});
    // Ideal: the Allreduce ends at 4 us for both; rank 0 enters the Barrier at 5, rank 1 at 8.
    CHECK(listed(nxn.ideal) ==
          L{{0, WaitPattern::wait_at_nxn, 3, 1}, {0, WaitPattern::wait_at_barrier, 3, 1}});
}

TEST_CASE("wait states: within each task's MPI time on the validation traces") {
    // A call's wait states run from its entry and are clamped to it, one per call: a task's
    // never exceed its MPI time, traced or on the ideal network.
    for (const char* name : {"epoch/epoch_8proc.prv.gz", "lammps-melt/lammps_melt_4.prv.gz"}) {
        CAPTURE(name);
        const auto trace = test::read_quiet(test::shared_data(name));
        const auto program = replay::build_replay_program(trace);
        const auto causes = metrics::root_causes(trace, program);
        const auto ideal = metrics::ideal_run(trace, program, {});
        for (std::uint32_t task = 0; task < program.tasks; ++task) {
            CAPTURE(task);
            const auto& t = trace.threads[program.trace_thread[program.master_thread(task)]];
            Time mpi = 0;
            for (std::size_t c = 0; c < t.call_id.size(); ++c)
                mpi += t.call_end[c] - t.call_begin[c];
            CHECK(causes.traced.per_task[task].total() <= mpi);
            CHECK(causes.ideal.per_task[task].total() <=
                  ideal.task_end[task] - ideal.task_useful[task]);
        }
        CHECK(causes.traced.total.total() > 0);
    }
}

TEST_CASE("wait states: each call's site, from the caller event on its entry's line") {
    // Rank 1 calls its Recv from function 7 (Extrae's caller event 70000001 at the entry) and
    // waits 8 us there; its Send, which does not wait, comes from function 9.
    replay::ReadOptions read = test::quiet_options();
    read.tracked_event_types.push_back(replay::extrae::k_caller);
    const auto trace = replay::read_paraver(test::synth_trace("wait_sites", R"(ranks 2
0 compute 10us
0 Send 1us to=1 size=8
1 compute 2us
1 event 70000001 7
1 Recv 9us from=0 size=8
1 event 70000001 9
1 Send 1us to=0 size=8
0 Recv 1us from=1 size=8
)"),
                                            read);
    const auto program = replay::build_replay_program(trace);
    const auto w = metrics::wait_states(program, metrics::traced_calls(trace, program),
                                        metrics::CodeRegions(trace, program, 0));
    const auto calls = metrics::wait_calls(w);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].call_site == 7);
    CHECK(calls[0].time == 8'000);
}

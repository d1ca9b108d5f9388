// SPDX-License-Identifier: BSD-3-Clause
// Issue 18: delay costs on hand-computed cases, and their identity on the validation traces:
// every instant of every wait of the ideal replay is some rank's computation.
#include "metrics/root_causes.hpp"
#include "replay/extrae_events.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <cstdlib>
#include <doctest/doctest.h>
#include <optional>

using namespace popsim;

namespace {
metrics::RootCauses causes_of(const std::string& path) {
    const auto trace = test::read_quiet(path);
    return metrics::root_causes(trace, replay::build_replay_program(trace));
}
using Pairs = std::map<std::pair<std::uint32_t, std::uint32_t>, Time>;
} // namespace

namespace {
metrics::RootCauses causes_with_regions(const std::string& path) {
    auto read = test::quiet_options();
    read.tracked_event_types.push_back(replay::extrae::k_user_function);
    read.tracked_event_types.push_back(replay::extrae::k_caller);
    const auto trace = replay::read_paraver(path, read);
    return metrics::root_causes(trace, replay::build_replay_program(trace));
}
using TaskRegions = std::map<std::pair<std::uint32_t, std::uint64_t>, Time>;
} // namespace

TEST_CASE("delay costs: a chain of late senders, by hand (ranks 0-based)") {
    // Ideal network (test_support's chain): rank 1 waits 2-10 us for rank 0, which computed
    // then: 8 us caused directly by rank 0. Rank 2 waits 1-10 us for rank 1's send at 10 us; rank
    // 1 was computing 1-2 us, but its send waited for rank 0's message anyway, so the chain that
    // set 10 us is rank 0's computation over all of 1-10 us: 9 us, caused by rank 0 through rank
    // 1's wait (not directly). Rank 1's 1 us changed nothing: it is charged nothing.
    const auto c = causes_of(test::synth_trace("delay_chain", test::k_late_sender_chain));
    CHECK(c.ideal.total.total() == 17'000);
    CHECK(c.delays.caused == std::vector<Time>{17'000, 0, 0});
    CHECK(c.delays.direct == std::vector<Time>{8'000, 0, 0});
    CHECK(c.delays.pairs == Pairs{{{0, 1}, 8'000}, {{0, 2}, 9'000}});
    CHECK(c.delays.unexplained == 0);
}

TEST_CASE("delay costs: a late root of a broadcast, and a late receiver, by hand (0-based)") {
    // Ideal network: ranks 1 and 2 wait in the Bcast for the root's entry at 6 us, from 1 and
    // 0 us: 5 + 6 us of rank 0's computation, directly. Rank 1 then computes 6-8 us, and its
    // rendezvous Send waits 8-15 us for rank 2's receive, posted after rank 2 computed 6-15 us:
    // 7 us caused directly by rank 2.
    const auto c = causes_of(test::synth_trace("delay_bcast", test::k_late_root_and_rendezvous));
    CHECK(c.ideal.total[metrics::WaitPattern::late_broadcast] == 11'000);
    CHECK(c.ideal.total[metrics::WaitPattern::late_receiver] == 7'000);
    CHECK(c.delays.caused == std::vector<Time>{11'000, 0, 7'000});
    CHECK(c.delays.direct == std::vector<Time>{11'000, 0, 7'000});
    CHECK(c.delays.pairs == Pairs{{{0, 1}, 5'000}, {{0, 2}, 6'000}, {{2, 1}, 7'000}});
    CHECK(c.delays.unexplained == 0);
}

TEST_CASE("delay costs: imbalance that alternates, with a perfect average balance") {
    // Two iterations of compute + Allreduce: rank 0 computes 3 then 1 us, rank 1 1 then 3 us
    // (4 us each). Rank 1 waits 2 us in the first Allreduce, caused by rank 0; rank 0 waits 2 us
    // in the second, caused by rank 1: serialisation with a perfect load balance.
    const auto c = causes_of(test::synth_trace("delay_alternating", R"(ranks 2
0 compute 3us
0 Allreduce 1us size=8
0 compute 1us
0 Allreduce 3us size=8
1 compute 1us
1 Allreduce 3us size=8
1 compute 3us
1 Allreduce 1us size=8
)"));
    CHECK(c.ideal.total.total() == 4'000);
    CHECK(c.delays.caused == std::vector<Time>{2'000, 2'000});
    CHECK(c.delays.pairs == Pairs{{{0, 1}, 2'000}, {{1, 0}, 2'000}});
    CHECK(c.critical_path.length == 6'000); // 3 + 3 us: each iteration's slower rank
}

TEST_CASE("delay costs: they add up to the ideal replay's waiting on every real trace") {
    std::size_t checked = 0;
    for (const auto& name : test::real_paraver_traces()) {
        CAPTURE(name);
        std::optional<metrics::RootCauses> c;
        try {
            c = causes_with_regions(name);
        } catch (const replay::TraceError& e) { // the bad traces of the collection
            MESSAGE(e.what());
            continue;
        }
        ++checked;
        Time caused = 0, in_pairs = 0, in_regions = 0, path_in_regions = 0;
        Time startup = 0, path_startup = 0; // the waiting start-up caused, start-up on the path
        for (const Time t : c->delays.caused) caused += t;
        for (const Time t : c->delays.startup) startup += t;
        for (const Time t : c->critical_path.startup) path_startup += t;
        for (const auto& [key, t] : c->delays.pairs) in_pairs += t;
        for (const auto& [key, t] : c->delays.regions) in_regions += t;
        for (const auto& [key, t] : c->critical_path.per_task_region) path_in_regions += t;
        CHECK(caused + startup + c->delays.unexplained == c->ideal.total.total());
        CHECK(c->delays.unexplained == 0);
        CHECK(in_pairs == caused);
        CHECK(in_regions == caused);
        CHECK(path_in_regions + path_startup == c->critical_path.length);
        Time traced_in_regions = 0;
        for (const auto& [key, t] : c->traced_path.per_task_region) traced_in_regions += t;
        CHECK(traced_in_regions == c->traced_path.length);
        // The regions' critical-path imbalances add up to the path's, up to a ns per region for
        // the mean's rounding and the OpenMP join waits (a task's computation, in no region).
        const auto& path = c->critical_path;
        Time useful = 0, in_regions_useful = 0, imbalances = 0;
        for (const Time t : path.useful) useful += t;
        for (const auto& [region, t] : path.region_useful) in_regions_useful += t;
        for (const auto& [region, t] : path.region_imbalance()) imbalances += t;
        CHECK(in_regions_useful <= useful);
        const auto slack = static_cast<Time>(path.region_useful.size()) +
                           (useful - in_regions_useful) / static_cast<Time>(path.useful.size()) + 1;
        CHECK(std::abs(imbalances - path.imbalance()) <= slack);
    }
    CHECK(checked >= 50);
}

TEST_CASE("root causes per code region: nested user functions, by hand (ranks 0-based)") {
    // The chain again, with user functions: rank 0 computes 4 us in function 1, then 6 us in
    // function 2 called from 1 (the innermost counts), and returns to 1 before its Send at
    // 10 us. Rank 2 enters function 3 after 1 us and stays in it (Recv, 3 us of computing).
    // Ideal network: rank 1 waits 2-10 us for rank 0's computation: 2-4 us in 1, 4-10 us in 2;
    // rank 2 waits 1-10 us, through rank 1, for rank 0's 1-4 us in 1 and 4-10 us in 2.
    const auto c =
        causes_with_regions(test::synth_trace("regions_nested", test::k_chain_in_functions));
    CHECK(c.region_type == replay::extrae::k_user_function);
    CHECK(c.delays.regions == TaskRegions{{{0, 1}, 2'000 + 3'000}, {{0, 2}, 6'000 + 6'000}});
    // The traced path (test_support's chain: rank 2 ends last at 15 us; 11-15 us on rank 2, in
    // function 3; 10-11 us on rank 1, outside functions; 0-10 us on rank 0: 0-4 us in 1, 4-10 us
    // in 2).
    CHECK(c.traced_path.per_task_region ==
          TaskRegions{{{0, 1}, 4'000}, {{0, 2}, 6'000}, {{1, 0}, 1'000}, {{2, 3}, 4'000}});
    // The ideal critical path: rank 0's 4 + 6 us, rank 2's last 3 us in function 3.
    CHECK(c.critical_path.per_task_region ==
          TaskRegions{{{0, 1}, 4'000}, {{0, 2}, 6'000}, {{2, 3}, 3'000}});
    // The ranks' computation per region: rank 0's 4 us in 1 and 6 us in 2, rank 1's 2 us and
    // rank 2's first 1 us outside functions, rank 2's last 3 us in 3. Each region's path time
    // less the mean over the 3 ranks: 1: 4 - 4/3, 2: 6 - 2, 3: 3 - 1, none: 0 - 1 (us); they add
    // up to the path's imbalance, 13 - 16/3 us.
    CHECK(c.critical_path.region_useful ==
          std::map<std::uint64_t, Time>{{0, 3'000}, {1, 4'000}, {2, 6'000}, {3, 3'000}});
    using Imbalance = std::vector<std::pair<std::uint64_t, Time>>;
    CHECK(c.critical_path.region_imbalance() ==
          Imbalance{{2, 4'000}, {1, 2'667}, {3, 2'000}, {0, -1'000}});
    CHECK(c.critical_path.imbalance() == 7'667);
    // Where the waiting happens: rank 2's 9 us in function 3, rank 1's 8 us outside functions.
    const auto where = metrics::wait_regions(c.ideal);
    REQUIRE(where.size() == 2);
    CHECK(std::tuple(where[0].region, where[0].time) == std::tuple(3u, 9'000));
    CHECK(std::tuple(where[1].region, where[1].time) == std::tuple(0u, 8'000));
}

TEST_CASE("root causes per code region: callers of MPI calls, by hand (ranks 0-based)") {
    // Without user functions, the regions are the callers of MPI calls (Extrae's 70000001 on
    // the call's entry line), and computation belongs to the call it leads to: rank 0's first
    // 4 us to its Send from function 7, the next 5 us to its Send from function 8.
    const auto c = causes_with_regions(test::synth_trace("regions_callers", R"(ranks 2
0 compute 4us
0 event 70000001 7
0 Send 1us to=1 size=8
0 compute 5us
0 event 70000001 8
0 Send 1us to=1 size=8
1 compute 1us
1 Recv 4us from=0 size=8
1 Recv 6us from=0 size=8
)"));
    CHECK(c.region_type == replay::extrae::k_caller);
    // Ideal: rank 1 waits 1-4 us for the first message (rank 0's computation in 7), then 4-9 us
    // for the second (in 8: the Sends take no time on the ideal network).
    CHECK(c.delays.regions == TaskRegions{{{0, 7}, 3'000}, {{0, 8}, 5'000}});
    CHECK(c.critical_path.per_task_region == TaskRegions{{{0, 7}, 4'000}, {{0, 8}, 5'000}});
}

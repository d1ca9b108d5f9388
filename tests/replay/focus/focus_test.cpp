// SPDX-License-Identifier: BSD-3-Clause
// Focus of analysis in the library: windows cut in memory, phases and region instances, and the
// names that select them. Expected values are computed by hand from the descriptions.
#include "metrics/ideal_replay.hpp"
#include "metrics/pop_mpi.hpp"
#include "replay/focus/event_spec.hpp"
#include "replay/focus/focus_windows.hpp"
#include "replay/focus/trace_window.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace popsim;
using replay::TimeWindow;

namespace {

/// Three phases on 2 ranks, each starting with event 1000 on both ranks:
///  1. [0, 2.5 s): rank 0 computes 2 s, rank 1 1 s, then a barrier (load imbalance);
///  2. [2.5, 4.7 s): rank 1 waits for rank 0's message before computing (serialisation);
///  3. [4.7, 5.9 s): both compute 1 s, then a barrier that costs 0.2 s (transfer).
const char* k_three_phases = R"(ranks 2
0 event 1000 1
0 compute 2s ins=4000 cyc=2000
0 Barrier 500ms
1 event 1000 1
1 compute 1s ins=1000 cyc=1000
1 Barrier 1500ms
0 event 1000 2
0 compute 1s
0 Send 100ms to=1 size=8
0 Barrier 1100ms
1 event 1000 2
1 Recv 1100ms from=0 size=8
1 compute 1s
1 Barrier 100ms
0 event 1000 3
0 compute 1s
0 Barrier 200ms
1 event 1000 3
1 compute 1s
1 Barrier 200ms
)";

replay::Trace read_focus(const std::string& path, std::uint32_t region_type) {
    replay::ReadOptions options;
    options.read_labels = false;
    options.tracked_event_types = replay::focus_event_types(options.tracked_event_types);
    options.tracked_event_types.push_back(region_type);
    return replay::read_paraver(path, options);
}

metrics::TraceSummary analysed(const replay::Trace& trace) {
    auto s = metrics::summarize(trace);
    s.ideal = metrics::ideal_run(trace, {});
    return s;
}

replay::EventSelector any_value(std::uint32_t type) {
    return {.type = type, .values = {}, .description = "test"};
}

} // namespace

TEST_CASE("focus: phases of a synthetic run have the efficiencies computed by hand") {
    const auto trace = read_focus(test::synth_trace("focus_three_phases", k_three_phases), 1000);
    const auto phases = replay::phase_windows(trace, any_value(1000));
    REQUIRE(phases.size() == 3);
    CHECK(phases[0].from == 0);
    CHECK(phases[0].to == 2'500'000'000);
    CHECK(phases[1].to == 4'700'000'000);
    CHECK(phases[2].to == 5'900'000'000);
    struct Expected {
        double pe, lb, comm, ser, transfer;
        Time ideal;
    };
    // Phase 2: rank 1 receives at 1 s on the ideal network and computes until 2 s, so SerE =
    // max ideal useful / ideal runtime = 1/2, TE = CommE / SerE = (1/2.2) / (1/2) = 2/2.2.
    const Expected expected[] = {{0.6, 0.75, 0.8, 1.0, 0.8, 2'000'000'000},
                                 {1 / 2.2, 1.0, 1 / 2.2, 0.5, 2 / 2.2, 2'000'000'000},
                                 {1 / 1.2, 1.0, 1 / 1.2, 1.0, 1 / 1.2, 1'000'000'000}};
    double weighted_pe = 0;
    Time ideal_sum = 0;
    for (std::size_t k = 0; k < 3; ++k) {
        CAPTURE(k);
        const auto s = analysed(replay::window_of(trace, phases[k]));
        const auto e = metrics::mpi_multiplicative(s, metrics::SerTransConvention::modelfactors);
        CHECK(e.parallel == doctest::Approx(expected[k].pe));
        CHECK(e.load_balance == doctest::Approx(expected[k].lb));
        CHECK(e.communication == doctest::Approx(expected[k].comm));
        CHECK(*e.serialization == doctest::Approx(expected[k].ser));
        CHECK(*e.transfer == doctest::Approx(expected[k].transfer));
        CHECK(s.ideal->runtime == expected[k].ideal);
        weighted_pe += e.parallel * static_cast<double>(s.runtime);
        ideal_sum += s.ideal->runtime;
    }
    // Parallel efficiency is a ratio of sums, so the phases' time-weighted mean is the whole
    // run's (3.5 s of average useful in 5.9 s); LB and CommE are ratios of maxima and are not.
    const auto whole = analysed(trace);
    const auto w = metrics::mpi_multiplicative(whole, metrics::SerTransConvention::modelfactors);
    CHECK(weighted_pe / 5.9e9 == doctest::Approx(w.parallel));
    CHECK(w.parallel == doctest::Approx(3.5 / 5.9));
    CHECK(w.load_balance == doctest::Approx(3.5 / 4.0));
    // The barriers end every phase on both ranks, so the whole ideal run is the phases' one
    // after the other.
    CHECK(whole.ideal->runtime == ideal_sum);
}

TEST_CASE(
    "focus: a window counts the counters of its own bursts, and the whole window is the trace") {
    const auto trace = read_focus(test::synth_trace("focus_counters", k_three_phases), 1000);
    const auto first =
        metrics::summarize(replay::window_of(trace, {.from = 0, .to = 2'500'000'000}));
    CHECK(first.instructions == 5000);
    CHECK(first.cycles == 3000);
    // Half of rank 0's first burst: its read, at 2 s, is outside the window [0, 1.5 s).
    const auto half =
        metrics::summarize(replay::window_of(trace, {.from = 0, .to = 1'500'000'000}));
    CHECK(half.instructions == 1000);
    CHECK(half.useful[0] == 1'500'000'000);
    CHECK(half.useful[1] == 1'000'000'000);

    const auto whole = analysed(trace);
    const auto all = analysed(replay::window_of(trace, {.from = 0, .to = trace.end_time()}));
    CHECK(all.runtime == whole.runtime);
    CHECK(all.useful == whole.useful);
    CHECK(all.instructions == whole.instructions);
    CHECK(all.ideal->runtime == whole.ideal->runtime);
    CHECK(all.ideal->task_useful == whole.ideal->task_useful);
}

TEST_CASE("focus: a call open at the window's start is replayed from the start") {
    // Rank 1 is in its Recv from 0 to 3 s; the window [1 s, 4 s) begins inside it. On the ideal
    // network the message, sent at 2 s (1 s into the window), arrives at once: rank 1 computes
    // from 1 s to 2 s of the window, and the window's ideal runtime is 2 s.
    const auto trace = read_focus(test::synth_trace("focus_open_call", R"(ranks 2
0 compute 2s
0 Send 1s to=1 size=8
0 compute 1s
1 Recv 3s from=0 size=8
1 compute 1s
)"),
                                  1000);
    const auto w = analysed(replay::window_of(trace, {.from = 1'000'000'000, .to = 4'000'000'000}));
    CHECK(w.runtime == 3'000'000'000);
    CHECK(w.useful[0] == 2'000'000'000); // 1 s before the send, 1 s after
    CHECK(w.useful[1] == 1'000'000'000);
    // The message's send (2 s) lies in the window, its receive's posting (0 s) does not: it is
    // cut in half and dropped, so rank 1's Recv, open at the start, completes at once.
    CHECK(w.ideal->runtime == 2'000'000'000);
}

TEST_CASE("focus: calls of no length at one time keep their order in a window") {
    // At 1 us the thread leaves an Isend of no length and enters an Irecv of no length on one
    // line, then leaves that and enters an Allreduce on the next, as Extrae writes them; the
    // Allreduce lasts until 3 us. A window cut from the model must write the same order (the
    // fuzz smoke run found windows entering the Allreduce before the Irecv had left).
    const auto dir = test::scratch_dir("focus_zero_calls");
    const auto trace = test::read_quiet(test::write_file(
        dir / "zero.prv", "#Paraver (01/01/2026 at 00:00):4000_ns:1(1):1:1(1:1),0\n"
                          "1:1:1:1:1:0:1000:1\n1:1:1:1:1:1000:3000:13\n1:1:1:1:1:3000:4000:1\n"
                          "2:1:1:1:1:1000:50000001:3\n"
                          "2:1:1:1:1:1000:50000001:0:50000001:4\n"
                          "2:1:1:1:1:1000:50000001:0:50000002:10\n"
                          "2:1:1:1:1:3000:50000002:0\n"));
    REQUIRE(trace.threads[0].call_id.size() == 3);
    const auto w = replay::window_of(trace, {.from = 500, .to = 3500});
    const auto& calls = w.threads[0];
    REQUIRE(calls.call_id.size() == 3);
    CHECK(calls.call_id[0] == 3);
    CHECK(calls.call_id[1] == 4);
    CHECK(calls.call_id[2] == 10);
    CHECK(calls.call_begin[1] == 500); // 1 us, 500 ns into the window
    CHECK(calls.call_end[1] == 500);
    CHECK(calls.call_begin[2] == 500);
    CHECK(calls.call_end[2] == 2500);
}

TEST_CASE("focus: region instances span each k-th entry on every thread") {
    const auto trace = read_focus(test::synth_trace("focus_instances", R"(ranks 2
0 compute 1s
0 event 2000 7
0 compute 1s
0 event 2000 0
0 compute 1s
0 event 2000 7
0 compute 1s
0 event 2000 0
1 compute 1500ms
1 event 2000 7
1 compute 1s
1 event 2000 0
1 compute 500ms
1 event 2000 7
1 compute 500ms
1 event 2000 0
1 compute 500ms
)"),
                                  2000);
    const auto r =
        replay::region_instances(trace, {.type = 2000, .values = {7}, .description = ""});
    REQUIRE(r.windows.size() == 2);
    CHECK(r.windows[0].from == 1'000'000'000);
    CHECK(r.windows[0].to == 2'500'000'000);
    CHECK(r.windows[1].from == 3'000'000'000);
    CHECK(r.windows[1].to == 4'000'000'000);
    CHECK(r.threads_inside == 2);
    CHECK(replay::region_instances(trace, {.type = 2000, .values = {8}, .description = ""})
              .windows.empty());
}

TEST_CASE("focus: region names resolve against the .pcf, with the nearest names when none fits") {
    replay::TraceLabels labels;
    labels.event_types = {{60000019, "User function"}, {1000, "Iteration"}};
    labels.event_values = {{60000019, 0, "End"},
                           {60000019, 3, "solve_system"},
                           {60000019, 4, "solve_halo"},
                           {60000019, 5, "init"}};
    auto s = replay::resolve_event_spec("Iteration", labels);
    CHECK(s.type == 1000);
    CHECK(s.values.empty());
    s = replay::resolve_event_spec("solve*", labels);
    CHECK(s.type == 60000019);
    CHECK(s.values == std::vector<std::uint64_t>{3, 4});
    s = replay::resolve_event_spec("60000019:5", labels);
    CHECK(s.values == std::vector<std::uint64_t>{5});
    CHECK(s.description == "User function init (60000019:5)");
    s = replay::resolve_event_spec("MPI_Allreduce", labels); // no .pcf entry: Extrae's call table
    CHECK(s.type == 50000002);
    CHECK(s.values == std::vector<std::uint64_t>{10});
    CHECK_THROWS_WITH_AS(replay::resolve_event_spec("solv_sytem", labels),
                         "no event type or value of the .pcf is named 'solv_sytem' (nearest: "
                         "'solve_system', 'solve_halo', 'init')",
                         replay::BadEventSpec);
    CHECK_THROWS_WITH_AS(replay::resolve_event_spec("60000019:0", labels),
                         "'60000019:0': the value after ':' must be a number above 0 (0 ends a "
                         "region)",
                         replay::BadEventSpec);
}

TEST_CASE("focus: collectives keep their numbers of the whole run across a window's start") {
    // Rank 0, the root, leaves its Bcast at 1.01 s, before the window [1.5 s, 3.02 s); rank 1
    // enters it at 2 s, inside. Matched by their order in the window alone, rank 1's Bcast would
    // meet rank 0's Allreduce; numbered as in the whole run, it completes alone (its root called
    // it before the window) and the Allreduces meet. Ideal window: rank 1 computes 0.5 s, the
    // Allreduce ends there, both compute 1 s: 1.5 s.
    const auto trace = read_focus(test::synth_trace("focus_cut_collectives", R"(ranks 2
0 compute 1s
0 Bcast 10ms root=0
0 Allreduce 1010ms
0 compute 1s
1 compute 2s
1 Bcast 10ms root=0
1 Allreduce 10ms
1 compute 1s
)"),
                                  1000);
    const auto window = replay::window_of(trace, {.from = 1'500'000'000, .to = 3'020'000'000});
    REQUIRE(window.collectives_before_cut.size() == 1);
    CHECK(window.collectives_before_cut[0].task == 1);
    CHECK(window.collectives_before_cut[0].calls == 1);
    const auto s = analysed(window);
    CHECK(s.ideal->runtime == 1'500'000'000);
    CHECK(s.useful[1] == 1'500'000'000);
}

// SPDX-License-Identifier: BSD-3-Clause
// popsim synth on extreme descriptions: operations of zero length and times near the limit.
#include "replay/synth.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>

using namespace popsim;

TEST_CASE("synth: operations of zero length write no records and no crash") {
    // A 1-rank description whose only or last operation lasts 0 s (or rounds to 0 ns) crashed the
    // writer (issue: hardening, item 1).
    for (const char* description :
         {"ranks 1\n0 compute 0s\n", "ranks 1\n0 compute 1s\n0 idle 0s\n",
          "ranks 1\n0 compute 0.4ns\n", "ranks 2\n0 compute 1s\n1 idle 0s\n"}) {
        CAPTURE(description);
        const auto trace = test::read_quiet(test::synth_trace("zero_length", description));
        CHECK(trace.end_time() <= 1 * k_ns_per_s);
    }
}

TEST_CASE("synth: durations and times past 2^62 ns are refused before anything is written") {
    const auto dir = test::scratch_dir("synth_limits");
    CHECK_THROWS_WITH_AS(
        replay::synth::parse_description("ranks 1\n0 compute 10000000000s\n", "big.synth"),
        "big.synth:2: '10000000000s' is not a duration of at most 2^62 ns (e.g. 8s, 250ms, 3us, "
        "12ns)",
        replay::TraceError);
    const auto sum = replay::synth::parse_description(
        "ranks 1\n0 compute 4000000000s\n0 compute 4000000000s\n", "sum.synth");
    const auto out = (dir / "sum.prv").string();
    CHECK_THROWS_WITH_AS(replay::synth::write_paraver(sum, out),
                         "sum.synth:3: rank 0 thread 0 operation 2 ends after 2^62 ns, the longest "
                         "time popsim handles",
                         replay::TraceError);
    CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("synth: threads idle until an explicit end, and a later declared end makes a truncated "
          "trace") {
    // Rank 0 finishes at 1 s, rank 1 at 2 s, the run ends at 3 s: both idle until then, so the
    // records reach the end the header declares.
    const auto trace = test::read_quiet(
        test::synth_trace("idle_until_end", "ranks 2\n0 compute 1s\n1 compute 2s\nend 3s\n"));
    CHECK(trace.end_time() == 3 * k_ns_per_s);
    REQUIRE(trace.threads[0].state_count() == 2);
    CHECK(trace.threads[0].state_begin[1] == 1 * k_ns_per_s);
    CHECK(trace.threads[0].state_value[1] == 0); // Idle
    CHECK(trace.threads[1].state_begin[1] == 2 * k_ns_per_s);
    const auto path =
        test::synth_trace("declared_after_last", "ranks 1\n0 compute 1s\ndeclared_end 4s\n");
    CHECK_THROWS_WITH_AS(test::read_quiet(path),
                         doctest::Contains("the trace is truncated (an interrupted merge, copy or "
                                           "simulate -o?): the records end at 1.000000000 s, "
                                           "75.0 % of the run the header declares"),
                         replay::TraceError);
}

TEST_CASE("synth: operations that contradict each other are named by their description line") {
    auto check = [](const char* description, const char* message) {
        CAPTURE(description);
        const auto program = replay::synth::parse_description(description, "d.synth");
        const auto out = (test::scratch_dir("synth_contradictions") / "t.prv").string();
        CHECK_THROWS_WITH_AS(replay::synth::write_paraver(program, out), message,
                             replay::TraceError);
    };
    check("ranks 2\n0 compute 1s\n0 Send 1s to=1\n1 compute 1s\n",
          "d.synth:3: rank 0 sends 1 messages with tag 0 to rank 1, which receives 0");
    check("ranks 2\n0 compute 1s\n1 Recv 1s from=0\n1 Recv 1s from=0\n",
          "d.synth:3: rank 1 receives 2 messages with tag 0 from rank 0, which sends none");
    check("ranks 2\n0 compute 1s\n0 Irecv 1s from=1 req=a\n1 Send 1s to=0\n",
          "d.synth:3: rank 0 thread 0 operation 2: no later Wait/Test completes its request");
    check("ranks 1\n0 compute 2s\n0 at 1s\n",
          "d.synth:3: rank 0 thread 0 operation 2 jumps back in time to 1000000000 ns");
    // Issue 35, item 6: synth wrote traces that analyze refuses.
    check("ranks 2\n0 Allreduce 1us\n0 Allreduce 1us\n1 Allreduce 1us\n",
          "d.synth:3: rank 0 makes 2 collectives on communicator 1, rank 1 makes 1: every rank of "
          "a communicator calls each of its collectives");
    check("ranks 2\n0 Allreduce 1us\n1 Bcast 1us root=0\n",
          "d.synth:3: collective 1 on communicator 1 is MPI_Bcast on rank 1 and MPI_Allreduce on "
          "rank 0");
}

TEST_CASE("synth: a Wait naming an unknown request is refused as docs/synth.md says") {
    CHECK_THROWS_WITH_AS(
        replay::synth::parse_description("ranks 1\n0 Irecv 1us from=0 req=a\n0 Wait 1us req=b\n",
                                         "d.synth"),
        "d.synth:3: req=b names a request that no earlier Irecv or Isend of this thread creates",
        replay::TraceError);
}

TEST_CASE("synth: a communicator other than the world is its callers', with its c: line") {
    // Ranks 1 and 2 of three call Allreduce on communicator 5: it is theirs, and analyze reads it
    // (it said "communicator 5, which no c: line defines").
    const auto prv = test::synth_trace(
        "synth_comm", "ranks 3\n1 Allreduce 1us comm=5\n2 Allreduce 1us comm=5\n0 compute 1us\n");
    const auto text = test::read_file(prv);
    CHECK(text.find("\nc:1:1:3:1:2:3\nc:1:5:2:2:3\n") != std::string::npos);
    CHECK(test::read_quiet(prv).header.communicators.size() == 2);
}

TEST_CASE("synth: the .pcf declares OpenMP's event types only for a program with OpenMP") {
    // prv2dim takes a .pcf declaring type 60000001 for an OpenMP trace's and maps its tasks as
    // OpenMP tasks (Dimemas then warns "OpenMP tasks greater than number of nodes defined" and can
    // abort), as Extrae writes them only for OpenMP runs.
    auto pcf = [](const std::string& name, const std::string& description) {
        const auto prv = test::synth_trace(name, description);
        return test::read_file(prv.substr(0, prv.size() - 4) + ".pcf");
    };
    const auto mpi = pcf("synth_pcf_mpi", "ranks 2\n0 Send 1us to=1\n1 Recv 1us from=0\n");
    CHECK(mpi.find("50000001    MPI Point-to-point") != std::string::npos);
    CHECK(mpi.find("60000001") == std::string::npos);
    const auto threads = pcf("synth_pcf_threads", "ranks 1 threads 2\n0.1 compute 1us\n");
    CHECK(threads.find("0    60000001    Parallel (OMP)") != std::string::npos);
    const auto one_thread =
        pcf("synth_pcf_one_thread", "ranks 1\n0 event 60000001 1\n0 compute 1us\n");
    CHECK(one_thread.find("0    60000001    Parallel (OMP)") != std::string::npos);
}

TEST_CASE("synth --halo: MPI calls are 300 ns apart, so no record lies on the next call's entry") {
    // prv2dim places a record in the call around its time: an Irecv's exit that is also the next
    // call's entry went to the wrong call, and Dimemas could not replay the trace (issue 37).
    const auto path = (test::scratch_dir("synth_halo_gaps") / "halo.prv").string();
    replay::synth::write_paraver(replay::synth::halo_exchange(4, 12), path);
    const auto trace = test::read_quiet(path);
    std::size_t gaps = 0;
    for (const auto& th : trace.threads) {
        for (std::size_t i = 1; i < th.call_begin.size(); ++i, ++gaps)
            CHECK(th.call_begin[i] - th.call_end[i - 1] >= 300);
    }
    CHECK(gaps == 4 * (12 * 5 + 1 - 1)); // 5 calls a step, an Allreduce at step 10
    const auto& c = trace.comms;
    REQUIRE(c.size() == 4 * 12 * 2);
    for (std::size_t m = 0; m < c.size(); ++m) {
        const auto& calls = trace.threads[c.receiver[m]].call_begin;
        CHECK(std::find(calls.begin(), calls.end(), c.logical_recv[m]) == calls.end());
    }
}

// SPDX-License-Identifier: BSD-3-Clause
// MPI semantics of the ideal-network replay on small synthetic traces. Each expected runtime is
// worked out by hand in the comment above it; every case also checks that the event engine and
// the longest-path pass give the same timeline.
#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/program/dependency_graph.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fstream>

using namespace popsim;
using namespace popsim::replay;

namespace {

constexpr Time s = k_ns_per_s;

struct BothReplays {
    ReplayProgram program;
    ReplayResult events;
    ReplayResult longest;
};

BothReplays replay_both(const std::string& name, const std::string& description,
                        ProgramOptions options = {}) {
    const auto trace = test::read_quiet(test::synth_trace(name, description));
    BothReplays r{build_replay_program(trace, options), {}, {}};
    network::IdealNetwork ideal;
    r.events = replay_events(r.program, ideal);
    r.longest = replay_longest_path(r.program, build_dependency_graph(r.program));
    CHECK(r.events.runtime == r.longest.runtime);
    CHECK(r.events.op_end == r.longest.op_end);
    CHECK(r.events.op_begin == r.longest.op_begin);
    for (std::size_t t = 0; t < r.events.threads.size(); ++t) {
        CHECK(r.events.threads[t].end == r.longest.threads[t].end);
        CHECK(r.events.threads[t].useful == r.longest.threads[t].useful);
    }
    return r;
}

// r0 computes 1 s, sends, computes 2 s; r1 computes 3 s, receives, computes 1 s.
std::string send_recv(const char* call, std::uint64_t bytes) {
    return "ranks 2\n0 compute 1s\n0 " + std::string(call) +
           " 5s to=1 size=" + std::to_string(bytes) +
           "\n0 compute 2s\n1 compute 3s\n1 Recv 4s from=0 size=" + std::to_string(bytes) +
           "\n1 compute 1s\n";
}

} // namespace

TEST_CASE("replay: a trace without operations replays to runtime 0") {
    const auto r = replay_both("empty", "ranks 2\n");
    CHECK(r.events.runtime == 0);
}

TEST_CASE("replay: an eager send never waits for its receiver") {
    // r0: 1 s + send (eager, leaves at once) + 2 s = 3 s. r1: 3 s, the data arrived at 1 s, + 1 s =
    // 4 s.
    const auto r = replay_both("eager", send_recv("Send", 100));
    CHECK(r.events.threads[0].end == 3 * s);
    CHECK(r.events.threads[1].end == 4 * s);
    CHECK(r.events.runtime == 4 * s);
    CHECK(r.events.max_useful(r.program) == 4 * s);
}

TEST_CASE("replay: a send at or above the eager limit waits for the receive (rendezvous)") {
    // r0's send waits for r1's post at 3 s: r0 = 3 + 2 = 5 s; r1 = 3 + 1 = 4 s.
    const auto r = replay_both("rendezvous", send_recv("Send", 32 * 1024));
    CHECK(r.events.threads[0].end == 5 * s);
    CHECK(r.events.threads[1].end == 4 * s);
    SUBCASE("a larger eager limit makes it eager again") {
        ProgramOptions o;
        o.eager_limit_bytes = 64 * 1024;
        CHECK(replay_both("rendezvous_eager", send_recv("Send", 32 * 1024), o)
                  .events.threads[0]
                  .end == 3 * s);
    }
    SUBCASE("Ssend and Rsend behave like Send") {
        CHECK(replay_both("ssend", send_recv("Ssend", 1 << 20)).events.threads[0].end == 5 * s);
        CHECK(replay_both("rsend", send_recv("Rsend", 1 << 20)).events.threads[0].end == 5 * s);
    }
    SUBCASE("Bsend and Isend never block") {
        CHECK(replay_both("bsend", send_recv("Bsend", 1 << 20)).events.threads[0].end == 3 * s);
    }
}

TEST_CASE("replay: Isend/Irecv with Wait") {
    // r1 posts at 0, computes 3 s, waits: r0's Isend left at 1 s, so r1 leaves the Wait at 3 s,
    // then computes 1 s = 4 s (MPI time is not replayed: the traced 1 ms Irecv disappears).
    // r0: 1 s, Isend (immediate: 1 MiB still does not block), 2 s, Wait on its send request (a
    // send-side Wait replays as nothing) = 3 s.
    const auto r = replay_both("isend", R"(ranks 2
0 compute 1s
0 Isend 1ms to=1 size=1048576 req=s
0 compute 2s
0 Wait 1ms req=s
1 Irecv 1ms from=0 size=1048576 req=r
1 compute 3s
1 Wait 2s req=r
1 compute 1s
)");
    CHECK(r.events.threads[0].end == 3 * s);
    CHECK(r.events.threads[1].end == 4 * s);
}

TEST_CASE("replay: a Wait whose message is sent later blocks until the send") {
    // r1 posts, computes 1 s, waits; r0 computes 4 s then sends: r1 leaves the Wait at 4 s.
    const auto r = replay_both("late_send", R"(ranks 2
0 compute 4s
0 Send 1ms to=1 size=8
1 Irecv 1ms from=0 size=8 req=a
1 compute 1s
1 Wait 3s req=a
)");
    CHECK(r.events.threads[1].end == 4 * s);
    CHECK(r.events.threads[1].useful == 1 * s);
}

TEST_CASE("replay: Waitall completes the latest of its messages") {
    // r2 posts two receives and waits for both: from r0 (sends at 2 s) and r1 (sends at 5 s).
    const auto r = replay_both("waitall", R"(ranks 3
0 compute 2s
0 Send 1ms to=2 size=8
1 compute 5s
1 Send 1ms to=2 size=8
2 Irecv 1ms from=0 size=8 req=a
2 Irecv 1ms from=1 size=8 req=b
2 compute 1s
2 Waitall 5s req=a,b
2 compute 1s
)");
    CHECK(r.events.threads[2].end == 6 * s);
}

TEST_CASE("replay: Waitany and Test complete exactly the message the trace says") {
    const auto r = replay_both("waitany", R"(ranks 2
0 compute 2s
0 Send 1ms to=1 size=8
1 Irecv 1ms from=0 size=8 req=a
1 compute 3s
1 Test 1ms req=a
1 compute 1s
1 Waitany 2s req=a
1 compute 1s
)");
    // The Test (traced as the completion) comes first: the message, sent at 2 s, is there when it
    // runs at 3 s; the Waitany completes nothing. 3 s + 1 s + 1 s.
    CHECK(r.events.threads[1].end == 5 * s);
}

TEST_CASE("replay: Sendrecv exchange with rendezvous does not deadlock") {
    // Both post their receive before sending: r0 sends at 2 s (r1 posted at 1 s), r1 sends at 1 s
    // and waits for r0's post at 2 s. Both leave at 2 s, then compute 1 s.
    const auto r = replay_both("sendrecv", R"(ranks 2
0 compute 2s
0 Sendrecv 1s to=1 from=1 size=1048576
0 compute 1s
1 compute 1s
1 Sendrecv 2s to=0 from=0 size=1048576
1 compute 1s
)");
    CHECK(r.events.threads[0].end == 3 * s);
    CHECK(r.events.threads[1].end == 3 * s);
}

TEST_CASE("replay: collectives synchronise their communicator") {
    // Allreduce: everyone leaves when the last (3 s) arrives, then 1 s: 4 s.
    const auto r = replay_both("allreduce", R"(ranks 3
0 compute 1s
0 Allreduce 3s size=8
0 compute 1s
1 compute 2s
1 Allreduce 2s size=8
1 compute 1s
2 compute 3s
2 Allreduce 1s size=8
2 compute 1s
)");
    for (const auto& t : r.events.threads) CHECK(t.end == 4 * s);
    CHECK(r.program.collectives.size() == 1);
    CHECK(r.program.collectives[0].member_count == 3);
}

TEST_CASE("replay: a task's collectives are numbered in time order across its threads") {
    // Issue 35, must-show 3 (the fuzz target's window invariant): the replay numbered a task's
    // collectives thread by thread, a window counts those before it by time; with two threads
    // calling collectives the whole trace replayed and its window was refused. By MPI's rule (one
    // order per communicator, in time), rank 0 below calls Barrier first and rank 1 Allreduce.
    const std::string masters = "0.0 compute 1us\n0.0 Allreduce 1us size=8\n0.0 compute 10us\n"
                                "0.0 Reduce 1us size=8 root=0\n1.0 compute 1us\n"
                                "1.0 Allreduce 1us size=8\n1.0 compute 10us\n"
                                "1.0 Reduce 1us size=8 root=0\n";
    const auto crossed =
        test::synth_trace("collectives_threads_crossed", "ranks 2 threads 2\n" + masters +
                                                             "0.1 compute 500ns\n0.1 Barrier 1us\n"
                                                             "1.1 compute 5us\n1.1 Barrier 1us\n");
    CHECK_THROWS_WITH_AS(build_replay_program(test::read_quiet(crossed)),
                         (crossed + ": collective #1 on communicator 1: task 2 calls "
                                    "MPI_Allreduce at 1000 ns where others call MPI_Barrier")
                             .c_str(),
                         TraceError);
    // Both workers after the Allreduce: Allreduce, Barrier, Reduce on both ranks.
    const auto ordered =
        test::synth_trace("collectives_threads_ordered", "ranks 2 threads 2\n" + masters +
                                                             "0.1 compute 5us\n0.1 Barrier 1us\n"
                                                             "1.1 compute 5us\n1.1 Barrier 1us\n");
    const auto program = build_replay_program(test::read_quiet(ordered));
    REQUIRE(program.collectives.size() == 3);
    CHECK(program.collectives[1].call_id == k_mpi_barrier);
}

TEST_CASE("replay: rooted collectives record their root") {
    const auto r = replay_both(
        "bcast", "ranks 2\n0 Bcast 1s size=64 root=1\n1 compute 2s\n1 Bcast 1s size=64 root=1\n");
    CHECK(r.program.collectives[0].root_task == 1);
    CHECK(r.events.runtime == 2 * s);
}

TEST_CASE("replay: MPI_Init ends in a barrier, as prv2dim writes it") {
    // r0: 1 s, Init, 5 s; r1: 3 s, Init, 1 s. With the barrier r0 = 3 + 5 = 8 s; without, 6 s.
    const std::string d =
        "ranks 2\n0 compute 1s\n0 Init 1ms\n0 compute 5s\n1 compute 3s\n1 Init 1ms\n1 compute 1s\n";
    CHECK(replay_both("init", d).events.runtime == 8 * s);
    ProgramOptions no_barrier;
    no_barrier.init_barrier = false;
    CHECK(replay_both("init_nobarrier", d, no_barrier).events.runtime == 6 * s);
}

TEST_CASE("replay: CPU time before a task's first record counts, MPI time does not") {
    // r0 starts at 2 s ("not created" before), computes 1 s, then 10 s in Allreduce; r1 computes 4
    // s.
    const auto r = replay_both(
        "late_start",
        "ranks 2\n0 at 2s\n0 compute 1s\n0 Allreduce 10s\n1 compute 4s\n1 Allreduce 9s\n");
    CHECK(r.events.threads[0].useful == 3 * s);
    CHECK(r.events.runtime == 4 * s);
}

TEST_CASE("replay: cyclic dependencies are reported as a deadlock naming the tasks") {
    // Both send 1 MiB (rendezvous) before receiving: each waits for the other's post forever.
    const std::string d = "ranks 2\n0 Send 1s to=1 size=1048576\n0 Recv 1s from=1 size=1048576\n"
                          "1 Send 1s to=0 size=1048576\n1 Recv 1s from=0 size=1048576\n";
    const auto trace = test::read_quiet(test::synth_trace("deadlock", d));
    const auto program = build_replay_program(trace);
    network::IdealNetwork ideal;
    CHECK_THROWS_WITH_AS(replay_events(program, ideal), doctest::Contains("task 1 in a send"),
                         ReplayDeadlock);
    CHECK_THROWS_WITH_AS(replay_longest_path(program, build_dependency_graph(program)),
                         doctest::Contains("task 2 in a send"), ReplayDeadlock);
}

TEST_CASE("replay: collectives that do not match across the communicator are refused") {
    // Written by hand: synth refuses such a program (rank 1 calls Allreduce twice, rank 2 once).
    const auto mismatch = test::write_file(
        test::scratch_dir("coll_mismatch") / "coll_mismatch.prv",
        "#Paraver (01/01/2026 at 00:00):2000000000_ns:2(1,1):1:2(1:1,1:2),1\nc:1:1:2:1:2\n"
        "2:1:1:1:1:0:50000002:10:50100001:0:50100002:0:50100004:1\n"
        "1:1:1:1:1:0:1000000000:13\n"
        "2:2:1:2:1:0:50000002:10:50100001:0:50100002:0:50100004:1\n"
        "1:2:1:2:1:0:1000000000:13\n"
        "2:1:1:1:1:1000000000:50000002:0\n"
        "2:1:1:1:1:1000000000:50000002:10:50100001:0:50100002:0:50100004:1\n"
        "1:1:1:1:1:1000000000:2000000000:13\n"
        "2:2:1:2:1:1000000000:50000002:0\n"
        "1:2:1:2:1:1000000000:2000000000:1\n"
        "2:1:1:1:1:2000000000:50000002:0\n");
    const auto trace = test::read_quiet(mismatch);
    CHECK_THROWS_WITH_AS(build_replay_program(trace),
                         doctest::Contains("is called by 1 of its 2 tasks"), TraceError);
    const auto kind = test::write_file(
        test::scratch_dir("coll_kind") / "coll_kind.prv",
        "#Paraver (01/01/2026 at 00:00):1000000000_ns:2(1,1):1:2(1:1,1:2),1\nc:1:1:2:1:2\n"
        "2:1:1:1:1:0:50000002:10:50100001:0:50100002:0:50100004:1\n"
        "1:1:1:1:1:0:1000000000:13\n"
        "2:2:1:2:1:0:50000002:7:50100001:0:50100002:0:50100003:0:50100004:1\n"
        "1:2:1:2:1:0:1000000000:13\n"
        "2:1:1:1:1:1000000000:50000002:0\n"
        "2:2:1:2:1:1000000000:50000002:0\n");
    const auto trace2 = test::read_quiet(kind);
    CHECK_THROWS_WITH_AS(build_replay_program(trace2), doctest::Contains("task 2 calls MPI_Bcast"),
                         TraceError);
}

TEST_CASE("replay: tracing-disabled spans are left out of the bursts") {
    // 1 s + 2 s off + 1 s: the replay computes 2 s; with whole_trace the 2 s count (4 s).
    const auto trace = test::read_quiet(
        test::synth_trace("disabled", "ranks 1\n0 compute 1s\n0 state 14 2s\n0 compute 1s\n"));
    network::IdealNetwork ideal;
    CHECK(replay_events(build_replay_program(trace), ideal).runtime == 2 * s);
    CHECK(replay_events(build_replay_program(trace, {.whole_trace = true}), ideal).runtime ==
          4 * s);
}

TEST_CASE("replay: a communication record outside any MPI call is reported and left out") {
    const auto dir = test::scratch_dir("outside_call");
    const auto path = test::write_file(dir / "t.prv",
                                       "#Paraver (01/01/2026 at 00:00):100_ns:1(2):1:2(1:1,1:1),0\n"
                                       "1:1:1:1:1:0:100:1\n1:2:1:2:1:0:100:1\n"
                                       "3:1:1:1:1:10:10:2:1:2:1:20:20:8:0\n");
    const auto program = build_replay_program(test::read_quiet(path));
    CHECK(program.messages.empty());
    REQUIRE(program.warnings.all().size() == 1);
    CHECK(program.warnings.all()[0].line() ==
          "communication records match no MPI call and are left out of the replay: record 1 "
          "(1.1.1 -> 1.2.1, 8 bytes) is outside any MPI call: send thread 1.1.1 at 10 ns, "
          "receive 20-20 ns");
}

TEST_CASE("replay: every collective but MPI_Reduce synchronises its communicator") {
    // Whatever the operation, on the ideal network all leave when the last (3 s) arrives: 3 + 1 = 4
    // s.
    for (const char* call :
         {"Barrier", "Bcast", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
          "Allgatherv", "Alltoall", "Alltoallv", "Reduce_scatter", "Scan", "Exscan"}) {
        INFO(call);
        std::string d = "ranks 3\n";
        for (int r = 0; r < 3; ++r) {
            const auto rank = std::to_string(r);
            d += rank + " compute " + std::to_string(r + 1) + "s\n" + rank + " " + call +
                 " 1s size=64 root=0\n" + rank + " compute 1s\n";
        }
        const auto r = replay_both(std::string("coll_") + call, d);
        CHECK(r.events.runtime == 4 * s);
        CHECK(r.program.collectives.size() == 1);
    }
}

TEST_CASE("replay: MPI_Reduce waits at its root only, as Dimemas replays it") {
    // Ranks 0, 1, 2 reach the Reduce at 1, 2 and 3 s, then compute 1 s. The non-roots send their
    // data and go on; the root leaves when the last has arrived (3 s).
    auto reduce = [](int root) {
        std::string d = "ranks 3\n";
        for (int r = 0; r < 3; ++r) {
            const auto rank = std::to_string(r);
            d += rank + " compute " + std::to_string(r + 1) + "s\n" + rank +
                 " Reduce 1s size=8 root=" + std::to_string(root) + "\n" + rank + " compute 1s\n";
        }
        return replay_both("reduce_root" + std::to_string(root), d);
    };
    const auto first = reduce(0); // the root is first: it waits until 3 s
    CHECK(first.events.threads[0].end == 4 * s);
    CHECK(first.events.threads[1].end == 3 * s);
    CHECK(first.events.threads[2].end == 4 * s);
    const auto last = reduce(2); // the root is last: nobody waits
    CHECK(last.events.threads[0].end == 2 * s);
    CHECK(last.events.threads[1].end == 3 * s);
    CHECK(last.events.threads[2].end == 4 * s);
}

TEST_CASE("replay: persistent sends (MPI_Start) block like MPI_Send") {
    // prv2dim writes a persistent send as a blocking send: 1 MiB waits for the receive at 3 s.
    const auto r =
        replay_both("start", "ranks 2\n0 compute 1s\n0 Start 1ms to=1 size=1048576\n0 compute 2s\n"
                             "1 compute 3s\n1 Recv 1ms from=0 size=1048576\n1 compute 1s\n");
    CHECK(r.events.threads[0].end == 5 * s);
}

TEST_CASE("replay: Sendrecv_replace and Waitsome") {
    const auto a =
        replay_both("sendrecv_replace",
                    "ranks 2\n0 compute 2s\n0 Sendrecv_replace 1s to=1 from=1 size=1048576\n"
                    "1 compute 1s\n1 Sendrecv_replace 2s to=0 from=0 size=1048576\n");
    CHECK(a.events.runtime == 2 * s); // as Sendrecv: both leave when the later one arrives
    const auto b = replay_both(
        "waitsome", "ranks 2\n0 compute 3s\n0 Send 1ms to=1 size=8\n"
                    "1 Irecv 1ms from=0 size=8 req=a\n1 Waitsome 4s req=a\n1 compute 1s\n");
    CHECK(b.events.threads[1].end == 4 * s); // completes when the send starts at 3 s
}

TEST_CASE("replay: calls without messages replay as nothing") {
    // MPI_Iprobe, MPI_Comm_rank and MPI_Cancel carry no message: only the bursts remain.
    const auto r = replay_both(
        "probe", "ranks 1\n0 compute 1s\n0 Iprobe 1s\n0 Comm_rank 1s\n0 Cancel 1s\n0 compute 1s\n");
    CHECK(r.events.runtime == 2 * s);
    CHECK(r.program.messages.empty());
}

// OpenMP threads: a parallel region is a fork and a join barrier among a task's threads; each
// thread replays its work up to the moment it reached the region's end in the trace.

TEST_CASE("replay threads: an MPI call on the master inside a parallel region overlaps its "
          "workers' work") {
    // Rank 0: region 0-4 s; the master computes 1 s and waits in MPI_Recv 1-4 s, the worker
    // computes 0-4 s; after the region the master computes 1 s. Rank 1 computes 2 s, sends
    // (eager, 2-3 s), computes 2 s.
    // Ideal, with threads: the message leaves rank 1 at 2 s, so the Recv ends at 2 s and the master
    // reaches the join at 2 s; the worker reaches it at 4 s: the region still ends at 4 s, rank 0
    // at 4 + 1 = 5 s (master: 2 s in the join). Rank 1: 2 + 2 = 4 s. Runtime 5 s.
    // Master only (prv2dim): the region is just time outside MPI, so rank 0 ends at 2 + 1 = 3 s and
    // the runtime is rank 1's 4 s: it would credit the network with the worker's computation.
    const std::string description = R"(ranks 2 threads 2
0.0 event 60000001 1
0.0 compute 1s
0.0 Recv 3s from=1 size=8
0.0 event 60000001 0
0.0 compute 1s
0.1 compute 4s
1.0 compute 2s
1.0 Send 1s to=0 size=8
1.0 compute 2s
)";
    const auto r = replay_both("omp_master_mpi", description);
    REQUIRE(r.program.thread_count() ==
            3); // rank 1 has no parallel region: its idle worker is not replayed
    CHECK(r.events.runtime == 5 * s);
    const auto& master = r.events.task(r.program, 0);
    CHECK(master.end == 5 * s);
    CHECK(master.fork_join == 2 * s);
    CHECK(master.mpi() == 1 * s);
    CHECK(r.events.threads[1].end == 4 * s); // rank 0's worker leaves the join at 4 s
    CHECK(r.events.task(r.program, 1).end == 4 * s);
    const auto prv2dim = replay_both("omp_master_mpi_prv2dim", description, {.threads = false});
    CHECK(prv2dim.program.thread_count() == 2);
    CHECK(prv2dim.events.runtime == 4 * s);
    CHECK(prv2dim.events.threads[0].end == 3 * s);
}

TEST_CASE("replay threads: messages between OpenMP worker threads are replayed") {
    // Rank 0: region 0-3 s; the master computes 3 s; the worker computes 2 s and sends to rank 1
    // (eager, 2-2.5 s). Rank 1: region 0-4 s; the master computes 1 s; the worker waits in MPI_Recv
    // 0-3 s, then computes 1 s.
    // Ideal: the message leaves at 2 s; rank 1's worker receives it at 2 s, computes until 3 s and
    // reaches the join at 3 s (its master arrived at 1 s): rank 1 ends at 3 s. Rank 0's region ends
    // with its master at 3 s. Runtime 3 s (traced 4 s).
    // Master only: the record involves a thread that is not replayed (a warning); rank 1's region
    // is one 4 s burst: runtime 4 s.
    const std::string description = R"(ranks 2 threads 2
0.0 event 60000001 1
0.0 compute 3s
0.0 event 60000001 0
0.1 compute 2s
0.1 Send 500ms to=1 size=8
1.0 event 60000001 1
1.0 compute 1s
1.0 at 4s
1.0 event 60000001 0
1.1 Recv 3s from=0 size=8
1.1 compute 1s
)";
    const auto r = replay_both("omp_worker_mpi", description);
    CHECK(r.program.warnings.empty());
    REQUIRE(r.program.messages.size() == 1);
    CHECK(r.program.thread_task[r.program.messages[0].sender] == 0);
    CHECK(r.program.thread_task[r.program.messages[0].receiver] == 1);
    CHECK(r.events.op_end[message_ops(r.program).wait[0]] == 2 * s);
    CHECK(r.events.task(r.program, 1).end == 3 * s);
    CHECK(r.events.runtime == 3 * s);
    const auto prv2dim = replay_both("omp_worker_mpi_prv2dim", description, {.threads = false});
    CHECK(prv2dim.program.messages.empty());
    CHECK_FALSE(prv2dim.program.warnings.empty());
    CHECK(prv2dim.events.runtime == 4 * s);
}

TEST_CASE("replay: communication records in any file order give the same replay") {
    // 100 eager messages 0 -> 1, each received by an MPI_Recv after rank 1 computed 1 s; the same
    // trace with its communication lines reversed must replay identically (records far from their
    // calls' order take the sort's general path).
    std::string description = "ranks 2\n";
    for (int i = 0; i < 100; ++i)
        description +=
            "0 compute 1s\n0 Send 0s to=1 size=8\n1 compute 2s\n1 Recv 0s from=0 size=8\n";
    const auto path = test::synth_trace("records_order", description);
    std::ifstream in(path);
    std::vector<std::string> lines, comms;
    for (std::string line; std::getline(in, line);)
        (line.starts_with("3:") ? comms : lines).push_back(line);
    std::string reversed;
    for (const auto& l : lines) reversed += l + "\n";
    for (auto it = comms.rbegin(); it != comms.rend(); ++it) reversed += *it + "\n";
    const auto shuffled =
        test::write_file(test::scratch_dir("records_order_reversed") / "reversed.prv", reversed);
    const auto a = build_replay_program(test::read_quiet(path));
    const auto b = build_replay_program(test::read_quiet(shuffled));
    network::IdealNetwork ideal;
    const auto ra = replay_events(a, ideal), rb = replay_events(b, ideal);
    CHECK(ra.runtime == 200 * s); // rank 1 receives each message after its own 2 s of computing
    CHECK(rb.runtime == ra.runtime);
    CHECK(rb.op_end == ra.op_end);
}

TEST_CASE("replay: sending and receiving calls without a communication record are reported") {
    // Rank 0's MPI_Send (1-2 s) has no `3:` record (a send to MPI_PROC_NULL): it replays as nothing
    // and is listed; rank 1's MPI_Irecv without a record (a cancelled request) is not.
    const auto path = test::write_file(
        test::scratch_dir("call_without_record") / "t.prv",
        "#Paraver (01/01/2026 at 00:00):3000000000_ns:1(2):1:2(1:1,1:1),1\nc:1:1:2:1:2\n"
        "1:1:1:1:1:0:1000000000:1\n2:1:1:1:1:1000000000:50000001:1\n"
        "2:1:1:1:1:2000000000:50000001:0\n1:1:1:1:1:2000000000:3000000000:1\n"
        "1:2:1:2:1:0:1000000000:1\n2:2:1:2:1:1000000000:50000001:4\n"
        "2:2:1:2:1:1500000000:50000001:0\n");
    const auto program = build_replay_program(test::read_quiet(path));
    REQUIRE(program.warnings.all().size() == 1);
    const auto& w = program.warnings.all()[0];
    CHECK(w.count == 1);
    CHECK(w.line().starts_with("sending or receiving calls have no communication record"));
    CHECK(w.instances == std::vector<std::string>{"MPI_Send at 1.000000000 s on thread 1.1.1"});
    network::IdealNetwork ideal;
    CHECK(replay_events(program, ideal).runtime == 2 * s); // rank 0: 1 s + 1 s of bursts
}

TEST_CASE(
    "replay: a communication record in calls that carry no messages is reported and left out") {
    // Rank 0's record is sent from inside MPI_Comm_rank (1-2 s): no message is replayed, and the
    // warning names the calls; rank 1's MPI_Recv then has no record (listed too).
    const auto path = test::write_file(
        test::scratch_dir("record_in_wrong_call") / "t.prv",
        "#Paraver (01/01/2026 at 00:00):3000000000_ns:1(2):1:2(1:1,1:1),1\nc:1:1:2:1:2\n"
        "2:1:1:1:1:1000000000:50000003:19\n2:1:1:1:1:2000000000:50000003:0\n"
        "2:2:1:2:1:1000000000:50000001:2\n"
        "3:1:1:1:1:1500000000:1500000000:2:1:2:1:1000000000:2000000000:8:0\n"
        "2:2:1:2:1:2000000000:50000001:0\n1:2:1:2:1:2000000000:3000000000:1\n");
    const auto program = build_replay_program(test::read_quiet(path));
    CHECK(program.messages.empty());
    REQUIRE(program.warnings.all().size() == 2);
    CHECK(program.warnings.all()[0].instances ==
          std::vector<std::string>{"record 1 is sent in MPI_Comm_rank and received in MPI_Recv / "
                                   "MPI_Recv: not calls that carry messages"});
    CHECK(program.warnings.all()[1].instances ==
          std::vector<std::string>{"MPI_Recv at 1.000000000 s on thread 1.2.1"});
}

TEST_CASE("replay: a collective that some tasks reach only after a cut completes without them") {
    // Truncated at 3 s: rank 0 entered MPI_Barrier at 1 s, rank 1 was still computing (until 3 s)
    // and reached the barrier after the cut. Read with --allow-truncated, the barrier replays with
    // its one member; in a whole trace the same records are refused.
    const std::string records =
        "c:1:1:2:1:2\n1:1:1:1:1:0:1000000000:1\n2:1:1:1:1:1000000000:50000002:8\n"
        "1:2:1:2:1:0:3000000000:1\n";
    const auto dir = test::scratch_dir("collective_cut_at_end");
    const auto cut = test::write_file(
        dir / "cut.prv",
        "#Paraver (01/01/2026 at 00:00):5000000000_ns:1(2):1:2(1:1,1:1),1\n" + records);
    ReadOptions allow;
    allow.read_labels = false;
    allow.allow_truncated = true;
    const auto program = build_replay_program(read_paraver(cut, allow));
    REQUIRE(program.warnings.find("collectives-cut-at-end") != nullptr);
    CHECK(program.warnings.find("collectives-cut-at-end")->instances ==
          std::vector<std::string>{
              "MPI_Barrier on communicator 1, called by 1 of its 2 tasks, the first at "
              "1.000000000 s"});
    network::IdealNetwork ideal;
    CHECK(replay_events(program, ideal).runtime == 3 * s); // rank 1's 3 s of computing
    const auto whole = test::write_file(
        dir / "whole.prv", "#Paraver (01/01/2026 at 00:00):3000000000_ns:1(2):1:2(1:1,1:1),1\n" +
                               records + "2:1:1:1:1:3000000000:50000002:0\n");
    CHECK_THROWS_WITH_AS(build_replay_program(test::read_quiet(whole)),
                         doctest::Contains("MPI_Barrier on communicator 1 (first called by task 1 "
                                           "at 1000000000 ns) is called by 1 of its 2 tasks"),
                         TraceError);
}

TEST_CASE("replay: members naming different roots, and repeated records, are reported") {
    // Both tasks enter MPI_Bcast at 1 s saying they are its root (attribute 50100003 = 1).
    const auto dir = test::scratch_dir("roots_and_copies");
    const auto roots = test::write_file(
        dir / "roots.prv",
        "#Paraver (01/01/2026 at 00:00):2000000000_ns:1(2):1:2(1:1,1:1),1\nc:1:1:2:1:2\n"
        "2:1:1:1:1:1000000000:50000002:7:50100003:1:50100004:1\n"
        "2:2:1:2:1:1000000000:50000002:7:50100003:1:50100004:1\n"
        "2:1:1:1:1:2000000000:50000002:0\n2:2:1:2:1:2000000000:50000002:0\n");
    const auto program = build_replay_program(test::read_quiet(roots));
    REQUIRE(program.warnings.find("collective-roots") != nullptr);
    CHECK(program.warnings.find("collective-roots")->line() ==
          "members of rooted collectives name different roots; the first root named is taken: "
          "MPI_Bcast #1 on communicator 1: tasks 1 and 2");
    CHECK(program.collectives[0].root_task == 0);

    // Task 1 in an MPI_Send and task 2 in an MPI_Recv from 1 s to 2 s, with these
    // communication records.
    const auto send_recv = [&](const std::string& name, const std::string& records) {
        return test::read_quiet(test::write_file(
            dir / name,
            "#Paraver (01/01/2026 at 00:00):2000000000_ns:1(2):1:2(1:1,1:1),1\nc:1:1:2:1:2\n"
            "2:1:1:1:1:1000000000:50000001:1\n2:2:1:2:1:1000000000:50000001:3\n" +
                records + "2:1:1:1:1:2000000000:50000001:0\n2:2:1:2:1:2000000000:50000001:0\n"));
    };
    // The same communication record twice: the copy is left out, with a warning.
    const std::string record =
        "3:1:1:1:1:1000000000:2000000000:2:1:2:1:1000000000:2000000000:8:0\n";
    const auto trace = send_recv("copies.prv", record + record);
    CHECK(trace.comms.size() == 1);
    REQUIRE(trace.warnings.find("duplicate-communications") != nullptr);
    CHECK(trace.warnings.find("duplicate-communications")->line() ==
          "communication records repeat an earlier record field for field (a merge that wrote "
          "them twice?); the copies are left out: record 2 repeats record 1");

    // Two more copies, one after another record: each is left out, the other record kept.
    const std::string other =
        "3:1:1:1:1:1000000000:2000000000:2:1:2:1:1000000000:2000000000:16:0\n";
    const auto kept = send_recv("three_copies.prv", record + other + record + record);
    REQUIRE(kept.comms.size() == 2);
    CHECK(kept.comms.bytes[0] == 8);
    CHECK(kept.comms.bytes[1] == 16);
    REQUIRE(kept.warnings.find("duplicate-communications") != nullptr);
    CHECK(kept.warnings.find("duplicate-communications")->count == 2);
    CHECK(kept.warnings.find("duplicate-communications")
              ->line()
              .ends_with("record 3 repeats record 1"));
}

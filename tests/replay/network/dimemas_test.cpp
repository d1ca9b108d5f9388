// SPDX-License-Identifier: BSD-3-Clause
// The Dimemas-style network model: one hand-computed case per parameter, and the predictions of
// Dimemas 5.5.0 itself for the epoch trace with five configurations.
#include "replay/engine/engine.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/network/dimemas.hpp"
#include "replay/network/dimemas_config.hpp"
#include "replay/network/ideal.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>

using namespace popsim;
using namespace popsim::replay;
using network::CollectiveModel;
using network::DimemasParameters;

namespace {

constexpr Time us = k_ns_per_us;

ReplayResult replay_file(const std::string& path, DimemasParameters p) {
    const auto program = build_replay_program(test::read_quiet(path));
    network::DimemasNetwork net(std::move(p));
    return replay_events(program, net);
}

ReplayResult replay_on(const std::string& name, const std::string& description,
                       DimemasParameters p) {
    return replay_file(test::synth_trace(name, description), std::move(p));
}

// 1 MiB at 1 MiB/ms: Dimemas MB/s with MB = 2^20, so 1000 MB/s moves 1 MiB in exactly 1 ms.
DimemasParameters latency_bandwidth(Time latency, double mbps) {
    DimemasParameters p;
    p.inter_latency = latency;
    p.inter_bandwidth_mbps = mbps;
    return p;
}

/// `tasks` tasks on one node, each with one half-duplex link on the memory path (links 1 in / 0
/// out, as in Dimemas' configurations) at 15.625 MB/s: 16 KiB take 1 ms.
DimemasParameters half_duplex_node(std::uint32_t tasks) {
    auto p = latency_bandwidth(0, 0);
    p.tasks_per_node = tasks;
    p.intra_bandwidth_mbps = 15.625;
    p.intra_in_links = 1;
    return p;
}

/// Two tasks on one node of one CPU, latency 0, instantaneous data.
DimemasParameters two_tasks_one_cpu() {
    auto p = latency_bandwidth(0, 0);
    p.tasks_per_node = 2;
    p.cpus_per_node = 1;
    return p;
}

/// The configuration of the Dimemas sweeps of issue 34: `nodes` nodes of `cpus` CPUs holding
/// `tasks_per_node` tasks each, 5 us and 1000 MB/s between nodes (one link each way per node),
/// 0.5 us and 10000 MB/s within a node (half-duplex links), Barrier LOG/MAX fan-in only. Written
/// with its collectives file into a scratch directory named `name`; returns its path.
std::string sweep_config(const std::string& name, int nodes, int cpus, int tasks_per_node) {
    const auto dir = test::scratch_dir(name);
    test::write_file(dir / "dimemas.collectives", "Machine globalop: 0 0 LOG MAX 0 MAX\n");
    return test::write_file(
        dir / "sweep.cfg",
        fmt::format("#DIMEMAS_CONFIGURATION\n"
                    "\"wide area network information\" {{\"\", 1, 0, 4, 0.0, 0.0, 1}};;\n"
                    "\"environment information\" {{\"\", 0, \"\", {0}, 1000.0, 0, 1}};;\n"
                    "\"multi node information\" {{0, {0}, \"n\", {1}, 1.0, 0.5e-6, 10000.0, 0, 1, "
                    "0, 5e-6, 1, 1, 0.0}};;\n"
                    "\"predefined mapping information\" {{\"{2} TASKS_PER_NODE\"}};;\n"
                    "\"configuration files\" {{\"\", \"\", \"dimemas.collectives\", \"\"}};;\n",
                    nodes, cpus, tasks_per_node));
}

const std::string k_one_message =
    "ranks 2\n0 Send 1us to=1 size=1048576\n1 Recv 1us from=0 size=1048576\n";

/// Rank 0 posts receives from rank 1 (16 KiB) and rank 2 (8 KiB) and completes both in one
/// Waitall; rank 1 sends at 0, rank 2 after 0.1 ms of computation. Both records end at the
/// Waitall's exit (202 us).
const std::string k_waitall_two = R"(ranks 3
0 Irecv 1us from=1 size=16384 req=a
0 Irecv 1us from=2 size=8192 req=b
0 Waitall 200us req=a,b
1 Send 1us to=0 size=16384
2 compute 100us
2 Send 1us to=0 size=8192
)";

} // namespace

TEST_CASE("dimemas model: one message costs latency + size / bandwidth") {
    // Rendezvous (1 MiB >= 32 KiB): both ready at 0; arrival = 5 us + 1 MiB / 1000 MiB/s = 5 us + 1
    // ms.
    const auto r = replay_on("dim_one", k_one_message, latency_bandwidth(5 * us, 1000));
    CHECK(r.runtime == 5 * us + 1000 * us);
    CHECK(r.threads[1].transfer ==
          5 * us + 1000 * us); // both sides are ready at 0: all of it is the network's cost
    CHECK(r.threads[1].waiting == 0);
}

TEST_CASE("dimemas model: a single bus queues messages first come, first served") {
    // Two 1 MiB messages (rank 0 -> 1 and rank 2 -> 3) at time 0, 1 ms each: with one bus the
    // second waits for the first: 2 ms. Unlimited buses: 1 ms.
    const std::string d = "ranks 4\n0 Send 1us to=1 size=1048576\n1 Recv 1us from=0 size=1048576\n"
                          "2 Send 1us to=3 size=1048576\n3 Recv 1us from=2 size=1048576\n";
    auto p = latency_bandwidth(0, 1000);
    CHECK(replay_on("dim_bus0", d, p).runtime == 1000 * us);
    p.buses = 1;
    CHECK(replay_on("dim_bus1", d, p).runtime == 2000 * us);
}

TEST_CASE("dimemas model: one input link per node serialises messages to that node") {
    // Ranks 0 and 1 both send 1 MiB to rank 2 at 0: rank 2's node has one input link: 2 ms.
    const std::string d = "ranks 3\n0 Send 1us to=2 size=1048576\n1 Send 1us to=2 size=1048576\n"
                          "2 Irecv 1us from=0 size=1048576 req=a\n2 Irecv 1us from=1 size=1048576 "
                          "req=b\n2 Waitall 1us req=a,b\n";
    auto p = latency_bandwidth(0, 1000);
    p.in_links = p.out_links = 0; // unlimited
    CHECK(replay_on("dim_links_free", d, p).runtime == 1000 * us);
    p.in_links = 1;
    CHECK(replay_on("dim_links_one", d, p).runtime == 2000 * us);
}

TEST_CASE("dimemas model: a message keeps its links while it waits for a bus") {
    // 4 ranks on 4 nodes, one bus, one input and one output link per node; 16 KiB (eager) at
    // 15.625 MB/s take 1 ms. C: rank 3 -> 1 at 0 (0-1 ms). A: rank 3 -> 0 at 0.2 ms waits for
    // node 3's output link, held by C. B: rank 0 -> 2 at 0.4 ms has its links and waits for the
    // bus. At 1 ms C frees node 3's link (A takes it and node 0's input link, then queues for the
    // bus behind B) and then the bus, which goes to B: 1-2 ms; A: 2-3 ms. Without links held while
    // waiting, A, ready first, would have had the bus first.
    const std::string d =
        "ranks 4\n3 Send 1us to=1 size=16384\n3 compute 200us\n"
        "3 Send 1us to=0 size=16384\n0 compute 400us\n0 Send 1us to=2 size=16384\n"
        "0 Recv 5ms from=3 size=16384\n1 Recv 5ms from=3 size=16384\n"
        "2 Recv 5ms from=0 size=16384\n";
    auto p = latency_bandwidth(0, 15.625);
    p.buses = 1;
    const auto r = replay_on("dim_hold_links", d, p);
    CHECK(r.threads[1].end == 1000 * us);
    CHECK(r.threads[2].end == 2000 * us);
    CHECK(r.threads[0].end == 3000 * us);
}

TEST_CASE("dimemas model: a message may take the output link of one waiting for its input link") {
    // One input and one output link per node, unlimited buses, 16 KiB at 15.625 MB/s = 1 ms.
    // X: rank 1 -> 2 at 0 (0-1 ms). V: rank 3 -> 2 at 0.2 ms takes node 3's output link and waits
    // for node 2's input link. T: rank 3 -> 0 at 0.4 ms finds node 3's link held by V, which
    // waits, and node 0's input link free: it takes V's link (Dimemas' link robbery) and moves
    // 0.4-1.4 ms; V waits first in line for node 3's link and moves 1.4-2.4 ms. Without the
    // robbery V would move 1-2 ms and T 2-3 ms.
    const std::string d =
        "ranks 4\n1 Send 1us to=2 size=16384\n3 compute 200us\n"
        "3 Send 1us to=2 size=16384\n3 compute 200us\n3 Send 1us to=0 size=16384\n"
        "2 Recv 5ms from=1 size=16384\n2 Recv 5ms from=3 size=16384\n"
        "0 Recv 5ms from=3 size=16384\n";
    const auto r = replay_on("dim_link_robbery", d, latency_bandwidth(0, 15.625));
    CHECK(r.threads[0].end == 1400 * us);
    CHECK(r.threads[2].end == 2400 * us);
}

TEST_CASE("dimemas model: a Waitall takes its messages one by one, each startup after the "
          "message before it has arrived") {
    // Latency 1 ms; at 15.625 MB/s 16 KiB take 1 ms and 8 KiB 0.5 ms; one input and one output
    // link per node. a (rank 1 -> 0): startup 0-1 ms, data 1-2 ms on node 0's input link. b
    // (rank 2 -> 0): startup 0.1-1.1 ms, waits for that link, data 2-2.5 ms. prv2dim writes the
    // Waitall as one wait per message, in the order the trace received them (here both at the
    // Waitall's exit, so in file order: a, then b), and a Dimemas wait pays its startup before
    // it looks for its message: a's startup 0-1 ms, a arrives at 2 ms, b's startup 2-3 ms, b is
    // there: 3 ms, as Dimemas 5.5.0. Paying both startups first would end at 2.5 ms.
    const auto p = latency_bandwidth(1 * k_ns_per_ms, 15.625);
    const auto path = test::synth_trace("dim_waitall", k_waitall_two);
    CHECK(replay_file(path, p).runtime == 3000 * us);
    // The trace received b first, at 201.5 us: b's startup 0-1 ms, b arrives at 2.5 ms, a's
    // startup 2.5-3.5 ms: 3.5 ms, as Dimemas.
    REQUIRE(test::replace_in_file(path, ":2000:202000:8192:", ":2000:201500:8192:"));
    CHECK(replay_file(path, p).runtime == 3500 * us);
}

TEST_CASE("dimemas model: a collective takes every bus, waiting for the messages on them") {
    // 4 ranks, one bus, 10 us latency, 16 KiB at 15.625 MB/s = 1 ms. Rank 0 sends to rank 1 (its
    // startup 0-10 us, the data 10-1010 us on the bus) and computes 500 us; rank 1 posts an Irecv,
    // computes 500 us; ranks 2 and 3 compute 500 us; then all enter an MPI_Barrier (the last at
    // 510 us). Dimemas reserves every bus for it: it starts when the message frees the bus at
    // 1010 us and costs its default model, a constant fan-in and fan-out stage of 10 us each:
    // all leave at 1030 us. Rank 1 then waits (10 us startup) for the message there: 1040 us.
    const std::string d = "ranks 4\n0 Send 1us to=1 size=16384\n0 compute 500us\n0 Barrier 1us\n"
                          "1 Irecv 1us from=0 size=16384 req=a\n1 compute 500us\n1 Barrier 1us\n"
                          "1 Waitall 1ms req=a\n2 compute 500us\n2 Barrier 1us\n"
                          "3 compute 500us\n3 Barrier 1us\n";
    auto p = latency_bandwidth(10 * us, 15.625);
    p.buses = 1;
    const auto r = replay_on("dim_coll_buses", d, p);
    CHECK(r.threads[2].end == 1030 * us);
    CHECK(r.threads[1].end == 1040 * us);
    p.buses = 0; // unlimited: the Barrier runs 510-530 us
    CHECK(replay_on("dim_coll_no_buses", d, p).threads[2].end == 530 * us);
}

TEST_CASE("dimemas model: within a node each task has its own links, half-duplex if one is 0") {
    // Ranks 0 and 1 on one node send each other 16 KiB at 0 (1 ms at 15.625 MB/s on the memory
    // path). Intra-node links 1 in / 0 out, as in Dimemas' configurations: each task has one
    // half-duplex link for both directions. Rank 0's message takes rank 0's link, then rank 1's:
    // 0-1 ms; rank 1's waits for its own link, then takes rank 0's: 1-2 ms. With unlimited links
    // both arrive at 1 ms.
    const std::string d = "ranks 2\n0 Send 1us to=1 size=16384\n0 Recv 5ms from=1 size=16384\n"
                          "1 Send 1us to=0 size=16384\n1 Recv 5ms from=0 size=16384\n";
    auto p = half_duplex_node(2);
    const auto r = replay_on("dim_task_links", d, p);
    CHECK(r.threads[1].end == 1000 * us);
    CHECK(r.threads[0].end == 2000 * us);
    p.intra_in_links = 0;
    CHECK(replay_on("dim_task_links_free", d, p).runtime == 1000 * us);
}

TEST_CASE("dimemas model: half-duplex links within a node are taken the lower task's first") {
    // Issue 34, item 6: 4 tasks per node with 4 CPUs deadlocked on LAMMPS traces. Three tasks on a
    // node, one half-duplex link each (links 1 in / 0 out), 16 KiB = 1 ms. Rank 2 sends to rank 1
    // at 0 (links 1 and 2: 0-1 ms); rank 1 sends to rank 0 at 100 us, rank 0 to rank 1 at 200 us.
    // Taking the sender's link first, rank 1's message would wait for link 1 holding none, rank
    // 0's would hold link 0 and wait for link 1; at 1 ms rank 1's gets link 1 and waits for link 0:
    // a cycle. Dimemas (LINKS_get_mem_links) takes the lower task's link first: rank 1's message
    // holds link 0 and waits for link 1 (1-2 ms), rank 0's then waits for link 0 (2-3 ms).
    // Dimemas 5.5.0: 3000000 ns.
    const std::string d = "ranks 3\n2 Isend 1us to=1 size=16384 req=a\n2 compute 1ns\n"
                          "2 Waitall 5ms req=a\n"
                          "1 compute 100us\n1 Irecv 1us from=2 size=16384 req=r\n1 compute 1ns\n"
                          "1 Irecv 1us from=0 size=16384 req=q\n1 compute 1ns\n"
                          "1 Isend 1us to=0 size=16384 req=s\n1 compute 1ns\n"
                          "1 Waitall 5ms req=r,q,s\n"
                          "0 compute 200us\n0 Irecv 1us from=1 size=16384 req=r\n0 compute 1ns\n"
                          "0 Isend 1us to=1 size=16384 req=s\n0 compute 1ns\n"
                          "0 Waitall 5ms req=r,s\n";
    auto p = half_duplex_node(3);
    const auto r = replay_on("dim_half_duplex_order", d, p);
    CHECK(r.threads[0].end == 2000 * us); // rank 1's message arrives; its own send is eager
    CHECK(r.threads[1].end == 3000 * us); // rank 0's message arrives
    CHECK(r.runtime == 3000 * us);
}

TEST_CASE("dimemas model: a freed half-duplex link wakes a receiver and a sender, as Dimemas") {
    // Dimemas keeps two queues per task for half-duplex links (messages waiting to send, to
    // receive); a link freed by a sender wakes the first waiting to receive, then the first
    // waiting to send (a receiver's: the other way round); one that finds the link gone queues
    // again at the back. One queue per task gave 6.1 ms here. Four tasks on one node, 16 KiB = 1
    // ms, two exchanges: pairs (0,2) and (1,3), then the ring 0->1->2->3->0, each rank computing
    // before it. Dimemas 5.5.0: 4100001 ns (popsim rounds each transfer to the ns: 1 ns more).
    const int compute_us[2][4] = {{1000, 300, 0, 100}, {300, 100, 0, 0}};
    const int shift[2] = {2, 1};
    std::string d = "ranks 4\n";
    for (int step = 0; step < 2; ++step) {
        for (int k = 0; k < 4; ++k) {
            const auto r = std::to_string(k) + " ";
            if (compute_us[step][k] > 0)
                d += r + "compute " + std::to_string(compute_us[step][k]) + "us\n";
            d += fmt::format("{0}Irecv 1us from={1} size=16384 req=r{3}\n{0}compute 1ns\n"
                             "{0}Isend 1us to={2} size=16384 req=s{3}\n{0}compute 1ns\n"
                             "{0}Waitall 5ms req=r{3},s{3}\n{0}compute 1ns\n",
                             r, (k + 4 - shift[step]) % 4, (k + shift[step]) % 4, step);
        }
    }
    CHECK(replay_on("dim_half_duplex_wake", d, half_duplex_node(4)).runtime == 4100002);
}

TEST_CASE("dimemas model: tasks on one node use the intra-node parameters") {
    auto p = latency_bandwidth(5 * us, 1000);
    p.tasks_per_node = 2; // both ranks on node 0: intra-node latency 0 and instantaneous
    CHECK(replay_on("dim_intra", k_one_message, p).runtime == 0);
    p.intra_latency = 2 * us;
    CHECK(replay_on("dim_intra_lat", k_one_message, p).runtime == 2 * us);
}

TEST_CASE("dimemas model: a logarithmic broadcast takes ceil(log2 N) stages") {
    // 8 ranks, Bcast of 1 MiB: 3 stages of (10 us + 1 ms) = 3030 us. With 1 bus the stages of 4, 2
    // and 1 concurrent messages take 4 + 2 + 1 = 7 transmissions: 7070 us.
    std::string d = "ranks 8\n";
    for (int r = 0; r < 8; ++r) d += std::to_string(r) + " Bcast 1us size=1048576 root=0\n";
    auto p = latency_bandwidth(10 * us, 1000);
    p.collectives[1] =
        CollectiveModel{CollectiveModel::Stages::logarithmic, CollectiveModel::Size::max,
                        CollectiveModel::Stages::none, CollectiveModel::Size::max};
    CHECK(replay_on("dim_bcast", d, p).runtime == 3 * (10 * us + 1000 * us));
    p.buses = 1;
    CHECK(replay_on("dim_bcast_bus", d, p).runtime == 7 * (10 * us + 1000 * us));
}

TEST_CASE("dimemas model: MPI_Reduce sends to its root, as Dimemas does, not by the collectives "
          "file") {
    // 8 ranks on 8 nodes, 1 MiB at 1000 MiB/s, 10 us latency; a LOG model listed for Reduce (id
    // 10) and Allreduce (id 11). prv2dim writes Reduce root-synchronised: each member pays the
    // latency (10 us), then the 7 non-roots send 1 MiB to the root, whose node has one input link:
    // they arrive one after the other, the last at 10 us + 7 ms. With unlimited links all arrive
    // at 10 us + 1 ms. Allreduce follows the file: 3 stages of 10 us + 1 ms.
    auto p = latency_bandwidth(10 * us, 1000);
    const CollectiveModel log{CollectiveModel::Stages::logarithmic, CollectiveModel::Size::max,
                              CollectiveModel::Stages::none, CollectiveModel::Size::max};
    p.collectives[10] = log;
    p.collectives[11] = log;
    auto eight = [](const char* call) {
        std::string d = "ranks 8\n";
        for (int r = 0; r < 8; ++r)
            d += std::to_string(r) + " " + call + " 1us size=1048576 root=0\n";
        return d;
    };
    const auto reduce = replay_on("dim_reduce", eight("Reduce"), p);
    CHECK(reduce.runtime == 10 * us + 7000 * us);
    CHECK(reduce.threads[1].end == 10 * us + 1000 * us); // the first through the root's link
    CHECK(replay_on("dim_allreduce", eight("Allreduce"), p).runtime == 3 * (10 * us + 1000 * us));
    p.in_links = p.out_links = 0;
    CHECK(replay_on("dim_reduce_free", eight("Reduce"), p).runtime == 10 * us + 1000 * us);
}

TEST_CASE("dimemas model: collectives add a part within the node to one among nodes") {
    // 4 ranks, 2 per node, Allreduce of 1 MiB, LOG/MAX fan-in only. Within the node: 2 members,
    // one stage of 1 us + 1 MiB at 2000 MiB/s = 501 us; among the 2 nodes: one stage of 10 us + 1
    // MiB at 1000 MiB/s = 1010 us. Dimemas adds them: 1511 us.
    auto p = latency_bandwidth(10 * us, 1000);
    p.tasks_per_node = 2;
    p.intra_latency = 1 * us;
    p.intra_bandwidth_mbps = 2000;
    p.collectives[11] =
        CollectiveModel{CollectiveModel::Stages::logarithmic, CollectiveModel::Size::max,
                        CollectiveModel::Stages::none, CollectiveModel::Size::max};
    std::string d = "ranks 4\n";
    for (int r = 0; r < 4; ++r) d += std::to_string(r) + " Allreduce 1us size=1048576\n";
    CHECK(replay_on("dim_coll_nodes", d, p).runtime == 1511 * us);
    // A Reduce's members pay the larger of the latencies its communicator uses (10 us), then the
    // root's node-mate sends within the node (1 MiB at 2000 MiB/s: 500 us) and the other two
    // through the root node's one input link (1 ms each): the root has all at 10 + 2000 us.
    std::string reduce = "ranks 4\n";
    for (int r = 0; r < 4; ++r) reduce += std::to_string(r) + " Reduce 1us size=1048576 root=0\n";
    const auto r = replay_on("dim_reduce_nodes", reduce, p);
    CHECK(r.threads[1].end == 10 * us + 500 * us);
    CHECK(r.runtime == 10 * us + 2000 * us);
}

TEST_CASE("dimemas model: buses serialise the transfers of each logarithmic stage") {
    // A Barrier among n nodes (one task each), LOG fan-in, 5 us per transfer, one bus. Stage s
    // makes ceil((n - 2^s) / 2^(s+1)) transfers at once (Dimemas' compute_contention_stage), one
    // after the other on one bus. 7 nodes: 3 + 2 + 1 = 6 transfers, 30 us; 11 nodes: 5 + 3 + 1 +
    // 1 = 10, 50 us; with 2 buses 2 + 1 + 1 = 4 and 3 + 2 + 1 + 1 = 7: 20 us and 35 us. Each rank
    // computes 10 us before and after. Dimemas 5.5.0 gives 50000, 70000, 40000 and 55000 ns (the
    // count n >> (s + 1) gave 45000 for 7 nodes on one bus).
    for (const auto& [n, buses, dimemas] :
         {std::tuple{7u, 1u, Time{50000}}, std::tuple{11u, 1u, Time{70000}},
          std::tuple{7u, 2u, Time{40000}}, std::tuple{11u, 2u, Time{55000}}}) {
        CAPTURE_BINDING(n);
        CAPTURE_BINDING(buses);
        auto p = latency_bandwidth(5 * us, 0);
        p.buses = buses;
        p.collectives[0] =
            CollectiveModel{CollectiveModel::Stages::logarithmic, CollectiveModel::Size::max,
                            CollectiveModel::Stages::none, CollectiveModel::Size::max};
        std::string d = fmt::format("ranks {}\n", n);
        for (std::uint32_t r = 0; r < n; ++r)
            d += fmt::format("{0} compute 10us\n{0} Barrier 100us\n{0} compute 10us\n", r);
        CHECK(replay_on(fmt::format("dim_bus_stages_{}_{}", n, buses), d, p).runtime == dimemas);
    }
}

TEST_CASE("dimemas model: tasks sharing a CPU take turns burst by burst") {
    // Ranks 0 and 1 on one node. Rank 0 computes 2 s, Barrier, 2 s; rank 1 computes 1 s,
    // Barrier, 1 s. One CPU, first come first served, no preemption: rank 0 runs 0-2 s, rank 1
    // 2-3 s; both leave the Barrier at 3 s, rank 0 first (arrival order), so rank 0 runs 3-5 s and
    // rank 1 5-6 s. With two CPUs: 2 + 2 = 4 s.
    const std::string d = "ranks 2\n0 compute 2s\n0 Barrier 1us\n0 compute 2s\n"
                          "1 compute 1s\n1 Barrier 1us\n1 compute 1s\n";
    auto p = two_tasks_one_cpu();
    const auto shared = replay_on("dim_cpu_shared", d, p);
    CHECK(shared.threads[0].end == 5 * k_ns_per_s);
    CHECK(shared.threads[1].end == 6 * k_ns_per_s);
    CHECK(shared.threads[1].cpu_wait == 2 * k_ns_per_s + 2 * k_ns_per_s);
    CHECK(shared.threads[1].useful == 2 * k_ns_per_s);
    p.cpus_per_node = 2;
    CHECK(replay_on("dim_cpu_two", d, p).runtime == 4 * k_ns_per_s);
}

TEST_CASE("dimemas model: on a shared CPU each piece prv2dim cuts a burst into takes a turn") {
    // Ranks 0 and 1 on one node of one CPU; prv2dim starts each with two empty pieces, and Dimemas'
    // FIFO scheduler sends a thread to the tail of the queue after each piece. Dimemas 5.5.0's
    // simulated traces (prv2dim, then Dimemas -S 32k with one node of one CPU):
    // - rank 0 has three events at time 0, so three more empty pieces: rank 1 gets the CPU for
    //   its 1 s first, and rank 0 computes 1-3 s. Merged bursts would run rank 0 first (0-2 s).
    // - an event in the middle of rank 0's 2 s cuts it: rank 0 runs 0-1 s, rank 1 1-2 s, rank 0
    //   2-3 s. Merged: rank 0 0-2 s, rank 1 2-3 s.
    const auto read_with_cuts = [](const std::string& path) {
        ReadOptions options;
        options.cut_bursts_if = [](const ParaverHeader&) { return true; };
        return read_paraver(path, options);
    };
    const auto replay = [&](const std::string& name, const std::string& description, bool cuts) {
        const auto path = test::synth_trace(name, description);
        network::DimemasNetwork net(two_tasks_one_cpu());
        return replay_events(
            build_replay_program(cuts ? read_with_cuts(path) : test::read_quiet(path)), net);
    };
    const std::string events_at_start = "ranks 2\n0 event 40000001 1\n0 event 40000050 3\n"
                                        "0 event 40000018 1\n0 compute 2s\n0 event 40000001 0\n"
                                        "1 compute 1s\n1 event 40000001 0\n";
    const auto start = replay("dim_pieces_start", events_at_start, true);
    CHECK(start.threads[0].end == 3 * k_ns_per_s);
    CHECK(start.threads[1].end == 1 * k_ns_per_s);
    CHECK(replay("dim_pieces_start", events_at_start, false).threads[1].end == 3 * k_ns_per_s);
    const std::string event_inside = "ranks 2\n0 compute 1s\n0 event 40000003 1\n0 compute 1s\n"
                                     "0 event 40000001 0\n1 compute 1s\n1 event 40000001 0\n";
    const auto inside = replay("dim_pieces_inside", event_inside, true);
    CHECK(inside.threads[0].end == 3 * k_ns_per_s);
    CHECK(inside.threads[1].end == 2 * k_ns_per_s);
    CHECK(inside.threads[1].cpu_wait == 1 * k_ns_per_s);
    CHECK(replay("dim_pieces_inside", event_inside, false).threads[1].end == 3 * k_ns_per_s);
}

TEST_CASE("dimemas model: a collective's members go on in the order they arrived, CPUs or not") {
    // 5 ranks on 3 nodes of 2 CPUs (2 tasks per node), one input and one output link per node,
    // 5 us and 1000 MB/s between nodes. After MPI_Init each rank posts two Irecvs and sends two
    // rendezvous messages (870320 bytes, 0.83 ms on a link), to ranks r+2 and r+3, and waits for
    // all four (its Waitall lasts long enough for the trace's messages to arrive after they left,
    // however long its MPI_Init waited). Which
    // transfers get the links first depends on the order in which the ranks leave MPI_Init's
    // barrier: Dimemas queues them in the order they arrived, then starts them node by node.
    // Dimemas 5.5.0 (prv2dim, -S 32k): 3542407 ns when rank 0 arrives last and the others in
    // rank order, 3537407 ns when rank 4 arrives first and rank 0 last, and when rank 0 arrives
    // last after ranks 4, 3, 2, 1 (arrival order alone, ranks 4 and 3 before ranks 0 and 1 on
    // node 0, gave 4367409 ns); leaving in rank order gave 4372409, 4367409 and 4367409 ns.
    const auto cfg = sweep_config("dim_arrival_order", 3, 2, 2);
    const auto exchange = [](const std::vector<int>& compute_us) {
        std::string d = "ranks 5\n";
        for (int r = 0; r < 5; ++r) {
            d += fmt::format(
                "{0} compute {1}us\n{0} MPI_Init 1us\n{0} compute 300ns\n{0} Irecv 500ns from={2} "
                "size=870320 tag=10 req=a\n{0} compute 300ns\n{0} Irecv 500ns from={3} "
                "size=870320 tag=11 req=b\n{0} compute 300ns\n{0} Isend 500ns to={3} size=870320 "
                "tag=10 req=c\n{0} compute 300ns\n{0} Isend 500ns to={2} size=870320 tag=11 "
                "req=d\n{0} compute 300ns\n{0} Waitall 871us req=a,b,c,d\n{0} compute 1us\n{0} "
                "event 40000001 0\n",
                r, compute_us[static_cast<std::size_t>(r)], (r + 3) % 5, (r + 2) % 5);
        }
        return d;
    };
    const std::pair<std::vector<int>, Time> cases[] = {{{200, 10, 20, 30, 40}, 3542407},
                                                       {{40, 30, 20, 10, 200}, 3537407},
                                                       {{200, 40, 30, 20, 10}, 3537407}};
    int i = 0;
    for (const auto& [compute_us, dimemas] : cases) {
        CAPTURE(i);
        const auto r = replay_file(
            test::synth_trace("dim_arrival_order_" + std::to_string(i++), exchange(compute_us)),
            network::read_dimemas_config(cfg));
        CHECK(r.runtime == dimemas);
    }
}

TEST_CASE("dimemas model: MPI_Reduce's root resumes first, and roots the next Barrier") {
    // Found by comparing random programs with Dimemas 5.5.0 (prv2dim, -S 32k); each number is
    // Dimemas'. Ranks 0 and 1 share a CPU; rank 1's Reduce data, the last to reach root 0, wake
    // both at the same instant: Dimemas queues the root first
    // (close_global_root_sync_communication), so rank 0 sends to rank 2 (on the other node)
    // before rank 1 computes its 100 us, and rank 2 is released early. Root last gave 285014 ns.
    const std::string root_first =
        "ranks 3\n0 compute 10us\n0 Reduce 100us size=64 root=0\n0 compute 10us\n0 Send 1us "
        "to=2 size=8\n0 compute 1us\n0 event 40000001 0\n1 compute 50us\n1 Reduce 60us size=64 "
        "root=0\n1 compute 100us\n1 event 40000001 0\n2 compute 10us\n2 Reduce 100us size=64 "
        "root=0\n2 compute 300ns\n2 Recv 20us from=0 size=8\n2 compute 100us\n2 event "
        "40000001 0\n";
    CHECK(replay_file(test::synth_trace("dim_reduce_root_first", root_first),
                      network::read_dimemas_config(sweep_config("dim_reduce_root_cfg", 2, 1, 2)))
              .runtime == 186006);
    // Four ranks on one node of 2 CPUs: a Reduce to rank 0, then a Barrier that rank 0 enters
    // first. Dimemas keeps the Reduce's root as the communicator's root until a collective's end
    // clears it, which the Reduce's does not: rank 0 resumes last from the Barrier, as a root
    // would. Resuming in arrival order (rank 0 first) gave 373000 ns.
    const std::string barrier_after_reduce =
        "ranks 4\n0 compute 50us\n0 Reduce 10us size=64 root=0\n0 compute 10us\n0 Barrier "
        "200us\n0 compute 100us\n0 event 40000001 0\n1 compute 10us\n1 Reduce 50us size=64 "
        "root=0\n1 compute 100us\n1 Barrier 110us\n1 compute 100us\n1 event 40000001 0\n2 "
        "compute 10us\n2 Reduce 50us size=64 root=0\n2 compute 110us\n2 Barrier 100us\n2 "
        "compute 10us\n2 event 40000001 0\n3 compute 10us\n3 Reduce 50us size=64 root=0\n3 "
        "compute 120us\n3 Barrier 90us\n3 compute 10us\n3 event 40000001 0\n";
    const auto one_node =
        network::read_dimemas_config(sweep_config("dim_reduce_root_node", 1, 2, 4));
    CHECK(replay_file(test::synth_trace("dim_barrier_after_reduce", barrier_after_reduce), one_node)
              .runtime == 383000);
}

TEST_CASE("dimemas model: with a CPU each, prv2dim's empty pieces order who takes a link") {
    // Ranks 0 and 1 on node 0, ranks 2 and 3 on node 1, a CPU each, one link each way per node:
    // 0 and 1 each send 27504 bytes across at 1 us. Rank 0's two events at time 0 give it two
    // more empty pieces, each ending through an event queued after the others of its instant, so
    // rank 1 asks for the link first and rank 0's message arrives second: rank 2, which computes
    // 100 us after it, ends last. Dimemas 5.5.0: 158460 ns; whole bursts gave 132230 ns.
    const std::string d =
        "ranks 4\n0 event 42000050 1\n0 event 42000050 2\n0 compute 1us\n0 Send 500ns to=2 "
        "size=27504\n0 compute 1us\n0 event 40000001 0\n1 compute 1us\n1 Send 500ns to=3 "
        "size=27504\n1 compute 1us\n1 event 40000001 0\n2 compute 1us\n2 Recv 100us from=0 "
        "size=27504\n2 compute 100us\n2 event 40000001 0\n3 compute 1us\n3 Recv 100us from=1 "
        "size=27504\n3 compute 10us\n3 event 40000001 0\n";
    ReadOptions read;
    read.cut_bursts_if = [](const ParaverHeader&) { return true; };
    const auto program =
        build_replay_program(read_paraver(test::synth_trace("dim_pieces_links", d), read));
    network::DimemasNetwork net(
        network::read_dimemas_config(sweep_config("dim_pieces_links_cfg", 2, 2, 2)));
    CHECK(replay_events(program, net).runtime == 158460);
}

TEST_CASE("dimemas model: a startup goes first on a shared CPU, a burst goes last") {
    // Ranks 0 and 1 on one CPU, intra-node latency 1 ms (instant data). Rank 0 computes 1 s, sends
    // 8 bytes to rank 1, computes 1 s; rank 1 receives (traced 0-2 s), then computes 1 s. Rank 0
    // has the CPU first (task order), so rank 1's receive startup waits until 1 s. Then rank 0's
    // send startup goes to the head of the queue: 1-1.001 s; its next burst to the tail, behind
    // rank 1's startup (1.001-1.002 s; the message is there); then rank 0 computes 1.002-2.002 s
    // and rank 1 2.002-3.002 s.
    const std::string d = "ranks 2\n0 compute 1s\n0 Send 1us to=1 size=8\n0 compute 1s\n"
                          "1 Recv 2s from=0 size=8\n1 compute 1s\n";
    auto p = two_tasks_one_cpu();
    p.intra_latency = 1 * k_ns_per_ms;
    const auto r = replay_on("dim_cpu_startup", d, p);
    CHECK(r.threads[0].end == 2002 * k_ns_per_ms);
    CHECK(r.threads[1].end == 3002 * k_ns_per_ms);
}

TEST_CASE("dimemas model: the CPU ratio divides bursts") {
    auto p = latency_bandwidth(0, 0);
    p.cpu_ratio = 2;
    CHECK(replay_on("dim_cpu", "ranks 1\n0 compute 3s\n", p).runtime == 1500 * k_ns_per_ms);
}

TEST_CASE("dimemas model: with zero latency and infinite bandwidth it is the ideal network") {
    const auto program =
        build_replay_program(test::read_quiet(test::shared_data("epoch/epoch_2proc.prv.gz")));
    network::DimemasNetwork dimemas(DimemasParameters{});
    network::IdealNetwork ideal;
    CHECK(replay_events(program, dimemas).op_end == replay_events(program, ideal).op_end);
}

TEST_CASE("dimemas model: epoch 4 ranks with Dimemas' five configurations, within 1 ns") {
    // dimemas_results.csv: Dimemas 5.5.0 with prv2dim, -S 32k.
    const std::pair<const char*, Time> cases[] = {{"dimemas_ideal", 6051059081},
                                                  {"whatif_lat5us_bw1000_bus0", 6098160805},
                                                  {"whatif_lat5us_bw0_bus0", 6061470449},
                                                  {"whatif_lat0_bw1000_bus0", 6090483819},
                                                  {"whatif_lat5us_bw1000_bus1", 6165226329}};
    const auto program =
        build_replay_program(test::read_quiet(test::shared_data("epoch/epoch_4proc.prv.gz")));
    for (const auto& [config, expected] : cases) {
        CAPTURE_BINDING(config);
        network::DimemasNetwork net(network::read_dimemas_config(
            test::shared_data(std::string("epoch/dimemas/epoch_4proc.") + config + ".cfg")));
        const Time predicted = replay_events(program, net, {.timeline = false}).runtime;
        CHECK(std::abs(static_cast<double>(predicted - expected)) <=
              1e-9 * static_cast<double>(expected)); // measured: 0 or 1 ns
    }
}

TEST_CASE("dimemas model: LAMMPS melt with Dimemas' what-if configurations") {
    // lammps-melt/dimemas/dimemas_results.csv (Dimemas 5.5.0, -S 32k). The bound of each row is
    // what the model achieves (docs/network-model.md): within 3 ns.
    struct Row {
        int ranks;
        const char* config;
        Time dimemas;
        double bound;
    };
    const Row rows[] = {
        {2, "dimemas_ideal", 448982768, 0},
        {2, "whatif_lat1us_bw10000_bus0", 452753543, 1e-8},
        {2, "whatif_lat20us_bw100_bus0", 760205132, 1e-8},
        {2, "whatif_lat5us_bw1000_bus1", 494553604, 1e-8},
        {2, "whatif_lat5us_bw1000_bus2", 483327053, 1e-8},
        {2, "whatif_2tpn_1cpu_intra0.5us_bw10000_inter5us_bw1000_bus1", 709840727, 1e-8},
        {2, "whatif_2tpn_intra0.5us_bw10000_inter5us_bw1000_bus1", 452597626, 1e-8},
        {4, "dimemas_ideal", 276345893, 0},
        {4, "whatif_lat1us_bw10000_bus0", 281424590, 1e-8},
        {4, "whatif_lat20us_bw100_bus0", 611591295, 1e-8},
        {4, "whatif_lat5us_bw1000_bus1", 370039318, 1e-8},
        {4, "whatif_lat5us_bw1000_bus2", 325826527, 1e-8},
        {4, "whatif_2tpn_1cpu_intra0.5us_bw10000_inter5us_bw1000_bus1", 546114653, 1e-8},
        {4, "whatif_2tpn_intra0.5us_bw10000_inter5us_bw1000_bus1", 315213596, 1e-8}};
    // The program's bursts are cut where prv2dim cuts them, as simulate cuts them on these
    // networks.
    ReadOptions read;
    read.cut_bursts_if = [](const ParaverHeader&) { return true; };
    for (const int ranks : {2, 4}) {
        const auto trace = "lammps-melt/lammps_melt_" + std::to_string(ranks);
        const auto program =
            build_replay_program(read_paraver(test::shared_data(trace + ".prv.gz"), read));
        for (const auto& row : rows) {
            if (row.ranks != ranks) continue;
            INFO(trace << " " << row.config);
            network::DimemasNetwork net(network::read_dimemas_config(
                test::shared_data("lammps-melt/dimemas/lammps_melt_" + std::to_string(ranks) + "." +
                                  row.config + ".cfg")));
            const Time predicted = replay_events(program, net, {.timeline = false}).runtime;
            CHECK(std::abs(static_cast<double>(predicted - row.dimemas)) <=
                  row.bound * static_cast<double>(row.dimemas));
        }
    }
}

TEST_CASE(
    "dimemas model: after MPI_Reduce calls a collective counts their tasks again, as Dimemas") {
    // Dimemas 5.5.0 (prv2dim, -S 32k) with LAMMPS melt 4's configuration of two tasks per node
    // (0.5 us and 10000 MB/s within a node, LOG collectives). Rank r computes 1000 + 100r us, then
    // each call k listed (10 us traced), each followed by 200 + 10((r + k) mod 4) us. An Allreduce
    // takes one stage within a node (2 tasks); after R Reduces on its communicator Dimemas counts
    // (R + 1) x 2 tasks there, ceil(log2) of them stages (RA +502 ns, RRA +1003 ns against the
    // nodes' own count); the collective's end clears the count (RAA: once), another
    // communicator's Reduce changes nothing (R2A), and a LIN Alltoall pays 4 stages more (RT).
    const auto cfg = network::read_dimemas_config(
        test::shared_data("lammps-melt/dimemas/"
                          "lammps_melt_4.whatif_2tpn_intra0.5us_bw10000_inter5us_bw1000_bus1.cfg"));
    auto program = [](const std::vector<std::string>& calls) {
        std::string out = "ranks 4\n";
        for (int r = 0; r < 4; ++r) {
            out += fmt::format("{} compute {}us\n", r, 1000 + 100 * r);
            for (int k = 0; k < static_cast<int>(calls.size()); ++k)
                out += fmt::format("{} {}\n{} compute {}us\n", r, calls[k], r,
                                   200 + 10 * ((r + k) % 4));
            out += fmt::format("{} event 60000019 1\n", r);
        }
        return out;
    };
    const std::string reduce = "Reduce 10us size=16 root=0", allreduce = "Allreduce 10us size=16";
    const struct {
        const char* name;
        std::vector<std::string> calls;
        Time dimemas;
    } cases[] = {{"A", {allreduce}, 1'535'517},
                 {"RA", {reduce, allreduce}, 1'771'034},
                 {"RRA", {reduce, reduce, allreduce}, 1'986'550},
                 {"RAA", {reduce, allreduce, allreduce}, 2'006'550},
                 {"R2A", {reduce + " comm=2", allreduce}, 1'770'532},
                 {"RT", {reduce, "Alltoall 10us size=16"}, 1'778'095}};
    for (const auto& c : cases) {
        INFO(c.name);
        CHECK(replay_on(std::string("dim_reduce_count_") + c.name, program(c.calls), cfg).runtime ==
              c.dimemas);
    }
}

TEST_CASE("dimemas model: LAMMPS melt, 4 tasks and 4 CPUs on one node, finishes as Dimemas") {
    // Issue 34, item 6: this shape deadlocked (the half-duplex links within the node). Dimemas
    // 5.5.0 predicts 280572673 ns.
    const auto dir = test::scratch_dir("dim_lammps_one_node");
    std::filesystem::copy_file(test::shared_data("lammps-melt/dimemas/dimemas.collectives"),
                               dir / "dimemas.collectives",
                               std::filesystem::copy_options::overwrite_existing);
    const auto cfg = test::write_file(
        dir / "one_node.cfg",
        "#DIMEMAS_CONFIGURATION\n"
        "\"wide area network information\" {\"\", 1, 0, 4, 0.0, 0.0, 1};;\n"
        "\"environment information\" {\"\", 0, \"\", 1, 1000.0, 1, 1};;\n"
        "\"multi node information\" {0, 1, \"x\", 4, 1.0, 0.5e-6, 10000.0, 0, 1, 0, 5e-6, 1, 1, "
        "0.0};;\n"
        "\"predefined mapping information\" {\"4 TASKS_PER_NODE\"};;\n"
        "\"configuration files\" {\"\", \"\", \"dimemas.collectives\", \"\"};;\n"
        "\"file system parameters\" {0.0, 0.0, 8.0, 0, 1.0};;\n");
    const auto program = build_replay_program(
        test::read_quiet(test::shared_data("lammps-melt/lammps_melt_4.prv.gz")));
    network::DimemasNetwork net(network::read_dimemas_config(cfg));
    const Time predicted = replay_events(program, net, {.timeline = false}).runtime;
    CHECK(std::abs(static_cast<double>(predicted) - 280572673.0) <= 1e-5 * 280572673.0);
}

TEST_CASE("dimemas model: task by task against Dimemas' simulated trace (5 us, 1000 MB/s)") {
    const auto program =
        build_replay_program(test::read_quiet(test::shared_data("epoch/epoch_4proc.prv.gz")));
    network::DimemasNetwork net(network::read_dimemas_config(
        test::shared_data("epoch/dimemas/epoch_4proc.whatif_lat5us_bw1000_bus0.cfg")));
    const auto ours = replay_events(program, net);
    const auto dimemas = test::read_quiet(
        test::shared_data("epoch/dimemas/epoch_4proc.whatif_lat5us_bw1000_bus0.sim.prv.gz"));
    for (std::uint32_t t = 0; t < 4; ++t) {
        INFO("task " << t + 1);
        CHECK(std::abs(ours.threads[t].end - dimemas.threads[t].states_end) <=
              2); // ns; measured: 1 ns on every task
    }
}

TEST_CASE("dimemas config: bad content names the file, line and field") {
    const auto dir = test::scratch_dir("dim_cfg");
    const auto bad_number = test::write_file(
        dir / "a.cfg",
        "#DIMEMAS_CONFIGURATION\n\n\"environment information\" {\"\", 0, \"\", 4, fast, 1, 1};;\n");
    CHECK_THROWS_WITH_AS(network::read_dimemas_config(bad_number),
                         (bad_number + ":3: \"environment information\" field 5 (network bandwidth "
                                       "(MB/s)): 'fast' is not a number")
                             .c_str(),
                         TraceError);
    const auto unknown = test::write_file(
        dir / "b.cfg",
        "#DIMEMAS_CONFIGURATION\n/* comment\n over lines */\n\"gpu information\" {1};;\n");
    CHECK_THROWS_WITH_AS(
        network::read_dimemas_config(unknown),
        (unknown + ":4: \"gpu information\" is not modelled (popsim reads \"environment "
                   "information\", \"multi node information\" or identical \"node information\", "
                   "one mapping, \"configuration files\", \"wide area network information\" for "
                   "one machine, \"modules information\" and \"file system parameters\")")
            .c_str(),
        TraceError);
    const auto fields = test::write_file(
        dir / "c.cfg", "#DIMEMAS_CONFIGURATION\n\"environment information\" {\"\", 0};;\n");
    CHECK_THROWS_WITH_AS(
        network::read_dimemas_config(fields),
        (fields + ":2: \"environment information\" has 2 fields, expected 7").c_str(), TraceError);
    const auto not_cfg = test::write_file(dir / "d.cfg", "hello\n");
    CHECK_THROWS_WITH_AS(
        network::read_dimemas_config(not_cfg),
        (not_cfg + ":1: not a Dimemas configuration: no #DIMEMAS_CONFIGURATION (or SDDFA) line")
            .c_str(),
        TraceError);
    const auto coll = test::write_file(dir / "coll", "Machine globalop: 0 1 LOG HUGE 0 MAX\n");
    DimemasParameters p;
    CHECK_THROWS_WITH_AS(
        network::read_collectives_file(coll, p),
        (coll + ":1: unknown size rule 'HUGE' (MIN, MAX, MEAN, 2MAX or S+R)").c_str(), TraceError);
}

TEST_CASE("dimemas: OpenMP fork/join barriers cost nothing, unlike an MPI collective") {
    // One rank, two threads: region 0-2 s (both compute 2 s), then the master computes 1 s, calls
    // MPI_Barrier (0 s) and computes 1 s. With a 1 s latency the MPI_Barrier costs 2 s (Dimemas'
    // default collective model: a constant fan-in and fan-out stage of latency each, here within
    // the node); the fork and join barriers cost nothing: 2 + 1 + 2 + 1 = 6 s.
    DimemasParameters p;
    p.inter_latency = p.intra_latency = 1000000 * us;
    const auto r = replay_on("omp_fork_join_cost", R"(ranks 1 threads 2
0.0 event 60000001 1
0.0 compute 2s
0.0 event 60000001 0
0.0 compute 1s
0.0 Barrier 0s
0.0 compute 1s
0.1 compute 2s
)",
                             p);
    CHECK(r.runtime == 6000000 * us);
}

TEST_CASE("dimemas config: values Dimemas would refuse are refused, not run") {
    // Issue "hardening", item 6: a negative bandwidth ran as infinite, -1 TASKS_PER_NODE as
    // 4294967295, a negative CPU ratio as instantaneous bursts; inf, nan and 1e300 overflowed.
    const auto dir = test::scratch_dir("dim_cfg_values");
    auto config = [&](const std::string& name, const std::string& environment,
                      const std::string& multinode, const std::string& mapping) {
        return test::write_file(dir / (name + ".cfg"),
                                "#DIMEMAS_CONFIGURATION\n\"environment information\" {" +
                                    environment + "};;\n\"multi node information\" {" + multinode +
                                    "};;\n\"predefined mapping information\" {\"" + mapping +
                                    "\"};;\n");
    };
    const std::string environment = "\"\", 0, \"\", 4, 100.0, 0, 1";
    const std::string multinode = "0, 4, 1, 1, 1.0, 0.0, 0.0, 0, 1, 1, 0.000005, 1, 1, 1";
    CHECK_NOTHROW(
        network::read_dimemas_config(config("fine", environment, multinode, "1 TASKS_PER_NODE")));
    const std::vector<std::tuple<std::string, std::string, std::string, std::string, std::string>>
        cases = {
            {"negative_bandwidth", "\"\", 0, \"\", 4, -1000, 0, 1", multinode, "1 TASKS_PER_NODE",
             ":2: \"environment information\" field 5 (network bandwidth (MB/s)) must be a finite "
             "number >= 0: '-1000'"},
            {"nan_bandwidth", "\"\", 0, \"\", 4, nan, 0, 1", multinode, "1 TASKS_PER_NODE",
             ":2: \"environment information\" field 5 (network bandwidth (MB/s)) must be a finite "
             "number >= 0: 'nan'"},
            {"huge_buses", "\"\", 0, \"\", 4, 100, 1e300, 1", multinode, "1 TASKS_PER_NODE",
             ":2: \"environment information\" field 6 (number of buses) must be a whole number "
             "from 0 to 1000000: '1e300'"},
            {"negative_ratio", environment, "0, 4, 1, 1, -2, 0.0, 0.0, 0, 1, 1, 0.000005, 1, 1, 1",
             "1 TASKS_PER_NODE",
             ":3: \"multi node information\" field 5 (relative processor speed) must be a finite "
             "number >= 0: '-2'"},
            {"zero_ratio", environment, "0, 4, 1, 1, 0, 0.0, 0.0, 0, 1, 1, 0.000005, 1, 1, 1",
             "1 TASKS_PER_NODE",
             ":3: \"multi node information\" field 5 (relative processor speed) must be greater "
             "than 0: '0'"},
            {"huge_latency", environment, "0, 4, 1, 1, 1, 0.0, 0.0, 0, 1, 1, 1e10, 1, 1, 1",
             "1 TASKS_PER_NODE",
             ":3: \"multi node information\" field 11 (inter-node latency (s)) is longer than "
             "2^62 ns: '1e10'"},
            {"negative_tasks_per_node", environment, multinode, "-1 TASKS_PER_NODE",
             ":4: \"predefined mapping information\": '-1 TASKS_PER_NODE' is not FILL_NODES, "
             "INTERLEAVED or 'N TASKS_PER_NODE' with N from 1 to 1000000"},
        };
    for (const auto& [name, env, multi, mapping, message] : cases) {
        CAPTURE_BINDING(name);
        const auto path = config(name, env, multi, mapping);
        CHECK_THROWS_WITH_AS(network::read_dimemas_config(path), (path + message).c_str(),
                             TraceError);
    }
}

TEST_CASE("dimemas config: what popsim does not model is refused with its field, not ignored") {
    const auto dir = test::scratch_dir("dim_cfg_unmodelled");
    const std::string env = "\"environment information\" {\"\", 0, \"\", 4, 100.0, 0, 1};;\n";
    const std::string multi = "\"multi node information\" {0, 4, \"n\", 1, 1.0, 0.0, 0.0, 0, 1, 0, "
                              "5e-6, 1, 1, 0.0};;\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"\"wide area network information\" {\"\", 2, 0, 4, 0.0, 0.0, 1};;\n",
         ":2: \"wide area network information\" field 2 (number of machines) must be 1: popsim "
         "models one machine, not several joined by a wide-area network: '2'"},
        {"\"wide area network information\" {\"\", 1, 3, 4, 0.0, 0.0, 1};;\n",
         ":2: \"wide area network information\" field 3 (dedicated connections) must be 0: "
         "connections between machines are not modelled: '3'"},
        {"\"environment information\" {\"\", 1, \"\", 4, 100.0, 0, 1};;\n",
         ":2: \"environment information\" field 2 (machine ID) must be 0: popsim models one "
         "machine, not several joined by a wide-area network: '1'"},
        {"\"multi node information\" {0, 4, \"n\", 1, 1.0, 0.0, 9.0, 2, 1, 0, 5e-6, 1, 1, 0.0};;\n",
         ":2: \"multi node information\" field 8 (intra-node buses) must be 0 with an intra-node "
         "bandwidth: limits on messages within a node are not modelled: '2'"},
        {"\"configuration files\" {\"fifo.sched\", \"\", \"\", \"\"};;\n",
         ":2: \"configuration files\" field 1 (scheduler definition file) must be \"\": popsim "
         "does not model it: 'fifo.sched'"},
        {"\"configuration files\" {\"\", \"\", \"\", \"random.cfg\"};;\n",
         ":2: \"configuration files\" field 4 (random values (sensitivity) file) must be \"\": "
         "popsim does not model it: 'random.cfg'"},
        {"\"node information\" {0, \"n\", 2, 1.0, 0.0, 0.0, 0, 1, 0, 5e-6, 1, 1, 0.0};;\n",
         ":4: \"multi node information\" describes nodes unlike those of line 2: popsim models "
         "nodes that are all alike"},
        {"\"dedicated connection information\" {1, 2, 0.5};;\n",
         ":2: \"dedicated connection information\" is not modelled (popsim reads \"environment "
         "information\", \"multi node information\" or identical \"node information\", one "
         "mapping, \"configuration files\", \"wide area network information\" for one machine, "
         "\"modules information\" and \"file system parameters\")"},
        {"\"mapping information\" {\"t.dim\", 4, [3] {0, 1, 1}};;\n",
         ":2: \"mapping information\" field 3 (nodes of the tasks): '[3]{0,1,1}' is not [4] "
         "{node, ...}, one node per task"}};
    int i = 0;
    for (const auto& [record, message] : cases) {
        CAPTURE_BINDING(record);
        const auto path = test::write_file(dir / ("case" + std::to_string(i++) + ".cfg"),
                                           "#DIMEMAS_CONFIGURATION\n" + record + env + multi);
        CHECK_THROWS_WITH_AS(network::read_dimemas_config(path), (path + message).c_str(),
                             TraceError);
    }
    // An explicit mapping is read: tasks 1 and 3 on node 1, tasks 2 and 4 on node 0.
    const auto mapped = test::write_file(
        dir / "mapped.cfg", "#DIMEMAS_CONFIGURATION\n" + env + multi +
                                "\"mapping information\" {\"t.dim\", 4, [4] {1, 0, 1, 0}};;\n");
    const auto p = network::read_dimemas_config(mapped);
    CHECK(p.node_of_task == std::vector<std::uint32_t>{1, 0, 1, 0});
    CHECK(p.nodes == 4);
    CHECK(p.cpus_per_node == 1);
}

TEST_CASE("dimemas config: every configuration of the shared data is accepted") {
    for (const auto* folder : {"lammps-melt/dimemas", "epoch/dimemas"}) {
        for (const auto& entry : std::filesystem::directory_iterator(test::shared_data(folder))) {
            if (entry.path().extension() != ".cfg") continue;
            CAPTURE(entry.path().string());
            CHECK_NOTHROW(network::read_dimemas_config(entry.path().string()));
        }
    }
}

TEST_CASE("dimemas config: a collectives file that is a directory or a FIFO is refused") {
    // A directory was read as an empty file (the collectives silently took their defaults); a
    // FIFO blocked the reader (found by config_fuzz naming /proc/self/fd/3).
    const auto dir = test::scratch_dir("dim_cfg_collectives_dir");
    std::filesystem::create_directories(dir / "colls");
    const auto cfg = test::write_file(
        dir / "a.cfg",
        "#DIMEMAS_CONFIGURATION\n\"configuration files\" {\"\", \"\", \"colls\", \"\"};;\n");
    CHECK_THROWS_WITH_AS(
        network::read_dimemas_config(cfg),
        ((dir / "colls").string() + ": a folder, where a file is expected").c_str(), TraceError);
    std::filesystem::remove(dir / "colls");
    REQUIRE(mkfifo((dir / "colls").c_str(), 0600) == 0);
    CHECK_THROWS_WITH_AS(network::read_dimemas_config(cfg),
                         ((dir / "colls").string() +
                          ": not a regular file (a FIFO or a device): it cannot be read whole")
                             .c_str(),
                         TraceError);
}

TEST_CASE("dimemas config: SDDFA files of Dimemas 4 and 5, nodes one by one, predefined maps") {
    // Issue 34, item 8. 8 ranks on 2 nodes of 4 CPUs (ranks 0-3 on node 0), 5 us inter-node
    // latency, 250 MB/s (MB = 2^20 bytes), one output link per node. Rank 1 sends 1 MiB to rank 5
    // at 0, rank 0 1 MiB to rank 4 after 1 ms of computation (rendezvous; the receivers wait from
    // 0). Rank 1's message: 5 us latency, then 4 ms on node 0's only output link, to 4.005 ms; rank
    // 0's pays its latency at 1 ms and waits for the link until 4.005 ms: 8.005 ms. Dimemas 5.5.0
    // predicts 8005000 ns for this program with the current-format file below (FILL_NODES).
    const std::string program = "ranks 8\n0 compute 1ms\n0 Send 1us to=4 size=1048576\n"
                                "4 Recv 1ms from=0 size=1048576\n1 Send 1us to=5 size=1048576\n"
                                "5 Recv 1ms from=1 size=1048576\n";
    const auto dir = test::scratch_dir("dim_cfg_sddfa");
    const std::string declarations =
        "/* declarations: only their records are read */ ;;\n"
        "#1:\n\"environment information\" {\n  char \"machine_name\"[];\n  int \"machine_id\";\n"
        "  // and the other fields\n};;\n#3:\n\"mapping information\" {\n  char \"tracefile\"[];\n"
        "};;\n;;\n";
    const std::string environment =
        "\"environment information\" {\"\", 0, \"\", 2, 250.0, 0, 1};;\n";
    const std::string dimemas4_node = "{0, 0, \"\", 4, 1, 1, 0.0, 0.000005, 1.0, 0.0, 0.0};;\n";
    const std::string dimemas5_node =
        "{0, 1, \"\", 4, 1.0, 0.0, 0.0, 0, 1, 0, 5e-6, 1, 1, 0.0};;\n";
    const std::string explicit_map =
        "\"mapping information\" {\"a.dim\", 8, [8] {0,0,0,0,1,1,1,1}};;\n";
    const std::vector<std::pair<std::string, std::string>> equivalent = {
        {"dimemas4", "SDDFA\n" + declarations + environment + "\"node information\" " +
                         dimemas4_node + "\"node information\" // node 1\n  " + dimemas4_node +
                         explicit_map},
        {"dimemas5", "SDDFA\n" + declarations + environment + "\"node information\" " +
                         dimemas5_node + "\"node information\" " + dimemas5_node + explicit_map},
        {"fill_nodes", "#DIMEMAS_CONFIGURATION\n" + environment +
                           "\"multi node information\" {0, 2, \"\", 4, 1.0, 0.0, 0.0, 0, 1, 0, "
                           "5e-6, 1, 1, 0.0};;\n"
                           "\"predefined mapping information\" {\"a.dim\", \"FILL_NODES\"};;\n"},
        {"nodes_one_by_one",
         "#DIMEMAS_CONFIGURATION\n" + environment +
             "\"node information\" {0, \"\", 4, 1.0, 0.0, 0.0, 4, 1, 0, 5e-6, 1, 1, 0.0};;\n"
             "\"node information\" {0, \"\", 4, 1.0, 0.0, 0.0, 4, 1, 0, 5e-6, 1, 1, 0.0};;\n"
             "\"predefined mapping information\" {\"4 TASKS_PER_NODE\"};;\n"}};
    for (const auto& [name, text] : equivalent) {
        CAPTURE_BINDING(name);
        const auto p = network::read_dimemas_config(test::write_file(dir / (name + ".cfg"), text));
        CHECK(p.nodes == 2);
        CHECK(p.cpus_per_node == 4);
        CHECK(replay_on("dim_cfg_sddfa_program", program, p).runtime == 8005 * us);
    }
    // INTERLEAVED puts ranks 0 and 4, 1 and 5 on one node: instantaneous messages, 1 ms.
    const auto interleaved = network::read_dimemas_config(test::write_file(
        dir / "interleaved.cfg", "#DIMEMAS_CONFIGURATION\n" + environment +
                                     "\"multi node information\" {0, 2, \"\", 4, 1.0, 0.0, 0.0, 0, "
                                     "1, 0, 5e-6, 1, 1, 0.0};;\n"
                                     "\"predefined mapping information\" {INTERLEAVED};;\n"));
    CHECK(replay_on("dim_cfg_sddfa_program", program, interleaved).runtime == 1000 * us);

    const std::string v5 = "SDDFA\n" + declarations;
    const std::vector<std::pair<std::string, std::string>> refused = {
        {v5 + environment + "\"node information\" " + dimemas5_node +
             "\"node information\" {0, 1, \"\", 2, 1.0, 0.0, 0.0, 0, 1, 0, 5e-6, 1, 1, 0.0};;\n",
         ":16: \"node information\" describes nodes unlike those of line 15: popsim models nodes "
         "that are all alike"},
        {v5 + "\"environment information\" {\"\", 0, \"\", 3, 250.0, 0, 1};;\n" +
             "\"node information\" " + dimemas5_node + "\"node information\" " + dimemas5_node,
         ":14: \"environment information\" declares 3 nodes, the node records describe 2"},
        {v5 + environment + environment,
         ":15: a second \"environment information\" (the first is line 14): popsim models one "
         "machine running one application"},
        {v5 + environment + explicit_map +
             "\"predefined mapping information\" {\"FILL_NODES\"};;\n",
         ":16: a second \"predefined mapping information\" (the first is line 15): popsim models "
         "one machine running one application"},
        {"SDDFA\n;;\n#1:\n\"environment information\" {\n  int \"machine_id\";\n",
         ":3: unterminated record declaration (#N: \"name\" {...};;)"},
        {"#DIMEMAS_CONFIGURATION\n\"environment information\" {\"\", 0, \"\", 0, 250.0, 0, 1};;\n",
         ":2: \"environment information\" field 4 (number of nodes) must be at least 1: '0'"},
        {"SDDFA\n\"node information\" {0, 0, \"\", 4, 1, 1, 0.0, 0.000005, 1.0, 500.0, 0.0};;\n",
         ":2: \"node information\" field 10 (memory bandwidth (MB/s)) must be 0: Dimemas 4 nodes "
         "take one intra-node bus per CPU, and limits on messages within a node are not "
         "modelled: '500.0'"}};
    int i = 0;
    for (const auto& [text, message] : refused) {
        CAPTURE_BINDING(text);
        const auto path = test::write_file(dir / ("refused" + std::to_string(i++) + ".cfg"), text);
        CHECK_THROWS_WITH_AS(network::read_dimemas_config(path), (path + message).c_str(),
                             TraceError);
    }
}

TEST_CASE("dimemas: with shared CPUs, who takes a freed CPU first, as Dimemas 5.5.0 orders it") {
    // Issue 34, items 6-7: programs found by replaying random synth programs through Dimemas 5.5.0
    // (expected runtimes are Dimemas', checked by hand). Each `compute 1ns` between two MPI calls
    // and each closing event are there for prv2dim, as Extrae traces have them.
    const std::string closing =
        "0 event 40000001 0\n1 event 40000001 0\n2 event 40000001 0\n3 event 40000001 0\n";
    SUBCASE("a rendezvous sender released by the receive's post is first in its node's queue") {
        // Node 0 (ranks 0-3) has 2 CPUs. At 1 us rank 0's rendezvous send to rank 1 is released
        // by rank 1's post; Dimemas gives rank 0 rank 1's CPU at once, before ranks 2 and 3 that
        // waited since 0: its 20 us startup runs 1-21 us, as rank 4's send does: 21 us (the CPU
        // going to ranks 2 and 3 first made it 22 us).
        DimemasParameters p = latency_bandwidth(20 * us, 0);
        p.cpus_per_node = 2;
        p.tasks_per_node = 4;
        p.in_links = p.out_links = 2;
        const auto r = replay_on("dim_cpu_rendezvous", R"(ranks 8
0 compute 1us
0 Sendrecv 30us to=1 from=4 size=100000
1 compute 1us
1 Recv 10us from=0 size=100000
2 compute 1us
3 compute 1us
4 compute 1us
4 Send 1us to=0 size=100000
5 compute 1us
6 compute 1us
7 compute 1us
)" + closing + "4 event 40000001 0\n5 event 40000001 0\n6 event 40000001 0\n7 event 40000001 0\n",
                                 p);
        CHECK(r.runtime == 21 * us);
    }
    SUBCASE("a thread that posts a non-blocking receive keeps its CPU for an instant") {
        // Four ranks on one node of 2 CPUs (the sweep's network), two rings of two (below); rank
        // 0's two events at time 0 give it two empty pieces. While a rank holds its CPU for the
        // instant after its Irecv, a burst ending at that instant on the other CPU queues its rank
        // first. The first difference is at 56 us, where rank 1's 50 us
        // burst takes a CPU in Dimemas, rank 3's without the turn: Dimemas 5.5.0 gives 153500 ns,
        // the Irecv going on at once 162000 ns.
        ReadOptions read;
        read.cut_bursts_if = [](const ParaverHeader&) { return true; };
        // Rank r receives from and sends to rank (r + 2) % 4: Irecv, compute, Isend, compute,
        // Waitall, compute, with these three durations.
        const std::string durations[4][3] = {{"50us", "20us", "20us"},
                                             {"5us", "50us", "1us"},
                                             {"20us", "50us", "20us"},
                                             {"50us", "5us", "1us"}};
        std::string ring = "ranks 4\n0 event 42000050 1\n0 event 42000051 1\n";
        for (int r = 0; r < 4; ++r)
            ring += fmt::format("{0} Irecv 500ns from={1} size=8 tag=10 req=a\n{0} compute {2}\n"
                                "{0} Isend 500ns to={1} size=8 tag=10 req=b\n{0} compute {3}\n"
                                "{0} Waitall 200us req=a,b\n{0} compute {4}\n",
                                r, (r + 2) % 4, durations[r][0], durations[r][1], durations[r][2]);
        const auto program = build_replay_program(
            read_paraver(test::synth_trace("dim_cpu_irecv", ring + closing), read));
        network::DimemasNetwork net(
            network::read_dimemas_config(sweep_config("dim_cpu_irecv_cfg", 1, 2, 4)));
        CHECK(replay_events(program, net).runtime == 153'500);
    }
    SUBCASE("a send and a receive that return at once keep the CPU for an instant too") {
        // Found by replaying random programs (validation/dimemas_sweep.py's, 4 ranks) on the same
        // node through Dimemas 5.5.0, then cut down line by line while Dimemas kept its answer:
        // two pairs exchange 846 bytes both ways (eager: the receives find their data there), and
        // the instants after those sends and receives decide who computes when. Dimemas: 670988
        // ns; with the Irecv's instant alone popsim gave 671284 ns.
        ReadOptions read;
        read.cut_bursts_if = [](const ParaverHeader&) { return true; };
        const auto program =
            build_replay_program(read_paraver(test::synth_trace("dim_cpu_send", R"(ranks 4
0 event 42009999 2
0 event 40000003 0
0 event 40000003 0
0 event 40000001 1
0 Recv 1846ns from=1 size=846 tag=5
0 compute 300ns
0 Send 1000ns to=1 size=846 tag=6
0 compute 377ns
1 Send 1000ns to=0 size=846 tag=5
1 compute 300ns
1 Recv 2692ns from=0 size=846 tag=6
1 compute 300ns
2 event 40000001 1
2 Recv 1846ns from=3 size=846 tag=5
2 compute 300ns
2 Send 1000ns to=3 size=846 tag=6
3 event 40000001 1
3 Send 1000ns to=2 size=846 tag=5
3 compute 300ns
3 Recv 2692ns from=2 size=846 tag=6
3 compute 668307ns
3 event 60000019 7
)"),
                                              read));
        network::DimemasNetwork net(
            network::read_dimemas_config(sweep_config("dim_cpu_send_cfg", 1, 2, 4)));
        CHECK(replay_events(program, net).runtime == 670'988);
    }
    // Two nodes of 1 CPU, ranks 0-1 and 2-3; everything else free. Then rank 0 computes 10 us while
    // rank 1 sends to rank 2, which computes 10 us: whoever of ranks 0 and 1 takes node 0's CPU
    // first sets the runtime.
    const std::string who_goes_first = "0 compute 10us\n1 compute 1us\n1 Send 1us to=2 size=8\n"
                                       "2 compute 1ns\n2 Recv 5us from=1 size=8\n2 compute 10us\n";
    DimemasParameters one_cpu;
    one_cpu.cpus_per_node = 1;
    one_cpu.tasks_per_node = 2;
    SUBCASE("a collective's root resumes last") {
        // After the Gather (no cost) rank 1 goes first on node 0: it sends to rank 2 at 1 us, which
        // computes 1-11 us while rank 0 computes 1-11 us: 11 us (rank 0 first made it 21 us).
        const auto r = replay_on("dim_cpu_root_last", R"(ranks 4
0 Gather 20us size=8 root=0
1 Gather 20us size=8 root=0
2 Gather 20us size=8 root=0
3 Gather 20us size=8 root=0
)" + who_goes_first + closing,
                                 one_cpu);
        CHECK(r.runtime == 11 * us);
    }
    SUBCASE("the members of a collective resume in the order they arrived") {
        // Rank 1 reaches the Barrier at 2 us, rank 0 at 20.001 us (after rank 2's message), rank 2
        // last at 21.001 us. Node 0 resumes in arrival order: rank 1 computes 21.001-22.001 us and
        // sends to rank 2, which computes 22.001-32.001 us: 32.001 us (rank 0 first, in member
        // order, made it 42.001 us).
        const auto r = replay_on("dim_cpu_arrival_order", R"(ranks 4
0 compute 1us
0 Recv 19us from=2 size=8
0 compute 1ns
0 Barrier 2us
1 compute 1us
1 Barrier 21us
2 compute 20us
2 Send 1us to=0 size=8
2 compute 1ns
2 Barrier 1us
3 compute 1us
3 Barrier 21us
)" + who_goes_first + closing,
                                 one_cpu);
        CHECK(r.runtime == 32'001);
    }
}

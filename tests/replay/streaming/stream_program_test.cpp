// SPDX-License-Identifier: BSD-3-Clause
// Issue 17: the program written down in one streaming pass (for what-if networks, which need it
// whole) is build_replay_program's, array for array, on synthetic traces and on every real trace
// that streams; so every replay of it, on any network, is the in-memory one's. The in-memory
// program is the one validated against Dimemas. One case is also checked against operations
// listed by hand.
#include "replay/engine/engine.hpp"
#include "replay/network/dimemas.hpp"
#include "replay/streaming/background_replay.hpp"
#include "replay/synth.hpp"
#include "same_program.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>

using namespace popsim;
using namespace popsim::replay;
using popsim::test::as_vector;

namespace {

/// The streamed program against the in-memory one, and their replays on a contended network;
/// with `cuts`, both cut the bursts where prv2dim cuts them.
void check_against_in_memory(const std::string& path, const ProgramOptions& options = {},
                             bool cuts = false) {
    auto read = test::quiet_options();
    if (cuts) read.cut_bursts_if = [](const ParaverHeader&) { return true; };
    const auto streamed = stream_program(path, read, options);
    REQUIRE(streamed.run.program.has_value());
    const auto trace = read_paraver(path, read);
    const auto program = build_replay_program(trace, options);
    test::check_same_program(*streamed.run.program, program);
    network::DimemasParameters contended;
    contended.inter_latency = 3'000;
    contended.inter_bandwidth_mbps = 100;
    contended.buses = 1;
    network::DimemasNetwork a(contended), b(contended);
    const EngineOptions engine{.timeline = false};
    CHECK(replay_events(*streamed.run.program, a, engine).runtime ==
          replay_events(program, b, engine).runtime);
}

} // namespace

TEST_CASE("streamed program: the operations of a small case, listed by hand") {
    // Rank 0 posts an Irecv, sends, computes and waits; rank 1 receives, then sends back. With
    // MPI_Init's barrier first, the programs are (burst durations in ns):
    //   0: Init [barrier]; burst 2000; Irecv [post m1]; Send [send m0]; burst 4000; Wait [wait m1]
    //   1: Init [barrier]; burst 1000; Recv [post m0, wait m0]; Send [send m1]
    const auto path = test::synth_trace("stream_program_by_hand", R"(ranks 2
0 Init 1us
1 Init 1us
0 compute 2us
0 Irecv 1us from=1 size=8 req=r
0 Send 1us to=1 size=8
0 compute 4us
0 Wait 3us req=r
1 compute 1us
1 Recv 2us from=0 size=8
1 Send 1us to=0 size=8
)");
    const auto streamed = stream_program(path, test::quiet_options(), {});
    const auto& p = *streamed.run.program;
    using enum OpKind;
    CHECK(as_vector(p.op_kind) == std::vector<OpKind>{collective, burst, recv_post, send, burst,
                                                      recv_wait, collective, burst, recv_post,
                                                      recv_wait, send});
    CHECK(p.thread_first_op == std::vector<OpIndex>{0, 6, 11});
    CHECK(as_vector(p.burst_durations) == std::vector<Time>{2'000, 4'000, 1'000});
    // Message 0 goes from 0 to 1 (the first record in the file), 1 back.
    REQUIRE(p.messages.size() == 2);
    CHECK(p.messages[0].sender == 0);
    CHECK(p.messages[1].sender == 1);
    CHECK(p.op_ref[2] == 1);  // rank 0 posts message 1
    CHECK(p.op_ref[3] == 0);  // and sends message 0
    CHECK(p.op_ref[10] == 1); // rank 1 sends message 1
    CHECK(as_vector(p.wait_messages) == std::vector<MessageIndex>{1, 0});
    REQUIRE(p.collectives.size() == 1); // Init's barrier, both members
    CHECK(p.collective_members == std::vector<OpIndex>{0, 6});
    check_against_in_memory(path);
}

TEST_CASE("streamed program: a wait lists its messages in the order the trace received them") {
    // Rank 0 completes two receives in one Waitall; the trace received the second record's
    // message (message 1) first, at 2.5 us, inside the Waitall, and the first at its exit, 3 us.
    // prv2dim writes the waits in that order, and Dimemas pays their startups in it: both
    // programs list message 1 first.
    const auto path = test::synth_trace("stream_program_wait_order", R"(ranks 3
0 Irecv 1us from=1 size=8 req=a
0 Irecv 1us from=2 size=8 req=b
0 Waitall 1us req=a,b
1 Send 1us to=0 size=8
2 Send 1us to=0 size=8
)");
    REQUIRE(test::replace_in_file(
        path, "3:3:1:3:1:0:1000:1:1:1:1:2000:3000:", "3:3:1:3:1:0:1000:1:1:1:1:2000:2500:"));
    const auto program = build_replay_program(read_paraver(path, test::quiet_options()));
    CHECK(as_vector(program.wait_messages) == std::vector<MessageIndex>{1, 0});
    check_against_in_memory(path);
}

TEST_CASE("streamed program: build_replay_program's on synthetic traces") {
    for (const auto& [name, description] : test::k_streaming_cases) {
        CAPTURE_BINDING(name);
        const auto path = test::synth_trace(name, description);
        check_against_in_memory(path);
        check_against_in_memory(
            path,
            {.eager_limit_bytes = 0, .init_barrier = false, .collectives = CollectiveSync::mpi});
    }
    // OpenMP regions: with every thread (a fork and a join per region, the workers' work between
    // them) and with the first threads only (prv2dim's translation, convert).
    const auto omp = test::synth_trace("stream_program_omp", R"(ranks 2 threads 2
0 Init 1us
1 Init 1us
0 event 60000001 1
0 compute 5us
0.1 compute 3us
0 event 60000001 0
0 Allreduce 1us size=8
1 compute 2us
1 Allreduce 1us size=8
)");
    check_against_in_memory(omp, {.threads = false});
    check_against_in_memory(omp);
    const auto halo = (test::scratch_dir("stream_program_halo") / "halo.prv").string();
    synth::write_paraver(synth::halo_exchange(8, 300), halo);
    check_against_in_memory(halo);
    const auto hybrid = (test::scratch_dir("stream_program_halo") / "hybrid.prv").string();
    synth::write_paraver(synth::halo_exchange(4, 100, 3), hybrid);
    check_against_in_memory(hybrid);
}

TEST_CASE("streamed program: build_replay_program's on every real trace that streams") {
    const auto root = test::shared_data("");
    std::size_t streamed = 0;
    for (const auto& path : test::real_paraver_traces()) {
        CAPTURE(path);
        try {
            stream_program(path, test::quiet_options(), {});
        } catch (const std::exception& e) {
            MESSAGE(fmt::format("{}: {}", path.substr(root.size()), e.what()));
            continue;
        }
        ++streamed;
        check_against_in_memory(path);
    }
    CHECK(streamed > 0);
}

TEST_CASE("streamed program: prv2dim's burst pieces, as build_replay_program cuts them") {
    for (const auto& [name, description] : test::k_streaming_cases) {
        CAPTURE_BINDING(name);
        check_against_in_memory(test::synth_trace(name, description), {}, true);
    }
    const auto events = test::synth_trace("stream_program_pieces", test::k_prv2dim_cuts_program);
    check_against_in_memory(events, {}, true);
    const auto halo = (test::scratch_dir("stream_program_pieces") / "halo.prv").string();
    synth::write_paraver(synth::halo_exchange(8, 300), halo);
    check_against_in_memory(halo, {}, true);
}

TEST_CASE("streamed program: prv2dim's burst pieces on every real trace that streams") {
    std::size_t streamed = 0;
    auto read = test::quiet_options();
    read.cut_bursts_if = [](const ParaverHeader&) { return true; };
    for (const auto& path : test::real_paraver_traces()) {
        CAPTURE(path);
        try {
            stream_program(path, read, {});
        } catch (const std::exception&) { // refused, or not streamed: as without the cuts
            continue;
        }
        ++streamed;
        check_against_in_memory(path, {}, true);
    }
    CHECK(streamed > 0);
}

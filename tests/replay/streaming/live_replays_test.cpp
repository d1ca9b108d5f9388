// SPDX-License-Identifier: BSD-3-Clause
// Issue 37: what-if networks replayed while the streaming pass writes their program
// (replay/streaming/live_replays.hpp) give, network by network, what the event engine gives on
// the whole in-memory program (build_replay_program's, the one validated against Dimemas):
// every thread's times and the runtime, on synthetic traces and on every real trace that
// streams, the program handed over after every call written (where they pause most) and at
// their default period.
#include "replay/engine/engine.hpp"
#include "replay/engine/written_program.hpp"
#include "replay/network/dimemas.hpp"
#include "replay/network/ideal.hpp"
#include "replay/streaming/background_replay.hpp"
#include "replay/streaming/streaming_replay.hpp"
#include "replay/synth.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <memory>

using namespace popsim;
using namespace popsim::replay;

namespace {

/// The networks compared: contended (one bus, one link per node, two tasks per node), a
/// latency with rendezvous at 1 KB, the ideal network with CPUs twice as fast, and the
/// ideal network itself.
std::vector<std::unique_ptr<network::NetworkModel>> networks() {
    std::vector<std::unique_ptr<network::NetworkModel>> out;
    network::DimemasParameters contended;
    contended.inter_latency = 3'000;
    contended.intra_latency = 500;
    contended.inter_bandwidth_mbps = 100;
    contended.intra_bandwidth_mbps = 1'000;
    contended.buses = 1;
    contended.tasks_per_node = 2;
    contended.task_map = network::DimemasParameters::TaskMap::tasks_per_node;
    out.push_back(std::make_unique<network::DimemasNetwork>(contended));
    network::DimemasParameters latency;
    latency.inter_latency = 20'000;
    latency.inter_bandwidth_mbps = 1'000;
    out.push_back(std::make_unique<network::DimemasNetwork>(latency));
    network::DimemasParameters faster; // the ideal network of whatif --cpu-ratio 2
    faster.in_links = faster.out_links = 0;
    faster.cpu_ratio = 2;
    out.push_back(std::make_unique<network::DimemasNetwork>(faster));
    out.push_back(std::make_unique<network::IdealNetwork>());
    return out;
}

void check_same_times(const ReplayResult& live, const ReplayResult& whole) {
    CHECK(live.runtime == whole.runtime);
    REQUIRE(live.threads.size() == whole.threads.size());
    for (std::size_t t = 0; t < live.threads.size(); ++t) {
        CAPTURE(t);
        const auto &a = live.threads[t], &b = whole.threads[t];
        CHECK(a.end == b.end);
        CHECK(a.useful == b.useful);
        CHECK(a.waiting == b.waiting);
        CHECK(a.transfer == b.transfer);
    }
}

/// How often the program goes to the live replays: with small blocks of the file and after every
/// call written (where they pause most), or as `whatif` runs them.
struct Pace {
    std::optional<std::size_t> block_bytes;
    std::uint64_t advance_every = 0;
};
constexpr Pace k_finest{.block_bytes = 64, .advance_every = 1}; // the reader's smallest blocks
constexpr Pace k_default{};

/// Replays `path` live on every network and in memory; false when the trace does not stream.
bool check_against_in_memory(const std::string& path, Pace pace,
                             const ProgramOptions& options = {}) {
    auto live_models = networks();
    std::vector<network::NetworkModel*> models;
    for (auto& m : live_models) models.push_back(m.get());
    const LiveNetworks live{.networks = [&](std::uint32_t) { return models; },
                            .options = {.timeline = false},
                            .advance_every = pace.advance_every};
    auto read = test::quiet_options();
    read.block_bytes = pace.block_bytes;
    StreamedProgram streamed;
    try {
        streamed = stream_program(path, read, options, std::nullopt, {}, live);
    } catch (const StreamingUnsupported&) {
        return false;
    } catch (const TraceError&) { // refused
        return false;
    }
    const auto trace = read_paraver(path, test::quiet_options());
    const auto program = build_replay_program(trace, options);
    if (program.thread_count() != program.tasks) { // several threads a task: kept whole
        CHECK(streamed.live_results.empty());
        return true;
    }
    REQUIRE(streamed.live_results.size() == live_models.size());
    // The program kept is its threads alone.
    CHECK(streamed.run.program->op_count() == 0);
    CHECK(streamed.run.program->thread_count() == program.thread_count());
    auto whole_models = networks();
    for (std::size_t n = 0; n < whole_models.size(); ++n) {
        CAPTURE(n);
        check_same_times(streamed.live_results[n],
                         replay_events(program, *whole_models[n], {.timeline = false}));
    }
    return true;
}

} // namespace

TEST_CASE("live replays: every network's times are the whole program's, on synthetic traces") {
    for (const Pace pace : {k_finest, k_default}) {
        CAPTURE(pace.advance_every);
        for (const auto& [name, description] : test::k_streaming_cases) {
            CAPTURE_BINDING(name);
            const auto path = test::synth_trace(name, description);
            CHECK(check_against_in_memory(path, pace));
            CHECK(check_against_in_memory(path, pace,
                                          {.eager_limit_bytes = 0,
                                           .init_barrier = false,
                                           .collectives = CollectiveSync::mpi}));
        }
        const auto halo = (test::scratch_dir("live_replays_halo") / "halo.prv").string();
        synth::write_paraver(synth::halo_exchange(8, 300), halo);
        CHECK(check_against_in_memory(halo, pace));
    }
}

TEST_CASE("live replays: every network's times are the whole program's, on every real trace") {
    const auto root = test::shared_data("");
    std::size_t live = 0;
    for (const auto& path : test::real_paraver_traces()) {
        CAPTURE(path);
        if (check_against_in_memory(path, {.block_bytes = 4096, .advance_every = 1})) ++live;
    }
    CHECK(live > 0);
    MESSAGE(fmt::format("{} real traces replayed live", live));
}

TEST_CASE("live replays: an engine's error in the background stops the read with that error") {
    // The first message lasts past the replay's 208 days; the engines meet it in their work
    // beside the reader, after the first hand-over, while the reader has many calls left.
    std::string description = "ranks 2\n0 compute 1s\n0 Send 1ms to=1 size=10000000000000000\n"
                              "1 compute 1s\n1 Recv 1ms from=0 size=10000000000000000\n";
    for (int step = 0; step < 200; ++step)
        description += "0 compute 1ms\n0 Send 1ms to=1 size=8\n1 compute 1ms\n"
                       "1 Recv 1ms from=0 size=8\n";
    const auto path = test::synth_trace("live_replays_overflow", description);
    network::DimemasParameters slow;
    slow.inter_bandwidth_mbps = 1e-6;
    const auto whole_error = [&] {
        network::DimemasNetwork whole(slow);
        try {
            replay_events(build_replay_program(read_paraver(path, test::quiet_options())), whole,
                          {.timeline = false});
        } catch (const TimeOverflow& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    }();
    CHECK(whole_error.find("past 2^62/256 ns (208 days)") != std::string::npos);
    network::DimemasNetwork live_network(slow);
    std::vector<network::NetworkModel*> models{&live_network};
    const LiveNetworks live{.networks = [&](std::uint32_t) { return models; },
                            .options = {.timeline = false},
                            .advance_every = 1};
    CHECK_THROWS_WITH_AS(stream_program(path, test::quiet_options(), {}, std::nullopt, {}, live),
                         whole_error.c_str(), TimeOverflow);
}

TEST_CASE("live replays: a program written whole before its replay gives the same times") {
    for (const auto& [name, description] : test::k_streaming_cases) {
        CAPTURE_BINDING(name);
        const auto program = build_replay_program(
            read_paraver(test::synth_trace(name, description), test::quiet_options()));
        if (program.thread_count() != program.tasks) continue;
        auto live_models = networks(), whole_models = networks();
        for (std::size_t n = 0; n < live_models.size(); ++n) {
            CAPTURE(n);
            engine::WrittenProgram written(program.tasks);
            engine::write_program(program, written);
            IncrementalReplay live(written, *live_models[n], {.timeline = false});
            CHECK(live.advance());
            check_same_times(live.finish(),
                             replay_events(program, *whole_models[n], {.timeline = false}));
        }
    }
}

TEST_CASE("live replays: not where nodes share their CPUs, which the whole program replays") {
    network::DimemasParameters shared;
    shared.tasks_per_node = 2;
    shared.task_map = network::DimemasParameters::TaskMap::tasks_per_node;
    CHECK(LiveReplays::replays_live(network::DimemasNetwork(shared), 4));
    shared.cpus_per_node = 1; // two tasks take turns on one CPU
    CHECK_FALSE(LiveReplays::replays_live(network::DimemasNetwork(shared), 4));
    shared.cpus_per_node = 2;
    CHECK(LiveReplays::replays_live(network::DimemasNetwork(shared), 4));
    // And an engine refuses to run it on a written program.
    engine::WrittenProgram written(4);
    shared.cpus_per_node = 1;
    network::DimemasNetwork network(shared);
    CHECK_THROWS_AS(IncrementalReplay(written, network, {.timeline = false}), std::logic_error);
}

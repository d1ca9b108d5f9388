// SPDX-License-Identifier: BSD-3-Clause
// Replay benchmark: where the time of an ideal-network analysis goes, on one trace.
// Usage: popsim_replay_bench TRACE.prv   (bench/run.sh makes a >= 1 GB synthetic one)
#include "replay/allocator_tuning.hpp"
#include "replay/engine/engine.hpp"
#include "replay/engine/written_program.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/network/dimemas.hpp"
#include "replay/network/ideal.hpp"
#include "replay/program/dependency_graph.hpp"
#include "replay/program/program_bytes.hpp"

#include <chrono>
#include <fmt/format.h>

using namespace popsim::replay;

namespace {
template <class F> double seconds(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        fmt::print(stderr, "usage: {} TRACE.prv\n", argv[0]);
        return 1;
    }
    keep_freed_memory_in_heap();
    Trace trace;
    const double read_s = seconds([&] { trace = read_paraver(argv[1]); });
    ReplayProgram program;
    const double program_s = seconds([&] { program = build_replay_program(trace); });
    DependencyGraph graph;
    const double graph_s = seconds([&] { graph = build_dependency_graph(program); });
    ReplayResult longest, events;
    const double longest_s = seconds([&] { longest = replay_longest_path(program, graph); });
    network::IdealNetwork ideal;
    const double events_s = seconds([&] { events = replay_events(program, ideal); });
    // What `popsim analyze` runs on an MPI-only trace: the engine without the per-operation
    // timeline.
    const double analyze_engine_s =
        seconds([&] { replay_events(program, ideal, {.timeline = false}); });
    // What `popsim whatif` runs per configuration: the engine on a Dimemas network (1 us, 1000
    // MB/s, one link each way per node).
    network::DimemasParameters wire;
    wire.inter_latency = 1000;
    wire.inter_bandwidth_mbps = 1000;
    network::DimemasNetwork dimemas(wire);
    ReplayResult on_network;
    const double network_s =
        seconds([&] { on_network = replay_events(program, dimemas, {.timeline = false}); });
    // The same replay on the program as the streaming pass writes it for `whatif`'s live
    // replays (replay/streaming/live_replays.hpp), here written whole before it runs.
    network::DimemasNetwork written_dimemas(wire);
    engine::WrittenProgram written(program.tasks);
    double written_s = -1;
    if (program.thread_count() == program.tasks) {
        engine::write_program(program, written);
        written_s = seconds([&] {
            IncrementalReplay live(written, written_dimemas, {.timeline = false});
            live.advance();
            if (live.finish().runtime != on_network.runtime)
                fmt::print(stderr, "THE WRITTEN PROGRAM'S REPLAY DIFFERS\n");
        });
    }
    // What `mpirun -np K popsim whatif` hands from the reading process to the others.
    std::string bytes;
    const double to_bytes_s = seconds([&] { program_to_bytes(program, bytes); });
    const double from_bytes_s = seconds([&] { program_from_bytes(bytes); });
    const double vertices = static_cast<double>(boost::num_vertices(graph));
    const double edges = static_cast<double>(boost::num_edges(graph));
    const double mb = static_cast<double>(trace.counts.bytes) / 1e6;
    fmt::print("trace                     {} ({:.0f} MB, {} records, {} tasks)\n", argv[1], mb,
               trace.counts.records(), program.tasks);
    fmt::print("read                      {:8.3f} s  {:7.0f} MB/s\n", read_s, mb / read_s);
    fmt::print("replay program            {:8.3f} s  {} operations, {} messages, {} collectives\n",
               program_s, program.op_count(), program.messages.size(), program.collectives.size());
    fmt::print("dependency graph (CSR)    {:8.3f} s  {:.0f} vertices, {:.0f} edges\n", graph_s,
               vertices, edges);
    fmt::print("longest-path pass         {:8.3f} s  {:7.1f} M vertices/s\n", longest_s,
               vertices / longest_s / 1e6);
    fmt::print("event engine              {:8.3f} s  {:7.1f} M events/s, {:.1f} M operations/s\n",
               events_s, static_cast<double>(events.events) / events_s / 1e6,
               static_cast<double>(program.op_count()) / events_s / 1e6);
    fmt::print("ideal runtime             {} ns (longest path) / {} ns (events): {}\n",
               longest.runtime, events.runtime,
               longest.op_end == events.op_end ? "identical timelines" : "TIMELINES DIFFER");
    fmt::print("event engine, no timeline {:8.3f} s  (as popsim analyze runs it on an MPI trace)\n",
               analyze_engine_s);
    fmt::print("event engine, Dimemas net {:8.3f} s  {:7.1f} M events/s (1 us, 1000 MB/s)\n",
               network_s, static_cast<double>(on_network.events) / network_s / 1e6);
    if (written_s >= 0)
        fmt::print("  the program as written  {:8.3f} s  {:7.1f} M events/s (what whatif runs per "
                   "configuration, the program written as it replays)\n",
                   written_s, static_cast<double>(on_network.events) / written_s / 1e6);
    fmt::print(
        "program as bytes          {:8.3f} s  {:.0f} MB ({:.2f} bytes per byte of trace), read "
        "back in {:.3f} s (what mpirun's whatif hands the other processes)\n",
        to_bytes_s, static_cast<double>(bytes.size()) / 1e6,
        static_cast<double>(bytes.size()) / static_cast<double>(trace.counts.bytes), from_bytes_s);
    const double replay_s = program_s + analyze_engine_s;
    fmt::print("replay share of analysis  {:8.1f} %  (program + engine without timeline, over read "
               "+ those)\n",
               100.0 * replay_s / (read_s + replay_s));
    return longest.op_end == events.op_end ? 0 : 1;
}

// Fuzz target: arbitrary bytes as a Dimemas trace (.dim) through its reader and, when it reads,
// both ideal replays, which must agree. Only popsim's documented errors may come out.
#include "memory_file.hpp"
#include "replay/dependency_graph.hpp"
#include "replay/dimemas_trace.hpp"
#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/trace_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    popsim::fuzz::MemoryFile file(data, size);
    if (!file.ok()) return 0;
    try {
        const auto program = popsim::replay::read_dimemas_trace(file.path());
        if (program.thread_count() > 64 || program.op_count() > 100'000) return 0;
        popsim::replay::network::IdealNetwork ideal;
        const auto events = popsim::replay::replay_events(program, ideal);
        const auto longest = popsim::replay::replay_longest_path(
            program, popsim::replay::build_dependency_graph(program));
        if (events.runtime != longest.runtime) __builtin_trap(); // the two replays must agree
    } catch (const popsim::replay::TraceError&) {
    } catch (const popsim::replay::ReplayDeadlock&) {
    }
    return 0;
}

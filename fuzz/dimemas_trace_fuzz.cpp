// Fuzz target: arbitrary bytes as a Dimemas trace (.dim) through its reader and, when it reads,
// both ideal replays, which must agree. Only popsim's documented errors may come out.
#include "fuzz_support.hpp"
#include "replay/dimemas_trace.hpp"
#include "replay/trace_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    popsim::fuzz::MemoryFile file(data, size);
    if (!file.ok()) return 0;
    try {
        const auto program = popsim::replay::read_dimemas_trace(file.path());
        if (program.thread_count() > 64 || program.op_count() > 100'000) return 0;
        popsim::fuzz::check_replays_agree(program);
    } catch (const popsim::replay::TraceError&) {
    } catch (const popsim::replay::ReplayDeadlock&) {
    } catch (const popsim::TimeOverflow&) { // a replay past 2^62 ns: refused by the CLI, exit 2
    }
    return 0;
}

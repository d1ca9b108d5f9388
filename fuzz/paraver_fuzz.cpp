// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: arbitrary bytes as a Paraver trace (plain or gzip) through the reader and, when it
// reads, the replay program builder and the ideal replay, of the whole trace and of a window. Only
// popsim's documented errors may come out; anything else (a crash, a sanitizer report, another
// exception) is a bug.
#include "fuzz_support.hpp"
#include "replay/engine/engine.hpp"
#include "replay/focus/trace_window.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/trace_error.hpp"

#include <cstdint>
#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    popsim::fuzz::MemoryFile file(data, size);
    if (!file.ok()) return 0;
    popsim::replay::ReadOptions options;
    options.read_labels = false;
    options.threads = 1;
    options.block_bytes = 256;      // many blocks: exercises the block boundaries
    options.allow_truncated = true; // else most mutations stop as truncated before the replay
    // A header may declare a million threads (read in 0.4 s, 400 MB, by the release build): under
    // the sanitizers that outlasts the timeout without finding anything new. Keep inputs cheap.
    options.max_memory_bytes = 64u << 20;
    try {
        const auto trace = popsim::replay::read_paraver(file.path(), options);
        if (trace.thread_count() > 64) return 0; // keep each input cheap
        popsim::fuzz::check_replays_agree(popsim::replay::build_replay_program(trace));
        // The middle third as --from/--to would analyse it: a window of a trace that replays
        // must replay too (its records come from the model, so a TraceError there is a bug).
        // (2 * end / 3 overflowed for ends near 2^62 ns, which the reader accepts.)
        const popsim::Time end = trace.end_time();
        if (end < 3) return 0;
        try {
            const auto window = popsim::replay::window_of(trace, {end / 3, end - end / 3});
            popsim::fuzz::check_replays_agree(popsim::replay::build_replay_program(window));
        } catch (const popsim::replay::TraceError& e) {
            std::fprintf(stderr, "the window of a trace that replays fails: %s\n", e.what());
            __builtin_trap();
        }
    } catch (const popsim::replay::TraceError&) {
    } catch (const popsim::replay::ReplayDeadlock&) {
    } catch (const popsim::TimeOverflow&) { // a replay past 2^62 ns: refused by the CLI, exit 2
    }
    return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: arbitrary bytes as a Dimemas trace (.dim) through its reader and, when it reads,
// both ideal replays, which must agree. Only popsim's documented errors may come out.
#include "fuzz_support.hpp"
#include "replay/input/dimemas_trace.hpp"
#include "replay/trace_error.hpp"

#include <string_view>

namespace {
/// A header declaring millions of tasks reads in 0.3 s in the release build (and is refused past
/// the reader's limit), but outlasts the timeout under the sanitizers without finding anything
/// new: keep inputs cheap. The count is the number before the first '(' of the first line.
bool declares_many_tasks(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string_view first = text.substr(0, text.find('\n'));
    const std::size_t open = first.find('(');
    if (open == std::string_view::npos) return false;
    std::size_t digits = open;
    while (digits > 0 && first[digits - 1] >= '0' && first[digits - 1] <= '9') --digits;
    return open - digits > 4; // 100,000 tasks or more
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    popsim::fuzz::MemoryFile file(data, size);
    if (!file.ok() || declares_many_tasks(data, size)) return 0;
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

// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: arbitrary bytes as a Dimemas configuration (.cfg) and as a collectives file. Only
// TraceError may come out; anything else (a crash, a sanitizer report) is a bug.
#include "fuzz_support.hpp"
#include "replay/network/dimemas_config.hpp"
#include "replay/trace_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    popsim::fuzz::MemoryFile file(data, size);
    if (!file.ok()) return 0;
    try {
        popsim::replay::network::read_dimemas_config(file.path());
    } catch (const popsim::replay::TraceError&) {
    }
    try {
        popsim::replay::network::DimemasParameters parameters;
        popsim::replay::network::read_collectives_file(file.path(), parameters);
    } catch (const popsim::replay::TraceError&) {
    }
    return 0;
}

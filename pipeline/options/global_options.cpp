// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/options/global_options.hpp"

#include "pipeline/options/units.hpp"

namespace popsim::pipeline {

namespace {
GlobalOptions g_options; // written by the command-line parser only, before any command runs
} // namespace

GlobalOptions& global_options() {
    return g_options;
}

void set_global_options(const GlobalOptions& options) {
    g_options = options;
}

replay::ReadOptions read_options() {
    replay::ReadOptions options;
    options.application = g_options.application;
    options.repair_communications = !g_options.strict;
    options.allow_truncated = g_options.allow_truncated;
    if (!g_options.max_memory.empty()) options.max_memory_bytes = parse_bytes(g_options.max_memory);
    if (!g_options.read_block.empty()) options.block_bytes = parse_bytes(g_options.read_block);
    return options;
}

} // namespace popsim::pipeline

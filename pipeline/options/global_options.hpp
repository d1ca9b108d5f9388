// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Options every command takes, about how traces are read and what is printed about them. They
// may stand before the command or after its arguments (`popsim analyze run.prv --quiet`).
#include "replay/input/paraver_reader.hpp"

#include <cstdint>
#include <string>

namespace popsim::pipeline {

struct GlobalOptions {
    bool quiet = false;            // no warnings on stderr
    std::uint32_t application = 0; // --app: which application of a multi-application trace
    bool strict = false;           // refuse traces that need repairs instead of repairing them
    bool allow_truncated = false;  // analyse truncated traces up to their last record
    std::string max_memory = {};   // --max-memory SIZE; empty: the machine's memory
    std::string read_block = {};   // --read-block SIZE; empty: ReadOptions' default
};

/// The process's: the front end sets them before a command runs (the command line parses into
/// them; simulator/commands/options.hpp).
GlobalOptions& global_options();
/// Sets them all: the library parses each call's options anew, from these values.
void set_global_options(const GlobalOptions& options);

/// ReadOptions with the global options applied.
replay::ReadOptions read_options();

} // namespace popsim::pipeline

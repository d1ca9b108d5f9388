#pragma once
// What `simulate` and `whatif` replay: a Paraver trace (translated to a replay program) or a
// Dimemas .dim trace (read as one).
#include "replay/replay_program.hpp"
#include "replay/trace.hpp"

#include <optional>
#include <string>

namespace popsim::simulator {

struct LoadedProgram {
    std::optional<replay::Trace> trace; // absent for .dim input
    replay::ReplayProgram program;
    std::optional<Time> real_runtime; // the traced runtime, when known
    replay::WarningLog warnings;      // the reader's and the program builder's
};

/// Reads `path` (.prv, .prv.gz or .dim), printing the warnings to stderr (unless --quiet).
LoadedProgram load_program(const std::string& path, const replay::ProgramOptions& options);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A replay program as bytes, to hand it from the process that read the trace to the others of an
// MPI run (pipeline/whatif_sweep.cpp): each array as its length and its elements' bytes, as the
// processes of one run hold them (one build, one kind of machine). The warnings stay with the
// process that read the trace, which reports them.
#include "replay/program/replay_program.hpp"

#include <string>
#include <string_view>

namespace popsim::replay {

/// Appends the program's bytes to `out`.
void program_to_bytes(const ReplayProgram& program, std::string& out);
/// The program `program_to_bytes` gave, without its warnings; std::invalid_argument when the bytes
/// are cut short or longer than a program's.
ReplayProgram program_from_bytes(std::string_view bytes);

} // namespace popsim::replay

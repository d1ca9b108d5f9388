// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the processes of an MPI run (work_division.hpp) hand each other, as bytes: one trace's
// analysis (what the streaming pass leaves: the pass, the summary, the hybrid run, the warnings,
// the repairs), and a program with what whatif replays it with. Every number exact.
#include "pipeline/analysis.hpp"
#include "pipeline/load_program.hpp"

#include <string>
#include <string_view>

namespace popsim::pipeline {

/// Trace i of `analyzed` in bytes; and back into trace i of another Analyzed with as many traces.
std::string trace_to_bytes(const Analyzed& analyzed, std::size_t i);
void trace_from_bytes(std::string_view bytes, Analyzed& analyzed, std::size_t i);

/// A loaded program in bytes, appended to `out`: the program (its warnings stay with the process
/// that read it), the traced and ideal runtimes, the traced run's summary and the collectives whose
/// members left them early in the trace, with who and when (LoadedProgram::left_early); and back,
/// as the trace at `path` loaded, without the trace.
void loaded_program_to_bytes(const LoadedProgram& loaded, std::string& out);
LoadedProgram loaded_program_from_bytes(std::string_view bytes, const std::string& path);

} // namespace popsim::pipeline

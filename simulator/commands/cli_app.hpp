// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim's command line as one model: the global options and every command, which main() parses
// and from which the man page and the bash completion are written (simulator/cli_docs.hpp), so
// neither can offer what the program refuses.
#include "simulator/commands/commands.hpp"

#include <CLI/CLI.hpp>

namespace popsim::simulator {

/// The one-line description of popsim, for --help and the man page's NAME.
inline constexpr const char* k_popsim_summary =
    "POP efficiency metrics and ideal-network replay of MPI and OpenMP traces";

/// Adds the --version flag, the global options and every command to `app` (named "popsim");
/// `division`: the work of analyze, simulate and whatif divided among the processes of an MPI run.
void add_popsim_cli(CLI::App& app, pipeline::WorkDivision* division = nullptr);

} // namespace popsim::simulator

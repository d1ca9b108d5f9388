// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The command line of the pipeline's options (pipeline/): CLI11 definitions that parse into them,
// shared by the commands, the man page and the library, which parses its options with them too.
// The checks that need no trace (units, syntax) are usage errors as the line is read; a missing
// input file is a TraceError (exit status 2), as every bad input.
#include "pipeline/options/focus.hpp"
#include "pipeline/options/global_options.hpp"
#include "pipeline/options/network_options.hpp"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace popsim::simulator {

/// An input file: it exists and is a file.
CLI::Validator existing_input_file();
/// After existing_input_file, for a trace argument: a trace's .pcf or .row is refused, naming the
/// trace beside it.
CLI::Validator existing_trace_file();
/// An output file's name: not empty (an empty one means "not given" to the commands).
CLI::Validator output_file_name();
/// A report's file name (--json, --csv, --html, ...): as output_file_name, and "-" stands for
/// standard output (/dev/stdout), as most tools read it, rather than a file named "-".
CLI::Validator report_file_name();

/// --quiet, --app, --strict, --allow-truncated and --max-memory, into pipeline::global_options().
/// They may stand before the command or after its arguments (`popsim analyze run.prv --quiet`).
void add_global_options(CLI::App& app);

/// --from and --to.
void add_window_options(CLI::App* command, pipeline::FocusOptions& options);
/// --from, --to, --region and --phases (one of the three kinds at a time).
void add_focus_options(CLI::App* command, pipeline::FocusOptions& options);

/// --speedup SPEC=FACTOR, repeatable; `sweep`: FACTOR may be a comma-separated list (whatif).
/// Bad syntax or factors are usage errors.
void add_speedup_option(CLI::App* cmd, std::vector<std::string>& values, bool sweep);
/// --balance [REGION]: set to "" for all the computation, REGION for one region's; `sweep`:
/// whatif replays each configuration as traced and balanced.
void add_balance_option(CLI::App* cmd, std::optional<std::string>& value, bool sweep);

/// Registers --network, --config, --latency, --bandwidth, --buses, --links, --tasks-per-node,
/// --cpu-ratio and --eager on `cmd`.
void add_network_options(CLI::App* cmd, pipeline::NetworkOptions& options, bool single_values);
/// --eager SIZE on `cmd` (analyze takes it too).
void add_eager_option(CLI::App* cmd, std::string& value);
/// --collectives dimemas|mpi on `cmd` (analyze takes it too).
void add_collectives_option(CLI::App* cmd, std::string& value);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The traces a command is given, checked before any work: files as named, folders expanded to the
// traces they hold (as modelfactors takes a folder of runs), simulated traces told apart.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

/// The traces of a series: each file as given, each folder replaced by its .prv and .prv.gz files
/// in natural order (run2 before run10) without its simulated traces, which are noted on stderr.
/// Throws TraceError for a path that does not exist or a folder holding no trace.
std::vector<std::string> expand_trace_inputs(const std::vector<std::string>& given);

/// A simulated run, not a traced one: named *.sim.prv (the convention of modelfactors' Dimemas
/// runs) or marked by popsim simulate in the lines after its header.
bool is_simulated_trace(const std::string& path);

/// A CLI11 check that an input file exists and is a file; it fails with TraceError (exit status 2,
/// like every bad input), not as a usage error.
CLI::Validator existing_input_file();
/// After existing_input_file, for a trace argument: a trace's .pcf or .row is refused, naming the
/// trace beside it.
CLI::Validator existing_trace_file();
/// An output file's name: not empty (an empty one means "not given" to the commands).
CLI::Validator output_file_name();

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The traces a command is given, checked before any work: files as named, folders expanded to the
// traces they hold (as modelfactors takes a folder of runs), simulated traces told apart.
#include <string>
#include <vector>

namespace popsim::pipeline {

/// The traces of a series: each file as given, each folder replaced by its .prv and .prv.gz files
/// in natural order (run2 before run10) without its simulated traces, which are noted on stderr.
/// Throws TraceError for a path that does not exist or a folder holding no trace.
std::vector<std::string> expand_trace_inputs(const std::vector<std::string>& given);

/// A simulated run, not a traced one: named *.sim.prv (the convention of modelfactors' Dimemas
/// runs) or marked by popsim simulate in the lines after its header.
bool is_simulated_trace(const std::string& path);

/// An input file that exists and is a file (not a folder); else TraceError (exit status 2).
void require_input_file(const std::string& path);
/// A trace's .pcf or .row given where the trace is expected: TraceError naming the trace beside it.
void refuse_companion_file(const std::string& path);

} // namespace popsim::pipeline

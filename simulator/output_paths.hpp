// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim never replaces its input, and never writes two outputs to one file: every command checks
// its output paths before any work (a trace's .pcf and .row count as part of it).
#include <string>
#include <vector>

namespace popsim::simulator {

struct OutputPath {
    std::string option;   // as the user gave it: "--csv", "-o", "output"
    std::string path;     // empty: not asked for
    bool paraver = false; // a .prv written with its .pcf and .row
};

/// Throws TraceError (exit status 2) naming the output when it is an input trace, the .pcf or .row
/// of one, or the path of another output, or when it cannot be written (no such folder, not
/// writable, a folder); or naming an input given twice (a scaling series needs each run once).
void check_output_paths(const std::vector<std::string>& inputs,
                        const std::vector<OutputPath>& outputs);

/// Whether one of the outputs is standard output (a report option given "-", which reads it as
/// /dev/stdout): the command then prints no terminal report, which would be mixed with it.
bool to_standard_output(const std::vector<OutputPath>& outputs);

} // namespace popsim::simulator

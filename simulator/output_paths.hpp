// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim never replaces its input, and never writes two outputs to one file: every command checks
// its output paths before any work (a trace's .pcf and .row count as part of it).
#include <string>
#include <string_view>
#include <vector>

namespace popsim::simulator {

/// What a report option's "-" stands for (report_file_name), and what to_standard_output looks for.
inline constexpr std::string_view k_standard_output = "/dev/stdout";

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

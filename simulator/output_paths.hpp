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
    std::string option; // as the user gave it: "--csv", "-o", "output"
    std::string path;   // empty: not asked for
    bool trace = false; // a trace, written with its other files (replay/input/trace_files.hpp)
};

/// Throws TraceError (exit status 2) naming the output when it would write over a file of an
/// input trace (its .pcf, .row, index, an OTF2 archive's definitions or locations), over another
/// input file (`input_files`: a Dimemas configuration and its collectives file, a description),
/// or over another output, or when it cannot be written (no such folder, not writable, a folder);
/// or naming a trace given twice (a scaling series needs each run once).
void check_output_paths(const std::vector<std::string>& traces,
                        const std::vector<OutputPath>& outputs,
                        const std::vector<std::string>& input_files = {});

/// The files of the Dimemas configuration `cfg` (itself and its collectives file), for
/// check_output_paths' `input_files`; none when `cfg` is empty.
std::vector<std::string> config_files(const std::string& cfg);

/// Whether one of the outputs is standard output (a report option given "-", which reads it as
/// /dev/stdout): the command then prints no terminal report, which would be mixed with it.
bool to_standard_output(const std::vector<OutputPath>& outputs);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// whatif between its options and the pipeline, in steps the command and the library
// (api/popsim.cpp) both take: the options parsed by their CLI11 definitions and checked, the
// pipeline run (pipeline::sweep), its results shown.
#include "pipeline/whatif_sweep.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace popsim::simulator {

/// whatif's options: what to sweep, and where and how to show it.
struct WhatifCommandOptions {
    pipeline::WhatifOptions sweep;
    std::string csv_path, json_path, html_path;
    bool no_color = false;
    bool fraction = false;
};

/// The trace argument and every option of whatif, on `command`.
void add_whatif_options(CLI::App* command, WhatifCommandOptions& options);

/// Checks that no report overwrites the trace; returns whether the terminal report is printed
/// (not when a report goes to standard output in its place).
bool check_whatif_command(const WhatifCommandOptions& options);

/// Prints the terminal report of `sweep` on standard output when `print` (its warnings on
/// stderr), writes the files the options name, and returns what --json writes.
nlohmann::json show_sweep(pipeline::Sweep& sweep, const WhatifCommandOptions& options, bool print);

} // namespace popsim::simulator

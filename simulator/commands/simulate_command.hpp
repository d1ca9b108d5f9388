// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// simulate between its options and the pipeline, in steps the command and the library
// (api/popsim.cpp) both take: the options parsed by their CLI11 definitions and checked, the
// pipeline run (pipeline::simulate), its results shown.
#include "pipeline/simulation.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace popsim::simulator {

/// simulate's options: the simulation, and where to write its report.
struct SimulateCommandOptions {
    pipeline::SimulateOptions simulation;
    std::string json_path;
};

/// The trace argument and every option of simulate, on `command`.
void add_simulate_options(CLI::App* command, SimulateCommandOptions& options);

/// Checks that no output overwrites the trace; returns whether the terminal report is printed
/// (not when a report goes to standard output in its place).
bool check_simulate_command(const SimulateCommandOptions& options);

/// Prints the terminal report of `simulation` on standard output when `print`, with a note naming
/// the simulated trace written (its warnings on stderr either way), writes --json's file, and
/// returns what it writes.
nlohmann::json show_simulation(pipeline::Simulation& simulation,
                               const SimulateCommandOptions& options, bool print);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The popsim subcommands. Each registers itself on the CLI11 app and runs when selected; errors
// propagate as exceptions to main(), which maps them to exit codes (docs/user-guide.md).
#include "pipeline/processes/work_division.hpp"
#include "simulator/commands/options.hpp"
#include "simulator/output_paths.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace popsim::simulator {

/// check_output_paths for a command that prints a terminal report; whether it prints it: not
/// when a report goes to standard output ("-") in its place.
[[nodiscard]] inline bool check_report_outputs(const std::vector<std::string>& traces,
                                               const std::vector<OutputPath>& outputs,
                                               const std::vector<std::string>& input_files = {}) {
    check_output_paths(traces, outputs, input_files);
    return !to_standard_output(outputs);
}

/// A command's terminal report: on standard output, or nowhere (`print` false: the library, or a
/// report written to standard output in its place).
inline std::ostream& terminal(bool print) {
    static std::ostream discarded(nullptr);
    return print ? std::cout : discarded;
}

/// analyze, simulate and whatif run alone without a `division`; with one, each process does its
/// share of the work and the first shows the results (simulator/mpi_run.hpp). Their steps, which
/// the library runs too, are in their headers (analyze_command.hpp, ...).
void add_analyze_command(CLI::App& app, pipeline::WorkDivision* division);
void add_synth_command(CLI::App& app);
void add_simulate_command(CLI::App& app, pipeline::WorkDivision* division);
void add_whatif_command(CLI::App& app, pipeline::WorkDivision* division);
void add_convert_command(CLI::App& app);
void add_cut_command(CLI::App& app);
void add_events_command(CLI::App& app);
void add_compare_command(CLI::App& app);

/// Thrown by `compare` when an efficiency dropped by more than allowed: main() prints it and
/// exits with k_exit_regression.
class RegressionFound : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// The input trace every command but synth takes: a required, existing file.
inline CLI::Option*
add_trace_argument(CLI::App* command, std::string& trace,
                   const std::string& what = "Paraver trace (.prv or .prv.gz)") {
    return command->add_option("trace", trace, what)
        ->required()
        ->check(existing_input_file())
        ->check(existing_trace_file());
}

/// simulate's and whatif's --in-memory: the program built from the trace read into memory.
inline void add_in_memory_option(CLI::App* command, bool& in_memory) {
    command->add_flag("--in-memory", in_memory,
                      "Read the trace into memory and build its replay program there, instead of "
                      "writing the program down in one streaming pass (the same program; memory "
                      "holds the trace too)");
}

/// Exit codes: 0 success, 1 usage error, 2 bad input (trace, description, config), 3 other
/// failure, 4 a regression found by `compare`.
inline constexpr int k_exit_usage = 1;
inline constexpr int k_exit_bad_input = 2;
inline constexpr int k_exit_failure = 3;
/// `popsim compare`: an efficiency dropped by more than --max-drop.
inline constexpr int k_exit_regression = 4;

} // namespace popsim::simulator

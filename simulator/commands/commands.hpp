// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The popsim subcommands. Each registers itself on the CLI11 app and runs when selected; errors
// propagate as exceptions to main(), which maps them to exit codes (docs/user-guide.md).
#include "pipeline/work_division.hpp"
#include "simulator/commands/options.hpp"
#include "simulator/output_paths.hpp"
#include "simulator/reports/analysis_report.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace popsim::simulator {

/// What analyze, simulate and whatif give back besides what they print and write: the library's
/// results (include/popsim/popsim.hpp). The program prints them; the library does not.
struct CommandOutput {
    bool print = true;                     // the terminal report, on stdout
    nlohmann::json report;                 // what --json writes (always filled when not printing)
    std::optional<AnalysisTable> analysis; // analyze's table, when not printing
    /// analyze's traces, whatif's configurations, divided among the processes of an MPI run
    /// (simulator/mpi_run.hpp).
    pipeline::WorkDivision* division = nullptr;

    /// Where the terminal report goes: stdout, or nowhere.
    std::ostream& terminal() const {
        static std::ostream discarded(nullptr);
        return print ? std::cout : discarded;
    }
};

/// check_output_paths for a command that prints a terminal report: a report written to standard
/// output ("-") takes its place.
inline void check_report_outputs(const std::vector<std::string>& inputs,
                                 const std::vector<OutputPath>& outputs, CommandOutput& output) {
    check_output_paths(inputs, outputs);
    if (to_standard_output(outputs)) output.print = false;
}

void add_analyze_command(CLI::App& app, CommandOutput& output);
void add_synth_command(CLI::App& app);
void add_simulate_command(CLI::App& app, CommandOutput& output);
void add_whatif_command(CLI::App& app, CommandOutput& output);
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

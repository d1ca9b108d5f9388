#pragma once
// The popsim subcommands. Each registers itself on the CLI11 app and runs when selected; errors
// propagate as exceptions to main(), which maps them to exit codes (docs/user-guide.md).
#include "simulator/trace_inputs.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace popsim::simulator {

void add_analyze_command(CLI::App& app);
void add_synth_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_whatif_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_cut_command(CLI::App& app);
void add_events_command(CLI::App& app);

/// The input trace every command but synth takes: a required, existing file.
inline CLI::Option*
add_trace_argument(CLI::App* command, std::string& trace,
                   const std::string& what = "Paraver trace (.prv or .prv.gz)") {
    return command->add_option("trace", trace, what)->required()->check(existing_input_file());
}

/// Exit codes: 0 success, 1 usage error, 2 bad input (trace, description, config), 3 other failure.
inline constexpr int k_exit_usage = 1;
inline constexpr int k_exit_bad_input = 2;
inline constexpr int k_exit_failure = 3;

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
// popsim: POP efficiency metrics and MPI replay from Paraver traces.
#include "popsim/version.hpp"
#include "replay/allocator_tuning.hpp"
#include "simulator/cli_suggestions.hpp"
#include "simulator/commands.hpp"
#include "simulator/failure.hpp"
#include "simulator/global_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <iostream>

int main(int argc, char** argv) {
    using namespace popsim::simulator;
    popsim::replay::keep_freed_memory_in_heap();
    // Named, so every usage line says "popsim", not the path it was run by (the man page's).
    CLI::App app{"popsim: POP efficiency metrics and ideal-network replay of MPI traces", "popsim"};
    app.set_version_flag("--version", popsim::k_version);
    app.require_subcommand(1);
    const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    app.failure_message([&args](const CLI::App* failed, const CLI::Error& e) {
        // The top-level app knows every command: a mistyped one is named with the nearest.
        const CLI::App* top = failed;
        while (top->get_parent() != nullptr) top = top->get_parent();
        return fmt::format("popsim: error: {}\nRun 'popsim --help' or 'popsim COMMAND --help' for "
                           "more information.\n",
                           usage_error_message(*top, e, args));
    });
    add_global_options(app);
    CommandOutput output; // printed
    add_analyze_command(app, output);
    add_synth_command(app);
    add_simulate_command(app, output);
    add_whatif_command(app, output);
    add_convert_command(app);
    add_cut_command(app);
    add_events_command(app);
    add_compare_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : k_exit_usage;
    } catch (...) {
        const auto failure = current_failure();
        std::cerr << (failure.status == k_exit_regression ? "popsim: regression: "
                                                          : "popsim: error: ")
                  << failure.message << "\n";
        return failure.status;
    }
    // A report lost on a full disk or a closed pipe is a failure, as coreutils' close_stdout
    // makes it: the stream's buffer is written only now.
    errno = 0;
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::cerr << "popsim: error: standard output: write failed"
                  << (errno != 0 ? fmt::format(": {}", std::strerror(errno)) : std::string())
                  << "\n";
        return k_exit_failure;
    }
    return 0;
}

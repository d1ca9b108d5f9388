// SPDX-License-Identifier: BSD-3-Clause
// popsim: POP efficiency metrics and MPI replay from Paraver traces.
#include "replay/allocator_tuning.hpp"
#include "simulator/cli_suggestions.hpp"
#include "simulator/commands/cli_app.hpp"
#include "simulator/failure.hpp"
#ifdef POPSIM_MPI
#include "pipeline/console/terminal.hpp"
#include "pipeline/options/global_options.hpp"
#include "simulator/mpi_run.hpp"
#endif

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <poll.h>
#include <sys/stat.h>

namespace {

/// Whether standard output is a pipe nobody reads any more (`| head` exited).
bool stdout_pipe_closed() {
    struct stat status {};
    if (fstat(STDOUT_FILENO, &status) != 0 || !S_ISFIFO(status.st_mode)) return false;
    pollfd out{STDOUT_FILENO, 0, 0};
    return poll(&out, 1, 0) == 1 && (out.revents & POLLERR) != 0;
}

/// Ends the program as a closed pipe ends `cat`: by SIGPIPE, status 141 in the shell, silently.
[[noreturn]] void die_of_closed_pipe() {
    std::signal(SIGPIPE, SIG_DFL);
    std::raise(SIGPIPE);
    std::_Exit(128 + SIGPIPE);
}

} // namespace

int main(int argc, char** argv) {
    using namespace popsim::simulator;
    popsim::replay::keep_freed_memory_in_heap();
    // `popsim analyze ... --html r.html | head` must still write r.html: a closed pipe fails
    // the terminal report's writes instead of ending the program, which dies of it at the end.
    std::signal(SIGPIPE, SIG_IGN);
    // Named, so every usage line says "popsim", not the path it was run by (the man page's).
    CLI::App app{"", "popsim"};
#ifdef POPSIM_MPI
    // Under mpirun, analyze divides its traces among the processes, whatif its configurations,
    // simulate its trace's reading; the first shows what one process would show, the others print
    // nothing and run no other command.
    std::optional<MpiRun> mpi;
    if (popsim::pipeline::started_by_mpirun()) mpi.emplace(argc, argv);
    const bool silent = mpi && !mpi->reports_here();
    popsim::pipeline::WorkDivision* division = mpi && mpi->size() > 1 ? &*mpi : nullptr;
    add_popsim_cli(app, division);
    if (mpi) app.parse_complete_callback([&mpi] { mpi->note_binding(); }); // after --quiet is read
    if (silent) {
        popsim::pipeline::global_options().quiet = true;
        for (auto* command : app.get_subcommands([](const CLI::App*) { return true; }))
            if (command->get_name() != "analyze" && command->get_name() != "whatif" &&
                command->get_name() != "simulate")
                command->callback([] {});
    }
#else
    add_popsim_cli(app);
    // Built without MPI but started by mpirun: the first process runs alone, the others would
    // repeat its work and write the same files.
    if (const char* rank = std::getenv("OMPI_COMM_WORLD_RANK"); rank && std::string(rank) != "0")
        return 0;
    constexpr bool silent = false;
#endif
    const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    app.failure_message([&args](const CLI::App* failed, const CLI::Error& e) {
        // The top-level app knows every command: a mistyped one is named with the nearest.
        const CLI::App* top = failed;
        while (top->get_parent() != nullptr) top = top->get_parent();
        return fmt::format("popsim: error: {}\nRun 'popsim --help' or 'popsim COMMAND --help' for "
                           "more information.\n",
                           usage_error_message(*top, e, args));
    });
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (silent) return e.get_exit_code() == 0 ? 0 : k_exit_usage;
        const int code = app.exit(e);
        return code == 0 ? 0 : k_exit_usage;
    } catch (...) {
        const auto failure = current_failure();
#ifdef POPSIM_MPI
        // Failed before its part of the work was gathered (a trace this machine does not see):
        // the others must not wait for it.
        if (division && (app.got_subcommand("analyze") || app.got_subcommand("whatif") ||
                         app.got_subcommand("simulate")))
            mpi->fail_gather(failure);
#endif
        if (silent) return failure.status;
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
        if (stdout_pipe_closed()) die_of_closed_pipe();
        std::cerr << "popsim: error: standard output: write failed"
                  << (errno != 0 ? fmt::format(": {}", std::strerror(errno)) : std::string())
                  << "\n";
        return k_exit_failure;
    }
    return 0;
}

// popsim: POP efficiency metrics and MPI replay from Paraver traces.
#include "popsim/version.hpp"
#include "replay/allocator_tuning.hpp"
#include "replay/engine/engine.hpp"
#include "replay/trace_error.hpp"
#include "simulator/commands.hpp"
#include "simulator/global_options.hpp"

#include <fmt/format.h>
#include <iostream>
#include <new>

int main(int argc, char** argv) {
    using namespace popsim::simulator;
    popsim::replay::keep_freed_memory_in_heap();
    CLI::App app{"popsim: POP efficiency metrics and ideal-network replay of MPI traces"};
    app.set_version_flag("--version", popsim::k_version);
    app.require_subcommand(1);
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return fmt::format("popsim: error: {}\nRun 'popsim --help' or 'popsim COMMAND --help' for "
                           "more information.\n",
                           e.what());
    });
    add_global_options(app);
    add_analyze_command(app);
    add_synth_command(app);
    add_simulate_command(app);
    add_whatif_command(app);
    add_convert_command(app);
    add_cut_command(app);
    add_events_command(app);
    add_compare_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : k_exit_usage;
    } catch (const RegressionFound& e) {
        std::cerr << "popsim: regression: " << e.what() << "\n";
        return k_exit_regression;
    } catch (const popsim::replay::ReplayDeadlock& e) {
        std::cerr << "popsim: error: " << e.what() << "\n";
        return k_exit_bad_input;
    } catch (const popsim::replay::TraceError& e) {
        std::cerr << "popsim: error: " << e.what() << "\n";
        return k_exit_bad_input;
    } catch (const std::invalid_argument& e) { // a value the options could not take
        std::cerr << "popsim: error: " << e.what() << "\n";
        return k_exit_usage;
    } catch (const std::bad_alloc&) {
        std::cerr << "popsim: error: out of memory (the memory of the machine or the process "
                     "limit, ulimit -v, is too small for this run)\n";
        return k_exit_failure;
    } catch (const std::exception& e) {
        std::cerr << "popsim: error: " << e.what() << "\n";
        return k_exit_failure;
    }
    return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/failure.hpp"

#include "replay/engine/engine.hpp"
#include "replay/trace_error.hpp"
#include "simulator/commands/commands.hpp"

#include <exception>
#include <new>
#include <stdexcept>

namespace popsim::simulator {

Failure current_failure() {
    try {
        throw;
    } catch (const ForwardedFailure& e) {
        return e.failure();
    } catch (const RegressionFound& e) {
        return {k_exit_regression, e.what()};
    } catch (const CLI::CallForHelp&) { // the library's options ask for help
        return {k_exit_usage, "--help: the library prints nothing; see `popsim COMMAND --help`"};
    } catch (const CLI::ParseError& e) { // the library's options; the program's go to app.exit
        return {k_exit_usage, e.what()};
    } catch (const replay::ReplayDeadlock& e) {
        return {k_exit_bad_input, e.what()};
    } catch (const replay::TraceError& e) {
        return {k_exit_bad_input, e.what()};
    } catch (const std::invalid_argument& e) { // a value the options could not take
        return {k_exit_usage, e.what()};
    } catch (const std::bad_alloc&) {
        return {k_exit_failure,
                "out of memory (the memory of the machine or the process limit, ulimit -v, is "
                "too small for this run)"};
    } catch (const std::exception& e) {
        return {k_exit_failure, e.what()};
    }
}

} // namespace popsim::simulator

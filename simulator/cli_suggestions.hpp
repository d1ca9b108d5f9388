// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the command line forgives and suggests: option values in any case, and "did you mean" for
// a mistyped command, option or value.
//
// Example:
//   cmd->add_option("--model", model)->transform(one_of({"mpi", "openmp"}));
//   // --model OpenMP gives "openmp"; --model open: "'open' is not one of mpi, openmp; did you
//   // mean 'openmp'?"
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

/// Accepts one of `values`, whatever its case (and gives it as listed); refuses others, naming
/// the values and the nearest.
CLI::Validator one_of(std::vector<std::string> values);

/// Makes every option of `app`'s commands that takes a value refuse another of its options as
/// that value: CLI11 gives `--phases --html r.html` the SPEC "--html", and the trace "r.html".
void refuse_options_as_values(CLI::App& app);

/// The message for a parse error of `app` (the command line `args`, without the program): CLI11's,
/// with the command, option or value meant when one is near what was typed.
std::string usage_error_message(const CLI::App& app, const CLI::Error& error,
                                const std::vector<std::string>& args);

} // namespace popsim::simulator

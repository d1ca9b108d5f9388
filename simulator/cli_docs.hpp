// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The man page and the bash completion, written from the command line's own model (the CLI11
// app that main() parses), not scraped from --help: each command offers exactly what it takes,
// each value its choices or file names, and the page fills lines to the reader's width.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

/// An option or positional argument as a reader and a shell see it.
struct CliOption {
    std::vector<std::string> names; // "-o", "--output"; a positional's own name ("trace")
    bool positional = false;
    bool takes_value = false;         // false: a flag
    std::string value_name;           // "FILE", "TIME", "SPEC", "MODEL", ...
    std::vector<std::string> choices; // the values it takes, when it lists them
    bool file = false;                // its value names a file (a path to complete)
    std::string description, default_value;
    std::vector<std::string> excludes; // the options it cannot be given with
};

/// A command (or, with an empty name, popsim itself: the global options).
struct CliCommand {
    std::string name, description;
    std::vector<CliOption> options;
};

/// popsim's global options first (name ""), then each command, as registered on `app`.
std::vector<CliCommand> cli_model(const CLI::App& app);

/// popsim(1) in man(7) roff: NAME, SYNOPSIS, DESCRIPTION, GLOBAL OPTIONS, COMMANDS (one section
/// each), EXAMPLES, EXIT STATUS, ENVIRONMENT, SEE ALSO.
std::string man_page(const CLI::App& app, const std::string& version);

/// A bash completion script: commands, each command's options and the global ones, the choices
/// of an option that lists them, file names where a file is expected.
std::string bash_completion(const CLI::App& app);

} // namespace popsim::simulator

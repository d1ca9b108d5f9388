// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Runs the popsim binary as users do, for the command-line tests.
#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace popsim::test {

struct Run {
    int status;
    std::string output; // stdout and stderr
};

/// A bash command line, with stderr merged into the output.
inline Run run_shell(const std::string& command_line) {
    std::string quoted; // inside '...': each ' becomes '\''
    for (char c : command_line) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    const std::string command = "bash -c '" + quoted + "' 2>&1";
    std::FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string output;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

/// `popsim ARGS` through bash (process substitution works), with stderr merged into the output.
inline Run run_popsim(const std::string& args) {
    return run_shell(std::string(POPSIM_BINARY) + " " + args);
}

/// `popsim COMMAND TRACE ARGS` on an 80-column terminal ($COLUMNS), checking that no line of its
/// output is wider. The trace is named relative to its folder: a path longer than the terminal is
/// printed whole, to be copied.
inline Run run_at_80_columns(const std::string& command, const std::string& trace,
                             const std::string& args) {
    const std::filesystem::path path(trace);
    const auto r =
        run_shell("cd " + path.parent_path().string() + " && COLUMNS=80 " + POPSIM_BINARY + " " +
                  command + " " + path.filename().string() + " " + args);
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
        CAPTURE(line);
        CHECK(line.size() <= 80);
    }
    return r;
}

/// Runs `popsim ARGS` and checks that it fails with `status` and prints exactly
/// "popsim: error: MESSAGE".
inline void check_fails(const std::string& args, int status, const std::string& message) {
    const auto r = run_popsim(args);
    CHECK(r.status == status);
    CHECK(r.output == "popsim: error: " + message + "\n");
}

/// The cells of the first terminal-table row labelled `label` (indentation ignored), trimmed;
/// empty when no row has that label.
inline std::vector<std::string> table_row(const std::string& output, const std::string& label) {
    auto trim = [](std::string s) {
        const auto first = s.find_first_not_of(' ');
        if (first == std::string::npos) return std::string();
        return s.substr(first, s.find_last_not_of(' ') - first + 1);
    };
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> cells;
        std::size_t start = 0;
        for (auto bar = line.find('|'); bar != std::string::npos; bar = line.find('|', start)) {
            cells.push_back(trim(line.substr(start, bar - start)));
            start = bar + 1;
        }
        cells.push_back(trim(line.substr(start)));
        if (cells.size() > 1 && cells.front() == label)
            return std::vector<std::string>(cells.begin() + 1, cells.end());
    }
    return {};
}

using Cells = std::vector<std::string>;

inline nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

} // namespace popsim::test

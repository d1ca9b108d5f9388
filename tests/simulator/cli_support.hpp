#pragma once
// Runs the popsim binary as users do, for the command-line tests.
#include <cstdio>
#include <doctest/doctest.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>

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

/// Runs `popsim ARGS` and checks that it fails with `status` and prints exactly
/// "popsim: error: MESSAGE".
inline void check_fails(const std::string& args, int status, const std::string& message) {
    const auto r = run_popsim(args);
    CHECK(r.status == status);
    CHECK(r.output == "popsim: error: " + message + "\n");
}

inline nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

} // namespace popsim::test

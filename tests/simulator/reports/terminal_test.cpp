// SPDX-License-Identifier: BSD-3-Clause
// The terminal report as people see it: the width of their terminal, colours only where wanted,
// the model and scaling kind said, one spelling, one unit per quantity.
#include "simulator/cli_support.hpp"
#include "simulator/reports/terminal_report.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

using namespace popsim;

namespace {

/// A strong-scaling series of 1, 2, 4, 8 and 16 ranks sharing 16 s of computation, under `name`:
/// each test case its own traces (CTest runs them at once). Short: the 80-column checks print
/// the paths, and a path longer than the line cannot wrap.
std::string series(const std::string& name) {
    std::string paths;
    for (int ranks : {1, 2, 4, 8, 16}) {
        std::string description = fmt::format("ranks {}\n", ranks);
        for (int r = 0; r < ranks; ++r)
            description += fmt::format("{} compute {}ms\n", r, 16000 / ranks);
        paths +=
            fmt::format(" {}", test::synth_trace(fmt::format("{}_{}", name, ranks), description));
    }
    return paths;
}

/// The longest line, or the longest containing `part`.
std::size_t longest_line(const std::string& text, char part = '\0') {
    std::istringstream lines(text);
    std::size_t longest = 0;
    for (std::string line; std::getline(lines, line);)
        if (part == '\0' || line.find(part) != std::string::npos)
            longest = std::max(longest, line.size());
    return longest;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

} // namespace

/// `popsim ARGS` with environment settings before it (`COLUMNS=80`).
test::Run run_with(const std::string& environment, const std::string& args) {
    return test::run_shell(fmt::format("{} {} {}", environment, POPSIM_BINARY, args));
}

/// `popsim ARGS` on a pseudo-terminal of 60 columns (util-linux script), as a user sees it.
test::Run run_on_terminal(const std::string& environment, const std::string& args) {
    return test::run_shell(fmt::format("{} script -qec 'stty cols 60; {} {}' /dev/null",
                                       environment, POPSIM_BINARY, args));
}

TEST_CASE("terminal: a series wider than the terminal stacks in blocks of columns") {
    const auto traces = series("tstack");
    // Not a terminal and no $COLUMNS: one block, as long as it needs.
    const auto file = run_with("", fmt::format("analyze --quiet --no-replay{}", traces));
    REQUIRE(file.status == 0);
    CHECK(count(file.output, "Number of processes") == 1);
    CHECK(longest_line(file.output) > 80);
    // 80 columns: no line is longer, every value is there: four runs, then the fifth.
    const auto narrow =
        run_with("COLUMNS=80", fmt::format("analyze --quiet --no-replay{}", traces));
    REQUIRE(narrow.status == 0);
    CHECK(count(narrow.output, "Number of processes") == 2);
    CHECK(longest_line(narrow.output) <= 80);
    // 16 s of computation shared by the ranks: each run's runtime, across the blocks.
    CHECK(test::table_row(narrow.output, "Runtime (s)") ==
          test::Cells{"16.000000", "8.000000", "4.000000", "2.000000"});
    CHECK(narrow.output.find("Runtime (s)                    |  1.000000\n") != std::string::npos);
    // With the replay, the per-rank breakdowns' titles (long paths) wrap too.
    CHECK(longest_line(run_with("COLUMNS=80", fmt::format("analyze --quiet{}", traces)).output) <=
          80);
    // 160 columns hold the five runs in one block.
    const auto wide = run_with("COLUMNS=160", fmt::format("analyze --quiet --no-replay{}", traces));
    CHECK(test::table_row(wide.output, "Runtime (s)") ==
          test::Cells{"16.000000", "8.000000", "4.000000", "2.000000", "1.000000"});
    // The terminal's own width (60 columns) when $COLUMNS is not set: two runs per block.
    const auto terminal =
        run_on_terminal("", fmt::format("analyze --quiet --no-replay --no-color{}", traces));
    CHECK(count(terminal.output, "Number of processes") == 3);
    CHECK(longest_line(terminal.output, '|') <= 61); // "\r" ends each line on a terminal
}

TEST_CASE("terminal: colours on a terminal only, never with --no-color or NO_COLOR") {
    const auto trace =
        test::synth_trace("terminal_colour", "ranks 2\n0 compute 1s\n1 compute 3s\n");
    const std::string args = fmt::format("analyze --quiet --no-replay {}", trace);
    // Load balance 2/3 (light red background), Parallel efficiency 2/3 too; black text on it.
    const auto coloured = run_on_terminal("", args);
    CHECK(coloured.output.find("\033[38;5;16;48;5;224m") != std::string::npos);
    CHECK(run_on_terminal("", fmt::format("{} --no-color", args)).output.find('\033') ==
          std::string::npos);
    CHECK(run_on_terminal("NO_COLOR=1", args).output.find('\033') == std::string::npos);
    CHECK(run_with("", args).output.find('\033') == std::string::npos); // a pipe
}

TEST_CASE("terminal: the model, the scaling kind, one spelling, units, --fraction everywhere") {
    const auto traces = series("tconv");
    const auto r = run_with("", fmt::format("analyze --quiet{}", traces));
    REQUIRE(r.status == 0);
    CHECK(r.output.starts_with("Model: MPI, multiplicative (modelfactors)\nScaling: strong "
                               "(detected); Serialisation/Transfer convention: modelfactors\n"));
    CHECK(r.output.find("Serializ") == std::string::npos);
    CHECK(r.output.find("serializ") == std::string::npos);
    CHECK(test::table_row(r.output, "Runtime, ideal network (s)").size() == 5);
    CHECK(test::table_row(r.output, "rank") ==
          test::Cells{"useful", "start-up", "load imbalance", "serialisation", "transfer"});
    const auto weak = run_with("", fmt::format("analyze --quiet --scaling weak{}", traces));
    CHECK(weak.output.starts_with("Model: MPI, multiplicative (modelfactors)\nScaling: weak "
                                  "(--scaling);"));
    // --fraction: the table and the per-rank breakdown as fractions. A run of 2 ranks computing
    // 1 s and 3 s: rank 1 is useful 1/3 of the runtime and waits 2/3 for rank 2.
    const auto trace =
        test::synth_trace("terminal_fraction", "ranks 2\n0 compute 1s\n1 compute 3s\n");
    const auto f = run_with("", fmt::format("analyze --quiet --fraction {}", trace));
    CHECK(test::table_row(f.output, "Load balance") == test::Cells{"0.6667"});
    CHECK(test::table_row(f.output, "1") ==
          test::Cells{"0.3333", "0.0000", "0.6667", "0.0000", "0.0000"});
    CHECK(test::table_row(f.output, "2") ==
          test::Cells{"1.0000", "0.0000", "0.0000", "0.0000", "0.0000"});
    // The CSV keeps modelfactors' labels and units.
    const auto dir = test::scratch_dir("terminal_csv");
    const auto csv = (dir / "m.csv").string();
    REQUIRE(run_with("", fmt::format("analyze --quiet {} --csv {}", trace, csv)).status == 0);
    std::ifstream in(csv);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    CHECK(text.find("\nSerialization efficiency;100.000000\n") != std::string::npos);
    CHECK(text.find("\n#Runtime (us);3000000.00\n") != std::string::npos);
}

TEST_CASE("terminal: names cut to the room left keep what tells them apart (issue 36, item 12)") {
    using popsim::simulator::shortened_names;
    using Names = std::vector<std::string>;
    // Cut at the end, the two OpenMP outlined functions of one file read the same.
    CHECK(shortened_names({"main._omp_fn.0 (solver.c:120)", "main._omp_fn.0 (solver.c:456)"}, 20) ==
          Names{"main._omp...r.c:120)", "main._omp...r.c:456)"});
    // They differ at the start: the head shows it.
    CHECK(shortened_names({"compute_alpha_kernel_in_physics", "compute_beta_kernel_in_physics"},
                          20) == Names{"compute_a..._physics", "compute_b..._physics"});
    // Just past the head: the tail grows back to where they differ.
    CHECK(shortened_names(
              {"abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyZ0123456789"},
              20) == Names{"abcdef...z0123456789", "abcdef...Z0123456789"});
    // Far from both ends: that middle, cut on both sides.
    const std::string a(20, 'a');
    CHECK(shortened_names({a + "X" + std::string(19, 'b'), a + "Y" + std::string(19, 'b')}, 20) ==
          Names{"...aaaaaaaXbbbbbb...", "...aaaaaaaYbbbbbb..."});
    // Names that fit, and no limit, stay whole.
    CHECK(shortened_names({"solve", "solve_all"}, 20) == Names{"solve", "solve_all"});
    CHECK(shortened_names({std::string(100, 'x')}, 0) == Names{std::string(100, 'x')});
}

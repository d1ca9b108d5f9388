// SPDX-License-Identifier: BSD-3-Clause
// The man page and the bash completion, checked against the command line they describe (issue
// 36, items 3 and 4): the completion offers each command exactly the options CLI11 accepts there,
// the page reads at 80 columns and shows no parser artefacts.
#include "simulator/cli_docs.hpp"
#include "simulator/cli_support.hpp"
#include "simulator/commands/cli_app.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <sstream>

using namespace popsim;

namespace {

using Words = std::set<std::string>;

Words words_of(const std::string& text) {
    Words out;
    std::istringstream in(text);
    for (std::string w; in >> w;) out.insert(w);
    return out;
}

/// The folder file names are completed in, made once.
const std::string& files_dir() {
    static const std::string dir = test::scratch_dir("cli_docs_files").string();
    return dir;
}

/// What the completion script offers for `words` (the last one being completed).
Words completed(const std::string& script, const std::string& words, int current) {
    const auto r = test::run_shell(
        fmt::format("cd {} && source {} && COMP_WORDS=({}) && COMP_CWORD={} && _popsim && echo "
                    "\"${{COMPREPLY[@]}}\"",
                    files_dir(), script, words, current));
    REQUIRE(r.status == 0);
    return words_of(r.output);
}

/// Every name of every option of `app` itself (not of its commands), as CLI11 knows them.
Words option_names(const CLI::App& app) {
    Words out;
    for (const auto* o : app.get_options()) {
        for (const auto& s : o->get_snames()) out.insert("-" + s);
        for (const auto& l : o->get_lnames()) out.insert("--" + l);
    }
    return out;
}

} // namespace

TEST_CASE("cli docs: the completion offers each command exactly what it accepts") {
    CLI::App app{"", "popsim"};
    simulator::add_popsim_cli(app);
    const auto script = (test::scratch_dir("cli_docs") / "popsim.bash").string();
    test::write_file(script, simulator::bash_completion(app));
    const auto global = option_names(app);
    Words commands;
    for (const auto* command : app.get_subcommands({})) commands.insert(command->get_name());
    CHECK(completed(script, "popsim ''", 1) == commands);
    for (const auto* command : app.get_subcommands({})) {
        CAPTURE(command->get_name());
        auto expected = option_names(*command);
        expected.insert(global.begin(), global.end());
        const auto offered = completed(script, "popsim " + command->get_name() + " -", 2);
        CHECK(offered == expected);
        // Each offered option is one the command takes: not refused as unexpected.
        for (const auto& option : offered) {
            if (option == "-h" || option == "--help" || option == "--version") continue;
            const auto r = test::run_popsim(command->get_name() + " " + option + " x");
            CAPTURE(option);
            CHECK(r.output.find("not expected") == std::string::npos);
        }
    }
    // What the CLI refused and the old completion offered.
    CHECK(completed(script, "popsim analyze -", 2).count("-S") == 0);
    CHECK(completed(script, "popsim analyze --m", 2) == Words{"--model", "--max-memory"});
    CHECK(completed(script, "popsim simulate --ph", 2).empty());
    // A value: the choices, a file name, or nothing to offer.
    CHECK(completed(script, "popsim analyze run.prv --model ''", 4) ==
          Words{"auto", "mpi", "additive", "openmp", "hybrid-additive", "hybrid-multiplicative",
                "talp"});
    CHECK(completed(script, "popsim whatif run.prv --collectives ''", 4) ==
          Words{"dimemas", "mpi"});
    test::write_file(std::filesystem::path(files_dir()) / "report.json", "{}");
    CHECK(completed(script, "popsim analyze run.prv --json rep", 4) == Words{"report.json"});
    CHECK(completed(script, "popsim simulate run.prv --latency ''", 4).empty());
    CHECK(completed(script, "popsim --app ''", 2).empty());
}

TEST_CASE("cli docs: the man page reads at 80 columns, with examples and no parser artefacts") {
    CLI::App app{"", "popsim"};
    simulator::add_popsim_cli(app);
    const auto page = (test::scratch_dir("cli_docs_man") / "popsim.1").string();
    test::write_file(page, simulator::man_page(app, "1.0"));
    const auto r = test::run_shell("MANWIDTH=80 man -l " + page + " 2>&1");
    REQUIRE(r.status == 0);
    std::istringstream lines(r.output);
    std::size_t count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
        CAPTURE(line);
        CHECK(line.size() <= 80 + 2 * std::count(line.begin(), line.end(), '\xe2')); // UTF-8
    }
    CHECK(count > 300);
    for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "GLOBAL OPTIONS", "COMMANDS",
                                "EXAMPLES", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"})
        CHECK(r.output.find(std::string("\n") + section + "\n") != std::string::npos);
    for (const auto* command : app.get_subcommands({}))
        CHECK(r.output.find("\n   popsim " + command->get_name() + "\n") != std::string::npos);
    // CLI11's help artefacts, and analyze's words on cut.
    for (const char* artefact : {"{false}", "Excludes:", "Analyse from", "TEXT", "[Option Group"})
        CHECK(r.output.find(artefact) == std::string::npos);
    CHECK(r.output.find("       --no-replay\n") != std::string::npos);
    CHECK(r.output.find("--from TIME\n              The window starts at this time of the trace "
                        "(e.g. 2.5s, 300ms,\n              1200000ns). Not with --phases, "
                        "--region.\n") != std::string::npos);
    CHECK(r.output.find("           popsim analyze run.prv.gz\n") != std::string::npos);
}

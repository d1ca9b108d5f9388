// SPDX-License-Identifier: BSD-3-Clause
// What popsim checks about its inputs and outputs before any work: each trap a user can fall into
// gets its exact message and exit status 2.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace popsim;
namespace fs = std::filesystem;

namespace {

/// A run of the synthetic series: `ranks` ranks computing 1 s each, in `folder` as NAME.prv.
std::string write_run(const fs::path& folder, const std::string& name, int ranks) {
    std::string description = fmt::format("ranks {}\n", ranks);
    for (int r = 0; r < ranks; ++r) description += fmt::format("{} compute 1s\n", r);
    const auto path = (folder / (name + ".prv")).string();
    replay::synth::write_paraver(replay::synth::parse_description(description, name), path);
    return path;
}

} // namespace

TEST_CASE("cli inputs: a missing trace or configuration is bad input, named with its path") {
    test::check_fails("analyze /nonexistent.prv", 2, "/nonexistent.prv: no such file or folder");
    test::check_fails("simulate /nonexistent.prv", 2, "/nonexistent.prv: no such file or folder");
    const auto dir = test::scratch_dir("cli_inputs_missing");
    const auto trace = write_run(dir, "run", 2);
    test::check_fails("whatif " + trace + " --config /nonexistent.cfg", 2,
                      "/nonexistent.cfg: no such file or folder");
    test::check_fails("simulate " + dir.string(), 2,
                      dir.string() + ": a folder, where a file is expected");
}

TEST_CASE("cli inputs: a usage error says popsim: error: and exits 1") {
    const auto r = test::run_popsim("analyze --no-such-option x.prv");
    CHECK(r.status == 1);
    CHECK(r.output == "popsim: error: The following argument was not expected: --no-such-option\n"
                      "Run 'popsim --help' or 'popsim COMMAND --help' for more information.\n");
}

TEST_CASE("cli inputs: a folder is its traces in natural order, without the simulated ones") {
    const auto dir = test::scratch_dir("cli_inputs_folder");
    write_run(dir, "run10", 10);
    write_run(dir, "run2", 2);
    write_run(dir, "run1", 1);
    const auto simulated = write_run(dir, "run2.sim", 2);
    const auto json = (dir.parent_path() / "cli_inputs_folder.json").string();
    const auto r = test::run_popsim("analyze --no-replay " + dir.string() + " --json " + json);
    CHECK(r.status == 0);
    CHECK(r.output.starts_with(fmt::format("popsim: note: {}: a simulated trace, left out of the "
                                           "folder's series (name it to analyse it)\n",
                                           simulated)));
    const auto report = test::read_json(json);
    REQUIRE(report["traces"].size() == 3);
    CHECK(report["traces"][0]["path"] == (dir / "run1.prv").string());
    CHECK(report["traces"][1]["path"] == (dir / "run2.prv").string());
    CHECK(report["traces"][2]["path"] == (dir / "run10.prv").string());

    const auto empty = test::scratch_dir("cli_inputs_empty");
    test::check_fails("analyze " + empty.string(), 2,
                      empty.string() +
                          ": no Paraver trace (.prv, .prv.gz) or OTF2 archive (a folder with "
                          "traces.otf2) in this folder");
}

TEST_CASE("cli inputs: a simulated trace named in a series is said to be one") {
    const auto dir = test::scratch_dir("cli_inputs_simulated");
    const auto trace = write_run(dir, "run", 2);
    const auto simulated = (dir / "replayed.prv").string(); // marked inside, not by its name
    REQUIRE(test::run_popsim("simulate --quiet " + trace + " -o " + simulated).status == 0);
    const auto r = test::run_popsim("analyze --no-replay " + trace + " " + simulated);
    CHECK(r.status == 0);
    CHECK(r.output.starts_with(fmt::format(
        "popsim: warning: {}: a simulated trace: its column is a simulated run, not a traced one\n",
        simulated)));
    CHECK(test::run_popsim("analyze --no-replay --quiet " + trace + " " + trace).status == 2);
}

TEST_CASE("cli inputs: an output that cannot be created stops the command before any work") {
    const auto dir = test::scratch_dir("cli_inputs_outputs");
    const auto trace = write_run(dir, "run", 2);
    test::check_fails("analyze " + trace + " --csv /nonexistent/x.csv", 2,
                      "/nonexistent/x.csv: --csv: cannot write: the folder /nonexistent does not "
                      "exist");
    test::check_fails("analyze " + trace + " --json " + dir.string(), 2,
                      dir.string() + ": --json: a folder, not a file");
    test::check_fails("simulate " + trace + " -o /nonexistent/sim.prv", 2,
                      "/nonexistent/sim.prv: -o: cannot write: the folder /nonexistent does not "
                      "exist");
    test::check_fails("whatif " + trace + " --latency 1us,2us --csv /nonexistent/w.csv", 2,
                      "/nonexistent/w.csv: --csv: cannot write: the folder /nonexistent does not "
                      "exist");
}

TEST_CASE("cli inputs: a latency or bandwidth without its unit is refused, naming the units") {
    const auto trace = write_run(test::scratch_dir("cli_inputs_units"), "run", 2);
    test::check_fails("simulate " + trace + " --latency 5", 1,
                      "'5' has no unit: write 5ns, 5us, 5ms or 5s");
    test::check_fails("whatif " + trace + " --bandwidth 100,1GB/s", 1,
                      "'100' has no unit: write 100MB/s (10^6 bytes/s) or 100MiB/s (2^20 bytes/s, "
                      "the MB/s of Dimemas configuration files)");
    CHECK(test::run_popsim("simulate " + trace + " --latency 0 --bandwidth 0 --quiet").status == 0);
    // Issue 36, item 9: found before the trace is read (it took 18.8 s of reading a 1 GB trace):
    // with a trace that is no trace, the option's error is the one named.
    const auto not_a_trace =
        test::write_file(test::scratch_dir("cli_inputs_units") / "not_a_trace.prv", "hello\n");
    test::check_fails("simulate " + not_a_trace + " --latency 5", 1,
                      "'5' has no unit: write 5ns, 5us, 5ms or 5s");
    test::check_fails("whatif " + not_a_trace + " --latency 1us,5", 1,
                      "'5' has no unit: write 5ns, 5us, 5ms or 5s");
    test::check_fails("simulate " + not_a_trace + " --buses two", 1,
                      "--buses 'two' is not a whole number");
}

TEST_CASE("cli inputs: a mistyped command, option or value is named with what was meant") {
    // Issue 36, item 9: usage errors exit 1, with the nearest command, option or value.
    const auto trace = write_run(test::scratch_dir("cli_inputs_did_you_mean"), "run", 2);
    const auto usage = [](const std::string& args, const std::string& first_line) {
        const auto r = test::run_popsim(args);
        CAPTURE(args);
        CHECK(r.status == 1);
        CHECK(r.output.substr(0, r.output.find('\n')) == "popsim: error: " + first_line);
    };
    usage("analyse " + trace,
          "'analyse' is not a popsim command (commands: analyze, synth, simulate, whatif, convert, "
          "cut, events, compare); did you mean 'analyze'?");
    usage("analyze " + trace + " --model hybrid",
          "--model: 'hybrid' is not one of auto, mpi, additive, openmp, hybrid-additive, "
          "hybrid-multiplicative, talp; did you mean 'hybrid-additive' or "
          "'hybrid-multiplicative'?");
    usage("analyze " + trace + " --colour",
          "The following argument was not expected: --colour (analyze takes no --colour; did you "
          "mean '--no-color'?)");
    usage("simulate " + trace + " --latancy=5us",
          "The following argument was not expected: --latancy=5us (simulate takes no --latancy; "
          "did you mean '--latency'?)");
    usage("--versio", "A subcommand is required (popsim takes no --versio; did you mean "
                      "'--version'?)");
    // A wrong value of popsim's own options is named as such, not as a command.
    usage("--read-block 0 analyze " + trace, "--read-block: must be from 64B to 256MiB, not 0");
    usage("--app 0 analyze " + trace, "--app: applications are numbered from 1, not '0'");
    usage("analyze --project 0 " + trace,
          "--project: process counts are whole numbers from 1, not '0'");
    usage("analyze --project 4 " + trace + " " + trace,
          "--project: process counts are whole numbers from 1, not '" + trace +
              "' (a trace? --project takes the words after it: write --project=4,8, or give it "
              "after the traces)");
    // An option of other commands is said to be theirs: events lists what --region takes.
    usage("events " + trace + " --region solve",
          "The following arguments were not expected: solve --region (events takes no --region; "
          "analyze and cut do)");
    usage("simulate " + trace + " --phases 1000",
          "The following arguments were not expected: 1000 --phases (simulate takes no --phases; "
          "analyze and cut do)");
    // A value in another case is the value; --no-colour is --no-color.
    CHECK(test::run_popsim("analyze " + trace + " --model OpenMP --no-colour --quiet").status == 0);
    // A trace's .pcf or .row for the trace: bad input, naming the trace.
    const auto base = trace.substr(0, trace.size() - 4);
    test::check_fails(
        "analyze " + base + ".pcf", 2,
        base + ".pcf: the .pcf of a trace (its names), not a trace: give the trace, " + trace);
    test::check_fails("simulate " + base + ".row", 2,
                      base +
                          ".row: the .row of a trace (its resources), not a trace: give the "
                          "trace, " +
                          trace);
}

TEST_CASE("cli inputs: a cut's collectives-before-cut counts far apart are read, not a crash") {
    // Issue 35, item 1: 4294967295 made the replay index past its collectives (a crash), 4294967296
    // wrapped to 0. Rank 1 made its Barrier before the cut at 2.5 us, rank 2 makes it inside; a
    // count far above rank 2's leaves both of rank 1's collectives in the cut without partners
    // (3 collectives at the edges, not 1), in every mode alike. Past 2^64 - 1 collectives the
    // count's line is named.
    const auto dir = test::scratch_dir("cli_inputs_cut_counts");
    const auto whole = test::synth_trace("cut_counts", "ranks 2\n0 compute 1us\n0 Barrier 1us\n"
                                                       "1 compute 2us\n1 Barrier 1us\n"
                                                       "0 compute 1us\n0 Allreduce 1us\n"
                                                       "1 Allreduce 1us\n");
    const auto cut = (dir / "cut.prv").string();
    REQUIRE(test::run_popsim("cut " + whole + " --from 2500ns -o " + cut).status == 0);
    const std::string text = test::read_file(cut);
    const std::string mark = "#popsim:collectives-before-cut:1:1:1:1\n";
    REQUIRE(text.find(mark) != std::string::npos);
    const char* modes[] = {"analyze", "analyze --in-memory", "analyze --root-causes",
                           "analyze --replay-method longest-path"};
    for (const char* count : {"1", "4294967295", "4294967296", "18446744073709551615"}) {
        INFO(count);
        std::string bad = text;
        bad.replace(bad.find(mark), mark.size(),
                    fmt::format("#popsim:collectives-before-cut:1:1:1:{}\n", count));
        const auto path = (dir / "bad.prv").string();
        test::write_file(path, bad);
        fs::copy_file(dir / "cut.pcf", dir / "bad.pcf", fs::copy_options::overwrite_existing);
        fs::copy_file(dir / "cut.row", dir / "bad.row", fs::copy_options::overwrite_existing);
        if (std::string(count) == "18446744073709551615") {
            const std::string message = fmt::format(
                "{}:4: task 1 calls MPI_Allreduce at 500 ns on communicator 1 after 2^64 - 1 "
                "collectives (its collectives-before-cut count)",
                path);
            for (const char* mode : modes)
                test::check_fails(fmt::format("{} --quiet {}", mode, path), 2, message);
            test::check_fails("simulate --quiet " + path, 2, message);
            continue;
        }
        const auto edges = std::string(count) == "1" ? "popsim: warning: {}: collectives"
                                                     : "popsim: warning: {}: 3 collectives";
        // Rank 1 computes 0.5 us of the cut before its Allreduce; rank 2's calls cost nothing.
        const auto json = (dir / "bad.json").string();
        for (const char* mode : modes) {
            const auto r = test::run_popsim(fmt::format("{} {} --json {}", mode, path, json));
            CHECK(r.status == 0);
            CHECK(r.output.starts_with(fmt::format(fmt::runtime(edges), path)));
            CHECK(test::read_json(json)["traces"][0]["ideal"]["runtime_ns"] == 500);
        }
        CHECK(test::run_popsim("simulate --quiet " + path).status == 0);
    }
}

TEST_CASE("cli inputs: a report lost on standard output is a failure, not exit 0") {
    // Issue 35, item 3: a full disk or a closed standard output used to end with status 0.
    const auto dir = test::scratch_dir("cli_inputs_stdout");
    const auto trace = write_run(dir, "run", 2);
    auto r = test::run_popsim("analyze --quiet " + trace + " > /dev/full");
    CHECK(r.status == 3);
    CHECK(r.output == "popsim: error: standard output: write failed: No space left on device\n");
    r = test::run_popsim("analyze --quiet " + trace + " >&-");
    CHECK(r.status == 3);
    CHECK(r.output == "popsim: error: standard output: write failed: Bad file descriptor\n");
}

TEST_CASE("cli inputs: a report given '-' goes to standard output alone, not to a file '-'") {
    const auto dir = test::scratch_dir("cli_inputs_dash");
    write_run(dir, "run", 2);
    const std::string in_dir = "cd " + dir.string() + " && " + POPSIM_BINARY + " ";
    // Two ranks computing 1 s each, no MPI: 2 processes, every efficiency 100 %.
    auto r = test::run_shell(in_dir + "analyze run.prv --quiet --json -");
    REQUIRE(r.status == 0);
    const auto report = nlohmann::json::parse(r.output); // the terminal report is not printed
    CHECK(report["command"] == "analyze");
    CHECK(report["traces"][0]["processes"] == 2);
    CHECK_FALSE(fs::exists(dir / "-"));
    r = test::run_shell(in_dir + "analyze run.prv --quiet --csv -");
    REQUIRE(r.status == 0);
    CHECK(r.output.starts_with("Number of processes;2\nParallel efficiency;100.000000\n"));
    r = test::run_shell(in_dir + "whatif run.prv --quiet --latency 1us --csv -");
    REQUIRE(r.status == 0);
    CHECK(r.output.starts_with("latency,latency_ns,"));
    CHECK_FALSE(fs::exists(dir / "-"));
    test::check_fails("analyze " + (dir / "run.prv").string() + " --csv - --json -", 2,
                      "/dev/stdout: --csv and --json would both write this file");
}

TEST_CASE("cli inputs: a closed pipe on standard output loses no file (issue 36, item 11)") {
    // `popsim analyze ... --html r.html | head` used to die of SIGPIPE before writing r.html.
    // Here the pipe's reader is gone before popsim starts, so every write to it fails.
    const auto dir = test::scratch_dir("cli_inputs_closed_pipe");
    const auto trace = (dir / "h.prv").string();
    REQUIRE(test::run_popsim("synth --halo 4 --steps 50 --threads 2 -o " + trace).status == 0);
    const auto html = (dir / "r.html").string(), parts = (dir / "p.csv").string(),
               json = (dir / "r.json").string();
    std::vector<std::string> args{POPSIM_BINARY, "analyze", trace, "--phases",
                                  "50000001:6",  "--html",  html,  "--parts-csv",
                                  parts,         "--json",  json};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int ends[2];
    REQUIRE(pipe(ends) == 0);
    close(ends[0]);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, ends[1]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t child = 0;
    REQUIRE(posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    close(ends[1]);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    // As `cat` ends on a closed pipe: by SIGPIPE (status 141 in the shell), after the files.
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGPIPE);
    CHECK(test::read_file(html).ends_with("</html>\n"));
    CHECK(test::read_file(parts).starts_with("Phase;1;2;3;"));
    CHECK(test::read_json(json)["traces"][0]["focus"]["parts"].size() == 51);
}

TEST_CASE("cli inputs: lines, .pcf and .row files that never end or are not text are refused") {
    // Issue 35, item 2: a valid trace followed by NUL bytes without a line end, or a .pcf that is
    // /dev/zero or a FIFO, grew memory without bound; a long line was searched again from its
    // start in every block (quadratic time). Item 6: a .pcf that is a folder or binary data was
    // read as empty.
    const auto dir = test::scratch_dir("cli_inputs_endless");
    const auto trace = write_run(dir, "run", 1);
    const auto base = trace.substr(0, trace.size() - 4);
    const auto nul = (dir / "nul.prv.gz").string();
    fs::copy_file(base + ".pcf", (dir / "nul.pcf").string());
    REQUIRE(test::run_shell(
                fmt::format("(cat {}; head -c 80000000 /dev/zero) | gzip -1 > {}", trace, nul))
                .status == 0);
    test::check_fails("analyze " + nul, 2,
                      nul + ":4: a line longer than 64 MiB (no line end in it): not Paraver text");
    test::check_fails("cut " + nul + " --from 0 --to 1s -o " + (dir / "cut.prv").string(), 2,
                      nul + ":4: a line longer than 64 MiB (no line end in it): not Paraver text");

    const auto pcf = base + ".pcf";
    fs::remove(pcf);
    fs::create_symlink("/dev/zero", pcf);
    test::check_fails("analyze " + trace, 2,
                      pcf + ": not a regular file (a FIFO or a device): it cannot be read whole");
    fs::remove(pcf);
    fs::create_directory(pcf);
    test::check_fails("analyze " + trace, 2, pcf + ": a folder, where a file is expected");
    fs::remove(pcf);
    test::write_file(pcf, std::string("\x7f"
                                      "ELF\x02\x01\x01\0\0\0",
                                      10));
    test::check_fails("analyze " + trace, 2,
                      pcf + ":1: binary data (a NUL byte): not a Paraver .pcf");
    test::write_file(pcf, "hello\nSTATES\n1 Running\n");
    test::check_fails("analyze " + trace, 2,
                      pcf + ":1: not a Paraver .pcf: text before its first section "
                            "(DEFAULT_OPTIONS, STATES, EVENT_TYPE, ...)");
    fs::remove(pcf);
    fs::create_symlink(pcf, pcf); // a loop
    const auto loop = test::run_popsim("analyze " + trace);
    CHECK(loop.status == 2);
    CHECK(loop.output.starts_with("popsim: error: " + pcf + ": cannot open: "));
    fs::remove(pcf);
    const auto row = base + ".row";
    fs::remove(row);
    REQUIRE(mkfifo(row.c_str(), 0600) == 0);
    test::check_fails("analyze " + trace, 2,
                      row + ": not a regular file (a FIFO or a device): it cannot be read whole");
}

TEST_CASE("cli inputs: messages name the cause (issue 35, item 7)") {
    const auto dir = test::scratch_dir("cli_inputs_causes");
    const auto trace = write_run(dir, "run", 2);
    auto copy_as = [&](const std::string& name, const std::string& command) {
        const auto path = (dir / name).string();
        REQUIRE(test::run_shell(fmt::format(fmt::runtime(command), trace, path)).status == 0);
        return path;
    };
    // An executable or bzip2 data was "lines end with a lone carriage return".
    const auto elf = copy_as("elf.prv", "cp /bin/true {1}");
    test::check_fails("analyze " + elf, 2, elf + ":1: an executable (ELF), not a trace");
    const auto bz = copy_as("bz.prv", "bzip2 -c {0} > {1}");
    test::check_fails("analyze " + bz, 2,
                      bz + ":1: bzip2-compressed data: decompress it first (popsim reads plain and "
                           "gzip-compressed traces)");
    test::check_fails("events " + bz, 2,
                      bz + ":1: bzip2-compressed data: decompress it first (popsim reads plain and "
                           "gzip-compressed traces)");
    // A UTF-8 byte-order mark before #Paraver was "not a Paraver trace".
    const auto bom = copy_as("bom.prv", "(printf '\\357\\273\\277'; cat {0}) > {1}");
    CHECK(test::run_popsim("analyze --quiet " + bom).status == 0);
    // gzip(1) ignores bytes after the last member with a warning; popsim said "invalid header".
    const auto trailing = copy_as("trailing.prv.gz", "(gzip -c {0}; echo garbage) > {1}");
    const auto r = test::run_popsim("analyze " + trailing);
    CHECK(r.status == 0);
    CHECK(r.output.find("popsim: warning: " + trailing +
                        ": bytes after the gzip data are not another gzip member: ignored, as "
                        "gzip -d ignores them ('trailing garbage ignored')") != std::string::npos);
    // A .dim given to convert was "a Paraver trace already"; --app 0 printed a 300-digit range.
    const auto dim = test::write_file(dir / "x.dim", "#DIMEMAS:\"x\":1,0:1(1),0\n");
    test::check_fails("convert " + dim + " " + (dir / "o.prv").string(), 2,
                      dim + ": a Dimemas trace: convert reads OTF2 archives (simulate replays a "
                            ".dim, and its -o writes the run as a Paraver trace)");
    const auto app = test::run_popsim("analyze --app 0 " + trace);
    CHECK(app.status == 1);
    CHECK(app.output.starts_with(
        "popsim: error: --app: applications are numbered from 1, not '0'\n"));
    // --read-block: a size from 64 bytes (a block must hold a line's start) to 256 MiB (a parsed
    // block must fit one MPI message).
    for (const auto& [value, says] :
         {std::pair{"1B", "must be from 64B to 256MiB, not 1B"},
          std::pair{"300MiB", "must be from 64B to 256MiB, not 300MiB"},
          std::pair{"lots", "'lots' is not a size (e.g. 64KiB, 32k, 1MB, 4096)"}}) {
        const auto block =
            test::run_popsim(std::string("analyze --read-block ") + value + " " + trace);
        CHECK(block.status == 1);
        CHECK(block.output.starts_with(std::string("popsim: error: --read-block: ") + says + "\n"));
    }
    CHECK(test::run_popsim("analyze --read-block 64B " + trace).status == 0);
}

TEST_CASE("cli inputs: what was accepted silently is refused (issue 35, item 6)") {
    const auto dir = test::scratch_dir("cli_inputs_silent");
    const auto trace = write_run(dir, "run", 2);
    // A .cfg record without its ;; swallowed the next record.
    const auto no_semicolons = test::write_file(
        dir / "no_semicolons.cfg",
        "#DIMEMAS_CONFIGURATION\n\"environment information\" {\"\", 0, \"\", 2, 250.0, 0, 1}\n"
        "\"multi node information\" {0, 2, \"\", 4, 1.0, 0.0, 0.0, 0, 1, 0, 5e-6, 1, 1, 0.0};;\n");
    test::check_fails("simulate " + trace + " --config " + no_semicolons, 2,
                      no_semicolons +
                          ":2: record \"environment information\" ends with '}' without ';;'");
    // Collectives for a machine that does not exist were read as the machine's.
    const auto collectives =
        test::write_file(dir / "dimemas.collectives", "Machine globalop: 3 0 LOG MAX 0 MAX\n");
    const auto with_collectives = test::write_file(
        dir / "collectives.cfg",
        "#DIMEMAS_CONFIGURATION\n\"environment information\" {\"\", 0, \"\", 2, 250.0, 0, 1};;\n"
        "\"configuration files\" {\"\", \"\", \"dimemas.collectives\", \"\"};;\n");
    test::check_fails("simulate " + trace + " --config " + with_collectives, 2,
                      collectives + ":1: machine 3: popsim models one machine, 0 (\"environment "
                                    "information\" field 2)");
    // An empty output name, or region, was taken as not given (or as a file named "").
    const std::pair<std::string, std::string> usage[] = {
        {"cut " + trace + " --from 0 --to 1s -o ''", "--output: the file name is empty"},
        {"analyze " + trace + " --json ''", "--json: the file name is empty"},
        {"analyze " + trace + " --phases 1000 --parts-csv ''",
         "--parts-csv: the file name is empty"},
        {"analyze " + trace + " --root-causes --root-causes-csv ''",
         "--root-causes-csv: the file name is empty"},
        {"analyze " + trace + " --region ''",
         "--region: an empty name: give TYPE, TYPE:VALUE or a name"},
        // Issue 36, item 9: what no trace can make right is a usage error, found before reading;
        // an option is no option's value (CLI11 took --html for the SPEC, r.html for a trace).
        {"analyze " + trace + " --region 60000019:0",
         "--region: '60000019:0': the value after ':' must be a number above 0 (0 ends a region)"},
        {"analyze " + trace + " --phases --html r.html",
         "--phases: '--html' is an option, not a value: --phases needs its value first"},
        {"analyze " + trace + " --json --quiet",
         "--json: '--quiet' is an option, not a value: --json needs its value first"},
        // --halo 0 was read as no --halo ("give either a DESCRIPTION file or --halo RANKS"), and
        // --steps 0 wrote a trace without a step.
        {"synth --halo 0 -o " + trace + ".halo.prv", "--halo: Value 0 not in range 1 to 4194304"},
        {"synth --halo 2 --steps 0 -o " + trace + ".halo.prv",
         "--steps: Value 0 not in range 1 to 1073741824"}};
    for (const auto& [args, message] : usage) {
        const auto r = test::run_popsim(args);
        CHECK(r.status == 1);
        CHECK(r.output.starts_with("popsim: error: " + message + "\n"));
    }
}

// SPDX-License-Identifier: BSD-3-Clause
// Values at the edges of what popsim takes: huge or non-finite network parameters, messages of
// exabytes, sums over many threads. Each gives a clear error or the right number, never a
// wrapped-around time (issue: hardening, item 2).
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>

using namespace popsim;
using test::run_popsim;

namespace {
/// Rank 0 computes 8 s and sends 10^16 bytes to rank 1, which computes 8 s and receives them.
std::string exabyte_trace(const std::string& name) {
    return test::synth_trace(name, "ranks 2\n0 compute 8s\n0 Send 1s to=1\n1 compute 8s\n"
                                   "1 Recv 1s from=0 size=10000000000000000\n");
}
} // namespace

TEST_CASE("limits: a replayed time past 2^62 ns is an error naming the trace and the cause") {
    const auto trace = exabyte_trace("limits_replay");
    // 10^16 bytes at 10^9 bytes/s: 10^7 s (116 days) after the 8 s of computing. On a network
    // with a bandwidth the replay counts 1/256 ns, which holds 208 days.
    const auto fast = run_popsim("simulate " + trace + " --bandwidth 1GB/s --tasks-per-node 1");
    CHECK(fast.status == 0);
    CHECK(fast.output.find("predicted runtime  10000008.000000 s") != std::string::npos);

    test::check_fails("simulate " + trace + " --bandwidth 1B/s --tasks-per-node 1", 2,
                      trace + ": a transfer of 10000000000000000 bytes at 9.53674e-07 MB/s "
                              "lasts 1e+25 ns, past 2^62/256 ns (208 days), the longest time "
                              "popsim replays where it counts fractions of a ns: an input out of "
                              "range?");
    test::check_fails("whatif " + trace + " --cpu-ratio 1,1e-300", 2,
                      trace + ": a 8000000000 ns burst at CPU ratio 1e-300 lasts inf ns, past "
                              "2^62/256 ns (208 days), the longest time popsim replays where it "
                              "counts fractions of a ns: an input out of range?");
}

TEST_CASE("limits: option values out of range are refused (exit 1)") {
    const auto trace = exabyte_trace("limits_options");
    const std::pair<const char*, const char*> cases[] = {
        {"--cpu-ratio nan", "'nan' is not a CPU ratio (e.g. 2 for a CPU twice as fast, 0.5)"},
        {"--cpu-ratio inf", "'inf' is not a CPU ratio (e.g. 2 for a CPU twice as fast, 0.5)"},
        {"--cpu-ratio -1", "'-1' is not a CPU ratio (e.g. 2 for a CPU twice as fast, 0.5)"},
        {"--cpu-ratio 0", "CPU ratio '0' is not positive"},
        {"--latency 1e300s", "'1e300s' is not a time (e.g. 5us, 1.5ms, 2s, 300ns)"},
        {"--latency nan", "'nan' is not a time (e.g. 5us, 1.5ms, 2s, 300ns)"},
        {"--bandwidth -5MB/s", "'-5MB/s' is not a bandwidth (e.g. 10GB/s, 500MiB/s, inf)"},
        {"--eager 1e30", "'1e30' is more than 2^64-1 bytes"},
        {"--eager -1", "'-1' is not a size (e.g. 64KiB, 32k, 1MB, 4096)"},
    };
    for (const auto& [option, message] : cases) {
        CAPTURE_BINDING(option);
        test::check_fails("simulate " + trace + " --quiet " + option, 1, message);
    }
    // analyze's --eager takes the same sizes as elsewhere.
    CHECK(run_popsim("analyze " + trace + " --quiet --eager 64KiB").status == 0);
    test::check_fails("analyze " + trace + " --quiet --eager -5", 1,
                      "'-5' is not a size (e.g. 64KiB, 32k, 1MB, 4096)");
}

TEST_CASE("limits: useful time summed over threads past 2^63 ns keeps its value") {
    // Two threads Running for the whole 2^62 ns: 2^63 ns of useful time in all (it wrapped
    // around to a negative sum, printed as -0.00 %).
    const auto path = test::write_file(
        test::scratch_dir("limits_useful_sum") / "long.prv",
        "#Paraver (01/01/2026 at 00:00):4611686018427387904_ns:1(2):1:2(1:1,1:1),1\n"
        "c:1:1:2:1:2\n1:1:1:1:1:0:4611686018427387904:1\n1:2:1:2:1:0:4611686018427387904:1\n");
    const auto r = run_popsim("analyze " + path + " --quiet --no-color");
    CHECK(r.status == 0);
    CHECK(test::table_row(r.output, "Parallel efficiency") == test::Cells{"100.00%"});
    CHECK(test::table_row(r.output, "Load balance") == test::Cells{"100.00%"});
}

TEST_CASE("limits: a .dim message of 2^64-1 bytes is an error on a finite bandwidth") {
    const auto path = test::write_file(test::scratch_dir("limits_dim") / "huge.dim",
                                       "#DIMEMAS:\"t\":1,000000000000:2(1,1),0\n"
                                       "2:0:0:1:-1:18446744073709551615:0:1:0\n"
                                       "3:1:0:0:-1:18446744073709551615:0:1:0\n");
    CHECK(run_popsim("simulate " + path + " --quiet").status == 0); // the ideal network
    test::check_fails("simulate " + path + " --quiet --bandwidth 1GB/s --tasks-per-node 1", 2,
                      path + ": a transfer of 18446744073709551616 bytes at 953.674 MB/s lasts "
                             "1.84467e+19 ns, past 2^62/256 ns (208 days), the longest time "
                             "popsim replays where it counts fractions of a ns: an input out of "
                             "range?");
}

TEST_CASE("limits: undefined efficiencies are shown as - with the reason, never as 0 or nan") {
    const auto dir = test::scratch_dir("limits_undefined");
    const auto zero = test::write_file(dir / "zero.prv",
                                       "#Paraver (01/01/2026 at 00:00):0_ns:1(2):1:2(1:1,1:1),1\n"
                                       "c:1:1:2:1:2\n");
    const auto html = (dir / "zero.html").string(), json = (dir / "zero.json").string();
    const auto r = run_popsim("analyze " + zero + " --no-color --html " + html + " --json " + json);
    CHECK(r.status == 0);
    CHECK(r.output.find("popsim: warning: " + zero +
                        ": the trace lasts 0 ns: its efficiencies and scalings are undefined "
                        "(shown as -)\n") != std::string::npos);
    for (const char* row :
         {"Parallel efficiency", "Load balance", "Global efficiency", "Speedup"}) {
        CAPTURE(row);
        CHECK(test::table_row(r.output, row) == test::Cells{"-"});
    }
    CHECK(r.output.find("Per-rank breakdown") == std::string::npos); // no runtime to share
    std::ifstream in(html);
    const std::string page((std::istreambuf_iterator<char>(in)), {});
    CHECK(page.find("nan") == std::string::npos);
    CHECK(
        test::read_json(json)["traces"][0]["mpi_multiplicative"]["parallel_efficiency"].is_null());

    // No Running state: 0 % of the runtime is useful (defined), the balance of nothing is not.
    const auto idle = test::synth_trace("limits_idle", "ranks 2\n0 idle 1s\n1 idle 1s\n");
    const auto i = run_popsim("analyze " + idle + " --no-color");
    CHECK(i.output.find("popsim: warning: " + idle +
                        ": no thread is ever in the Running state (no useful computation): load "
                        "balance, the scalings and IPC are undefined (shown as -)\n") !=
          std::string::npos);
    CHECK(test::table_row(i.output, "Parallel efficiency") == test::Cells{"0.00%"});
    CHECK(test::table_row(i.output, "Load balance") == test::Cells{"-"});
}

TEST_CASE("limits: a series of unrelated runs is warned about") {
    // epoch on 2 ranks and LAMMPS on 4: Global efficiency 767.95 % without a word.
    const auto epoch = test::shared_data("epoch/epoch_2proc.prv.gz");
    const auto lammps = test::shared_data("lammps-melt/lammps_melt_4.prv.gz");
    const auto r = run_popsim("analyze " + epoch + " " + lammps + " --quiet --no-color");
    CHECK(r.output.find("mixed") == std::string::npos); // --quiet
    const auto loud = run_popsim("analyze " + epoch + " " + lammps + " --no-color");
    CHECK(loud.output.find("popsim: warning: " + lammps +
                           ": the series mixes runs of different programs or inputs: this run "
                           "has 0.0291 times the useful computation of " +
                           epoch +
                           " (the reference); its scalings and Global efficiency compare "
                           "unrelated runs\n") != std::string::npos);
    // A real series (epoch on 1 to 16 ranks) is not.
    std::string command = "analyze --no-color";
    for (int ranks : {1, 2, 4, 8, 16})
        command +=
            fmt::format(" {}", test::shared_data(fmt::format("epoch/epoch_{}proc.prv.gz", ranks)));
    CHECK(run_popsim(command).output.find("mixed") == std::string::npos);
}

TEST_CASE("limits: sizes are checked up front against --max-memory and the sweep limit") {
    const auto dir = test::scratch_dir("limits_sizes");
    // 150 bytes declaring 4194304 threads took 1.45 GB before reading a record.
    const auto many = test::write_file(
        dir / "many.prv",
        "#Paraver (01/01/2026 at 00:00):1000_ns:1(64):1:1(4194304:1)\n1:1:1:1:1:0:1000:1\n");
    const auto r = run_popsim("analyze " + many + " --max-memory 1GB");
    CHECK(r.status == 2);
    CHECK(r.output == "popsim: error: " + many +
                          ":1: the header declares 4194304 threads, which need about 1.7 GB "
                          "before any record is read; --max-memory is 1.0 GB (default: the "
                          "machine's memory)\n");
    const auto halo =
        run_popsim("synth --halo 1000000 -o " + (dir / "h.prv").string() + " --max-memory 1GB");
    CHECK(halo.status == 1);
    CHECK(halo.output == "popsim: error: --halo 1000000 --steps 100 needs about 170.0 GB of "
                         "memory; --max-memory is 1.0 GB (default: the machine's memory)\n");
    CHECK(!std::filesystem::exists(dir / "h.prv"));
    const auto threads = run_popsim("synth --halo 1000 --threads 8 -o " + (dir / "h.prv").string() +
                                    " --max-memory 1GB");
    CHECK(threads.status == 1); // 1000 x 100 steps x 8 threads x 1.7 KB
    CHECK(threads.output == "popsim: error: --halo 1000 --steps 100 needs about 1.4 GB of "
                            "memory; --max-memory is 1.0 GB (default: the machine's memory)\n");
    const auto description =
        test::synth_trace("cli_threads_description", "ranks 1\n0 compute 1s\n");
    CHECK(
        run_popsim("synth " + description + " --threads 2 -o " + (dir / "d.prv").string()).status ==
        1);
    std::string latencies, bandwidths;
    for (int i = 1; i <= 400; ++i) {
        latencies += fmt::format("{}{}us", i > 1 ? "," : "", i);
        bandwidths += fmt::format("{}{}MB/s", i > 1 ? "," : "", i);
    }
    const auto sweep = run_popsim("whatif " + test::shared_data("epoch/epoch_2proc.prv.gz") +
                                  " --latency " + latencies + " --bandwidth " + bandwidths);
    CHECK(sweep.status == 1);
    CHECK(sweep.output == "popsim: error: the sweep has more than 100000 configurations (each "
                          "is a whole replay): sweep fewer values at once\n");
}

TEST_CASE("limits: a pipe or /dev/stdin is read as a stream") {
    const auto trace = test::shared_data("epoch/epoch_2proc.prv.gz");
    for (const std::string& input : {"/dev/stdin < " + trace, "<(zcat " + trace + ")"}) {
        CAPTURE(input);
        const auto r = run_popsim("analyze " + input + " --quiet --no-color");
        CHECK(r.status == 0);
        CHECK(test::table_row(r.output, "Parallel efficiency") == test::Cells{"99.38%"});
    }
}

// ASan reserves terabytes of address space: ulimit -v breaks it. GCC says __SANITIZE_ADDRESS__,
// clang 14 __has_feature(address_sanitizer).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POPSIM_UNDER_ASAN
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(POPSIM_UNDER_ASAN)
TEST_CASE("limits: running out of memory names the trace (exit 3)") {
    const auto many = test::write_file(
        test::scratch_dir("limits_oom") / "many.prv",
        "#Paraver (01/01/2026 at 00:00):1000_ns:1(64):1:1(4194304:1)\n1:1:1:1:1:0:1000:1\n");
    const auto r =
        test::run_shell("ulimit -v 1000000; " + std::string(POPSIM_BINARY) + " analyze " + many);
    CHECK(r.status == 3);
    CHECK(r.output == "popsim: error: " + many +
                          ": out of memory while reading the trace (the memory of the machine or "
                          "the process limit, ulimit -v, is too small for it)\n");
}
#endif

TEST_CASE("limits: a file name that is not UTF-8 is written to JSON with U+FFFD") {
    const auto dir = test::scratch_dir("limits_utf8");
    const auto trace = (dir / "\xff\xfe.prv.gz").string();
    std::filesystem::copy_file(test::shared_data("epoch/epoch_2proc.prv.gz"), trace);
    const auto json = (dir / "out.json").string();
    CHECK(run_popsim("analyze '" + trace + "' --quiet --json " + json).status == 0);
    CHECK(test::read_json(json)["traces"][0]["path"] ==
          (dir / "\xef\xbf\xbd\xef\xbf\xbd.prv.gz").string());
}

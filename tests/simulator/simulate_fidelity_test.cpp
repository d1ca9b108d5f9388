// SPDX-License-Identifier: BSD-3-Clause
// simulate -o keeps what the original trace holds, as Dimemas' simulated trace does: every event
// of the analysed application (MPI calls and their attributes, hardware counters, callers, user
// functions) on the same threads, the .pcf's names, the date. The expected counts come from the
// original file itself, counted by awk, not by popsim's reader.
#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/output/simulated_trace.hpp"
#include "replay/trace_error.hpp"
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

using namespace popsim;

namespace {

/// What the awk `program` (fields split at ':') prints over the trace's lines, sorted.
std::string awk_over(const std::string& prv, const std::string& program) {
    const auto r = test::run_shell(fmt::format("zcat -f {} | awk -F: '{}' | sort", prv, program));
    REQUIRE(r.status == 0);
    return r.output;
}

/// "TYPE COUNT" lines: how many values of each event type the trace's event records hold.
std::string event_counts(const std::string& prv) {
    return awk_over(prv, "$1 == 2 { for (i = 7; i < NF; i += 2) n[$i]++ } END { for (t in n) "
                         "print t, n[t] }");
}

/// The same per thread ("TASK.THREAD TYPE COUNT") for the types given.
std::string event_counts_per_thread(const std::string& prv, const std::string& types) {
    return awk_over(prv, fmt::format("BEGIN {{ split(\"{}\", k, \" \"); for (i in k) want[k[i]] "
                                     "= 1 }} $1 == 2 {{ for (i = 7; i < NF; i += 2) if ($i in "
                                     "want) n[$4 \".\" $5 \" \" $i]++ }} END {{ for (t in n) "
                                     "print t, n[t] }}",
                                     types));
}

/// "PAIRS COUNT" lines: how many event records hold each number of pairs, but popsim's critical
/// path's.
std::string event_lines_by_pairs(const std::string& prv) {
    return awk_over(prv, "$1 == 2 && $7 != 91000001 { n[(NF - 6) / 2]++ } END { for (k in n) "
                         "print k, n[k] }");
}

} // namespace

TEST_CASE("simulate fidelity: every event, the .pcf's names and the date of the original") {
    const auto original = test::shared_data("epoch/epoch_4proc.prv.gz");
    const auto dir = test::scratch_dir("simulate_fidelity");
    const auto sim = (dir / "sim.prv").string();
    REQUIRE(test::run_popsim(fmt::format("simulate --quiet {} -o {}", original, sim)).status == 0);
    // Every event type, as many values as in the original (33 types: MPI calls, collective
    // attributes, 20 hardware counters, callers 70000001-3 and their lines 80000001-3, ...).
    const auto counts = event_counts(original);
    CHECK(std::count(counts.begin(), counts.end(), '\n') == 33);
    // ... and popsim's critical path (event 91000001), which the original lacks.
    auto simulated = event_counts(sim);
    const auto critical_path = simulated.find("91000001 ");
    REQUIRE(critical_path != std::string::npos);
    simulated.erase(critical_path, simulated.find('\n', critical_path) + 1 - critical_path);
    CHECK(simulated == counts);
    // Counters and callers on the same threads as in the original.
    const std::string types = "42000050 42000059 70000001 80000001 50000002";
    CHECK(event_counts_per_thread(sim, types) == event_counts_per_thread(original, types));
    // The .pcf names every function, caller and counter the original names.
    const std::string pcf = test::read_file(dir / "sim.pcf");
    std::istringstream lines(test::read_file(test::shared_data("epoch/epoch_4proc.pcf")));
    std::size_t named = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        CAPTURE(line);
        CHECK(pcf.find(line) != std::string::npos);
        ++named;
    }
    CHECK(named > 1000);
    // The pairs of one original record stay one record: as many event lines of each length as
    // the original, besides the critical path's lines (one pair each).
    const auto original_lines = event_lines_by_pairs(original);
    CHECK(std::count(original_lines.begin(), original_lines.end(), '\n') > 3);
    CHECK(event_lines_by_pairs(sim) == original_lines);
    // The original's date, not a fixed one.
    CHECK(test::read_file(sim).starts_with("#Paraver (09/10/2019 at 16:08):"));
    // The simulated trace reads back as the ideal run: Transfer 100 %, the original's
    // Serialisation.
    const auto r = test::run_popsim(fmt::format("analyze --quiet --no-replay {}", sim));
    CHECK(test::table_row(r.output, "Runtime (s)") == test::Cells{"6.051059"});
}

TEST_CASE("simulate fidelity: a window carries the events inside it") {
    const auto original = test::shared_data("epoch/epoch_2proc.prv.gz");
    const auto sim = (test::scratch_dir("simulate_fidelity_window") / "w.prv").string();
    REQUIRE(
        test::run_popsim(fmt::format("simulate --quiet {} --from 2s --to 4s -o {}", original, sim))
            .status == 0);
    const auto r = test::run_popsim(fmt::format("analyze --quiet --no-replay {}", sim));
    CHECK(r.status == 0);
    // The MPI calls of the window open and close in the simulated trace as in the original.
    CHECK(event_counts(sim).find("50000001 ") != std::string::npos);
}

TEST_CASE("simulate fidelity: a window's simulated trace reads back as a cut of it") {
    // prime's window [1.5 s, 1.6 s) holds an MPI_Reduce that 2 of the 16 tasks call inside it:
    // without the cut's marks its simulated trace was refused ("called by 2 of its 16 tasks").
    const auto original = test::shared_data("prime/MPItraces_prime_v0.prv.gz");
    const auto sim = (test::scratch_dir("simulate_fidelity_cut") / "w.prv").string();
    const auto simulated = test::run_popsim(
        fmt::format("simulate --quiet {} --from 1.5s --to 1.6s -o {}", original, sim));
    REQUIRE(simulated.status == 0);
    CHECK(test::read_file(sim).find(":CUTTER:ORIGINAL:\"" + original + "\":") != std::string::npos);
    const auto r = test::run_popsim(fmt::format("analyze --quiet --no-color {}", sim));
    CHECK(r.status == 0);
    // On the ideal network already, the simulated run analyses as simulate predicted it.
    CHECK(simulated.output.find("PE 47.63%") != std::string::npos);
    CHECK(test::table_row(r.output, "Parallel efficiency") == test::Cells{"47.63%"});
}

TEST_CASE("simulate fidelity: a trace that changes between its two reads writes nothing") {
    // Issue 35, item 3: simulate -o reads the trace again for its events; a file changed in
    // between was carried half into the simulated trace, reported written, exit 0.
    const auto original_path = test::synth_trace(
        "sim_changed", "ranks 2\n0 compute 1s\n0 Send 1us to=1\n1 Recv 2s from=0\n");
    const auto original = test::read_quiet(original_path);
    const auto program = replay::build_replay_program(original);
    replay::network::IdealNetwork ideal;
    const auto result = replay::replay_events(program, ideal);
    const auto out = (test::scratch_dir("sim_changed_out") / "sim.prv").string();
    std::ofstream(original_path, std::ios::app) << "2:0:1:1:1:1000:40000001:0\n";
    CHECK_THROWS_WITH_AS(replay::write_simulated_paraver(original, program, result, out),
                         (original_path +
                          ": changed while it was being simulated (its size, modification time or "
                          "inode differ from the first read's): its events cannot be carried into "
                          "the simulated trace; nothing was written")
                             .c_str(),
                         replay::TraceError);
    CHECK_FALSE(std::filesystem::exists(out));
}

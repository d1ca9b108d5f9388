// SPDX-License-Identifier: BSD-3-Clause
// Issue 19: Paraver traces written as OTF2 archives (popsim convert, simulate -o x.otf2). What
// the archive holds is checked in otf2-print's listing (Debian's otf2-tools) against values worked
// out by hand from the Paraver records; popsim reading an archive back must give the Paraver
// trace's metrics, ideal runtime and names.
#include "replay/input/paraver_reader.hpp"
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

using namespace popsim;

namespace {

/// A ping-pong's first half by hand: rank 1 sends 64 bytes with tag 7 in MPI_Send [100, 300) ns,
/// rank 2 receives them in MPI_Recv [150, 400); both run until 1000 ns. Instructions and cycles
/// are read at every call's entry and exit and at the end.
constexpr const char* k_ping = R"(#Paraver (24/11/2026 at 12:00):1000_ns:1(2):1:2(1:1,1:1),1
c:1:1:2:1:2
1:1:1:1:1:0:100:1
2:1:1:1:1:0:42000050:0:42000059:0
1:1:1:1:1:100:300:4
2:1:1:1:1:100:50000001:1:42000050:500:42000059:1000
3:1:1:1:1:100:100:2:1:2:1:150:400:64:7
1:2:1:2:1:0:150:1
2:2:1:2:1:0:42000050:0:42000059:0
1:2:1:2:1:150:400:3
2:2:1:2:1:150:50000001:2:42000050:700:42000059:1400
1:1:1:1:1:300:1000:1
2:1:1:1:1:300:50000001:0:42000050:10:42000059:30
1:2:1:2:1:400:1000:1
2:2:1:2:1:400:50000001:0:42000050:20:42000059:40
2:1:1:1:1:1000:42000050:900:42000059:1800
2:2:1:2:1:1000:42000050:600:42000059:1200
)";

bool have_otf2_print() {
    return test::run_shell("command -v otf2-print").status == 0;
}

/// otf2-print's listing of `anchor`'s events, one line each with its columns single-spaced.
std::vector<std::string> listing(const std::string& anchor) {
    const auto r = test::run_shell("otf2-print " + anchor);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("warning") == std::string::npos); // e.g. definitions out of order
    std::vector<std::string> lines;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);) {
        std::string single;
        for (char c : line)
            if (c != ' ' || (!single.empty() && single.back() != ' ')) single += c;
        lines.push_back(single);
    }
    return lines;
}

bool listed(const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

/// `popsim analyze TRACE --json`, less what names the trace, the machine and the run.
nlohmann::json report(const std::string& trace, const std::filesystem::path& dir,
                      const std::string& name) {
    const auto json = (dir / (name + ".json")).string();
    const auto r = test::run_popsim("analyze --quiet " + trace + " --csv " +
                                    (dir / (name + ".csv")).string() + " --json " + json);
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(test::read_file(json));
    for (const char* key : {"command", "peak_memory_bytes"}) j.erase(key);
    for (auto& t : j["traces"])
        for (const char* key : {"label", "path", "analysis_pass"}) t.erase(key);
    return j;
}

} // namespace

TEST_CASE("otf2 writer: a ping-pong's archive, as otf2-print lists it") {
    if (!have_otf2_print()) return; // ./dev installs otf2-tools; CI has it
    const auto dir = test::scratch_dir("otf2_write_ping");
    const auto prv = test::write_file(dir / "ping.prv", k_ping);
    const auto anchor = (dir / "ping.otf2").string();
    const auto r = test::run_popsim("convert " + prv + " " + anchor);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("wrote " + anchor + " (2 locations, 34 events, 1 messages)") !=
          std::string::npos);
    const auto lines = listing(anchor);
    // Location 0 is rank 1's thread: Running, then MPI_Send with its message and its state.
    CHECK(listed(lines, "ENTER 0 0 Region: \"Running\" <1>"));
    CHECK(listed(lines, "LEAVE 0 100 Region: \"Running\" <1>"));
    CHECK(listed(lines, "ENTER 0 100 Region: \"MPI_Send\" <0>"));
    CHECK(listed(lines, "MPI_SEND 0 100 Receiver: 1 (\"THREAD 1.2.1\" <1>), Communicator: "
                        "\"MPI_COMM_WORLD\" <0>, Tag: 7, Length: 64"));
    CHECK(listed(lines, "ENTER 0 100 Region: \"Blocking Send\" <2>")); // Extrae's state 4
    CHECK(listed(lines, "LEAVE 0 300 Region: \"MPI_Send\" <0>"));
    // Location 1 receives at the exit of its MPI_Recv, before leaving it.
    CHECK(listed(lines, "ENTER 1 150 Region: \"MPI_Recv\" <3>"));
    CHECK(listed(lines, "MPI_RECV 1 400 Sender: 0 (\"THREAD 1.1.1\" <0>), Communicator: "
                        "\"MPI_COMM_WORLD\" <0>, Tag: 7, Length: 64"));
    CHECK(listed(lines, "LEAVE 1 400 Region: \"MPI_Recv\" <3>"));
    // Counters accumulate the reads: rank 1's instructions 0 + 500 + 10 + 900, cycles
    // 0 + 1000 + 30 + 1800; rank 2's 0 + 700 + 20 + 600.
    CHECK(listed(lines, "METRIC 0 300 Metric: 0, 1 Value: (\"PAPI_TOT_INS\" <0>; UINT64; 510)"));
    CHECK(listed(lines, "METRIC 0 1000 Metric: 0, 1 Value: (\"PAPI_TOT_INS\" <0>; UINT64; 1410)"));
    CHECK(listed(lines, "METRIC 0 1000 Metric: 1, 1 Value: (\"PAPI_TOT_CYC\" <1>; UINT64; 2830)"));
    CHECK(listed(lines, "METRIC 1 1000 Metric: 0, 1 Value: (\"PAPI_TOT_INS\" <0>; UINT64; 1320)"));
    // Read back, the archive is the Paraver trace: useful instructions are the reads at the ends
    // of Running spans, 500 + 900 + 700 + 600; its runtime is the header's 1000 ns.
    const auto back = test::run_popsim("analyze --quiet --no-color " + anchor);
    REQUIRE(back.status == 0);
    CHECK(test::table_row(back.output, "Useful instructions (total)") == test::Cells{"2700"});
    CHECK(test::table_row(back.output, "Runtime (s)") == test::Cells{"0.000001"});
    auto back_report = report(anchor, dir, "back"), original = report(prv, dir, "original");
    original["traces"][0].erase("warnings"); // the trace's: it has no .pcf, no .row
    back_report["traces"][0].erase("warnings");
    CHECK(back_report == original);
}

TEST_CASE("otf2 writer: Paraver -> OTF2 -> popsim gives the same CSV and ideal runtime") {
    // Must-show 3: epoch 1-16 ranks, both LAMMPS runs and the MPI+OpenMP HPCG run.
    const auto dir = test::scratch_dir("otf2_round_trips");
    std::vector<std::string> traces;
    for (const int ranks : {1, 2, 4, 8, 16})
        traces.push_back(test::shared_data(fmt::format("epoch/epoch_{}proc.prv.gz", ranks)));
    for (const int ranks : {2, 4})
        traces.push_back(
            test::shared_data(fmt::format("lammps-melt/lammps_melt_{}.prv.gz", ranks)));
    traces.push_back(test::shared_data("hpcg-hybrid/hpcg_2x2.prv.gz"));
    for (const auto& trace : traces) {
        CAPTURE(trace);
        const auto name = std::filesystem::path(trace).stem().stem().string();
        const auto anchor = (dir / (name + ".otf2")).string();
        REQUIRE(test::run_popsim("convert --quiet " + trace + " " + anchor).status == 0);
        if (have_otf2_print())
            CHECK(test::run_shell("otf2-print " + anchor + " > /dev/null").output.empty());
        const auto original = report(trace, dir, name + ".prv");
        const auto back = report(anchor, dir, name + ".otf2");
        CHECK(test::read_file((dir / (name + ".otf2.csv")).string()) ==
              test::read_file((dir / (name + ".prv.csv")).string()));
        CHECK(back["traces"][0]["ideal"]["runtime_ns"] ==
              original["traces"][0]["ideal"]["runtime_ns"]);
        CHECK(back == original); // every number, warning and region name
    }
    // The MPI+OpenMP run keeps its 2 ranks x 2 threads and its parallel regions' names.
    const auto hpcg = replay::read_paraver((dir / "hpcg_2x2.otf2").string());
    CHECK(hpcg.thread_count() == 4);
    CHECK(hpcg.task_count() == 2);
    bool named = false;
    for (const auto& l : hpcg.labels.event_values)
        named = named || (l.type == 60000018 && l.name.starts_with("ComputeSPMV_ref"));
    CHECK(named);
}

TEST_CASE("otf2 writer: simulate -o x.otf2 holds the simulated run, as -o x.prv does") {
    const auto trace = test::synth_trace("otf2_simulated", test::k_late_sender_chain);
    const auto dir = std::filesystem::path(trace).parent_path();
    const auto otf2 = (dir / "sim.otf2").string(), prv = (dir / "sim.prv").string();
    REQUIRE(test::run_popsim("simulate --quiet " + trace + " --latency 1us -o " + otf2).status ==
            0);
    REQUIRE(test::run_popsim("simulate --quiet " + trace + " --latency 1us -o " + prv).status == 0);
    if (have_otf2_print()) listing(otf2);
    CHECK(report(otf2, dir, "otf2") == report(prv, dir, "prv"));
}

TEST_CASE("otf2 writer: what convert refuses, and what it leaves behind") {
    const auto dir = test::scratch_dir("otf2_write_errors");
    const auto prv = test::write_file(dir / "ping.prv", k_ping);
    // An archive is read, not converted again.
    const auto ping_pong = test::shared_data("otf2/pipit-ping-pong/traces.otf2");
    const auto again = test::run_popsim("convert " + ping_pong + " " + (dir / "x.otf2").string());
    CHECK(again.status == 2);
    CHECK(again.output.find("is an OTF2 archive already") != std::string::npos);
    // A folder of the archive's name that is not an archive's is in the way, and is kept.
    std::filesystem::create_directory(dir / "mine");
    test::write_file(dir / "mine" / "notes.txt", "keep me");
    const auto blocked = test::run_popsim("convert " + prv + " " + (dir / "mine.otf2").string());
    CHECK(blocked.status == 3);
    CHECK(blocked.output.find("mine is in the way") != std::string::npos);
    CHECK(test::read_file((dir / "mine" / "notes.txt").string()) == "keep me");
    CHECK(!std::filesystem::exists(dir / "mine.otf2"));
    // An earlier archive of the name is replaced whole; no partial files are left.
    const auto anchor = (dir / "ping.otf2").string();
    REQUIRE(test::run_popsim("convert " + prv + " " + anchor).status == 0);
    test::write_file(dir / "ping" / "stale.evt", "from an earlier archive");
    REQUIRE(test::run_popsim("convert " + prv + " " + anchor).status == 0);
    CHECK(!std::filesystem::exists(dir / "ping" / "stale.evt"));
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
    CHECK(entries == 5); // ping.prv, ping.otf2, ping.def, ping/, mine/
    // A folder that does not exist: refused before any work.
    const auto missing =
        test::run_popsim("convert " + prv + " " + (dir / "no" / "x.otf2").string());
    CHECK(missing.status == 2);
}

TEST_CASE("otf2 writer: an archive converted to Paraver analyses as the archive does") {
    const auto dir = test::scratch_dir("otf2_to_paraver");
    const auto csv = [&](const std::string& trace, const std::string& name) {
        const auto path = (dir / (name + ".csv")).string();
        REQUIRE(test::run_popsim("analyze --quiet " + trace + " --csv " + path).status == 0);
        return test::read_file(path);
    };
    // A Score-P archive (MPI+OpenMP, 2 ranks x 4 threads) and its Paraver conversion.
    const auto scorep = test::shared_data("otf2/casita-2_jacobi_blame_cpu_015/traces.otf2");
    const auto jacobi = (dir / "jacobi.prv").string();
    REQUIRE(test::run_popsim("convert --quiet " + scorep + " " + jacobi).status == 0);
    CHECK(std::filesystem::exists(dir / "jacobi.pcf"));
    CHECK(std::filesystem::exists(dir / "jacobi.row"));
    CHECK(csv(jacobi, "jacobi_prv") == csv(scorep, "jacobi_otf2"));
    // Paraver -> OTF2 -> Paraver: the same report as the original.
    const auto epoch = test::shared_data("epoch/epoch_2proc.prv.gz");
    const auto anchor = (dir / "epoch.otf2").string(), back = (dir / "epoch.prv").string();
    REQUIRE(test::run_popsim("convert --quiet " + epoch + " " + anchor).status == 0);
    REQUIRE(test::run_popsim("convert --quiet " + anchor + " " + back).status == 0);
    CHECK(csv(back, "epoch_back") == csv(epoch, "epoch_original"));
    // A Paraver trace is one already.
    const auto again = test::run_popsim("convert " + epoch + " " + (dir / "x.prv").string());
    CHECK(again.status == 2);
    CHECK(again.output.find("is a Paraver trace already") != std::string::npos);
}

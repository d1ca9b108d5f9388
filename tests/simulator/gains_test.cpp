// SPDX-License-Identifier: BSD-3-Clause
// analyze --gains (issue 38, item 2) on a run computed by hand: rank 0 computes 6 ms in user
// function 1, then 2 ms, then a Barrier; rank 1 computes 2 ms in function 2 and 2 ms more, then
// waits in the Barrier until 9 ms. Useful 8 and 4 ms (average 6, LB 75 %); the ideal network
// takes 8 ms (TE 8/9), and its critical path is rank 0's: function 1 has 6 ms on it, function 2
// none.
//   ideal network: 8 ms, 1 ms saved (11.11 %), TE 88.89 % -> 100 %;
//   balanced computation: 6 ms each before the Barrier, 6 ms ideal, 9 - (8 - 6) = 7 ms, 2 ms
//     saved (22.22 %), LB 100 %, PE 6/7;
//   function 1 2x faster: rank 0 computes 3 + 2 ms, 5 ms ideal, 9 - 3 = 6 ms, 3 ms saved
//     (33.33 %); useful 5 and 4 ms: -25 %, LB 90 %, PE 4.5/6 = 75 %, TE 5/6;
//   function 1's computation balanced: its 6 ms shared, 3 ms each: 5 and 7 ms, 7 ms ideal,
//     8 ms traced (as the ideal network, after it), LB 6/7.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <tuple>

using namespace popsim;

namespace {

/// A Dimemas configuration of `nodes` nodes, a task on each, no latency, `bandwidth` MB/s
/// between nodes (0.0: unlimited), unlimited buses, then `more` records.
std::string network_cfg(const std::filesystem::path& path, int nodes, const char* bandwidth,
                        const std::string& more = "") {
    return test::write_file(
        path, fmt::format("#DIMEMAS_CONFIGURATION\n"
                          "\"environment information\" {{\"\", 0, \"\", {0}, {1}, 0, 1}};;\n"
                          "\"multi node information\" {{0, {0}, \"\", 1, 1.0, 0.0, 0.0, 0, 1, 0, "
                          "0.0, 1, 1, 0.0}};;\n"
                          "\"predefined mapping information\" {{\"1 TASKS_PER_NODE\"}};;\n{2}",
                          nodes, bandwidth, more));
}

} // namespace

TEST_CASE("gains: candidate fixes ranked by the time they save, with what they move") {
    const auto trace = test::synth_trace(
        "gains_hand", "ranks 2\n0 event 60000019 1\n0 compute 6ms\n0 event 60000019 0\n"
                      "0 compute 2ms\n0 Barrier 1ms\n"
                      "1 event 60000019 2\n1 compute 2ms\n1 event 60000019 0\n1 compute 2ms\n"
                      "1 Barrier 5ms\n");
    const auto dir = test::scratch_dir("gains_hand_out");
    const auto json = (dir / "a.json").string(), csv = (dir / "g.csv").string(),
               html = (dir / "a.html").string();
    const auto r = test::run_popsim(
        fmt::format("analyze {} --gains --no-colour --json {} --gains-csv {} --html {}", trace,
                    json, csv, html));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    CHECK(r.output.find("\n1 60000019:1 (own computation) 2x faster    0.006000  0.003000 33.33% "
                        "75.00% useful -25.0%, LB 75.00% -> 90.00%\n") != std::string::npos);
    CHECK(r.output.find("\n3                          ideal network    0.008000  0.001000 11.11% "
                        "75.00%               TE 88.89% -> 100.00%\n") != std::string::npos);
    const auto j = test::read_json(json)["traces"][0]["gains"];
    CHECK(j["runtime_ns"] == 9'000'000);
    CHECK(j["ideal_runtime_ns"] == 8'000'000);
    REQUIRE(j["fixes"].size() == 4); // function 2 is not on the critical path
    const auto& speedup = j["fixes"][0];
    CHECK(speedup["kind"] == "speedup");
    CHECK(speedup["region"] == "60000019:1");
    CHECK(speedup["ideal_runtime_ns"] == 5'000'000);
    CHECK(speedup["runtime_ns"] == 6'000'000);
    CHECK(speedup["saved_ns"] == 3'000'000);
    CHECK(speedup["useful_change"].get<double>() == doctest::Approx(-0.25));
    CHECK(speedup["efficiencies"]["load_balance"].get<double>() == doctest::Approx(0.9));
    CHECK(speedup["efficiencies"]["parallel_efficiency"].get<double>() == doctest::Approx(0.75));
    CHECK(speedup["efficiencies"]["transfer_efficiency"].get<double>() == doctest::Approx(5.0 / 6));
    const auto& balance = j["fixes"][1];
    CHECK(balance["kind"] == "balance");
    CHECK(balance["ideal_runtime_ns"] == 6'000'000);
    CHECK(balance["runtime_ns"] == 7'000'000);
    CHECK(balance["efficiencies"]["load_balance"].get<double>() == doctest::Approx(1.0));
    CHECK(balance["efficiencies"]["parallel_efficiency"].get<double>() == doctest::Approx(6.0 / 7));
    CHECK(balance["moves"] == "LB 75.00% -> 100.00%");
    const auto& network = j["fixes"][2];
    CHECK(network["kind"] == "network");
    CHECK(network["runtime_ns"] == 8'000'000);
    CHECK(network["saved_fraction"].get<double>() == doctest::Approx(1.0 / 9));
    CHECK(network["moves"] == "TE 88.89% -> 100.00%");
    const auto& region_balance = j["fixes"][3];
    CHECK(region_balance["fix"] == "computation of 60000019:1 balanced");
    CHECK(region_balance["kind"] == "balance");
    CHECK(region_balance["region"] == "60000019:1");
    CHECK(region_balance["ideal_runtime_ns"] == 7'000'000);
    CHECK(region_balance["runtime_ns"] == 8'000'000);
    CHECK(region_balance["efficiencies"]["load_balance"].get<double>() == doctest::Approx(6.0 / 7));
    const auto rows = test::read_file(csv);
    CHECK(rows.starts_with(
        "run,rank,fix,kind,region,runtime_ns,ideal_runtime_ns,network_runtime_ns,saved_ns,"));
    CHECK(rows.find(",2,balanced computation,balance,,7000000,6000000,,2000000,0.222222,") !=
          std::string::npos);
    CHECK(test::read_file(html).find("<h2>Gains: what to fix first</h2>") != std::string::npos);
}

TEST_CASE("gains: options that cannot go with it are refused") {
    const auto trace = test::synth_trace("gains_refused", "ranks 1\n0 compute 1ms\n");
    CHECK(test::run_popsim(fmt::format("analyze {} --gains --no-replay", trace)).status != 0);
    CHECK(test::run_popsim(fmt::format("analyze {} --gains-csv x.csv", trace)).status != 0);
    CHECK(test::run_popsim(fmt::format("analyze {} --gains --phases 60000019", trace)).status != 0);
    const auto dir = test::scratch_dir("gains_refused_cfg");
    const auto cfg = network_cfg(dir / "modules.cfg", 1, "0.0",
                                 "\"modules information\" {60000019, 1, 2.0};;\n");
    test::check_fails(fmt::format("analyze {} --gains-config {}", trace, cfg), 1,
                      "--gains-config replays the fixes of --gains: add it");
    test::check_fails(fmt::format("analyze {} --gains --gains-config {}", trace, cfg), 1,
                      "--gains-config " + cfg +
                          ": its \"modules information\" change the code, not the network; "
                          "--gains tries its own code fixes: give a configuration without "
                          "modules");
    CHECK(test::run_popsim(
              fmt::format("analyze {} --gains --gains-config {}/none.cfg", trace, dir.string()))
              .status == 2);
}

TEST_CASE("gains: on a model of the traced network, each fix saves what it saves there") {
    // Rank 0 computes 1 ms, sends 4096 bytes eagerly, computes 1 ms, waits in a Barrier; rank 1
    // computes 4 ms in function 1, receives (2 ms traced), then the Barrier: 7 ms traced, 4 ms
    // on the ideal network. The model (1 MB/s, Dimemas' 2^20 bytes) carries the message in
    // 3.90625 ms: it arrives at 4.90625 ms, after rank 1's computation (Dimemas 5.5.0 with the
    // LAMMPS ideal configuration at that bandwidth: 4906250 ns, with function 1 twice as fast
    // too). Each fix saves on the 7 ms what it saves on the model, never below its ideal runtime:
    //   ideal network: 4 ms, as without a model;
    //   function 1 twice as fast: the message still arrives at 4.90625 ms: 7 ms, none saved
    //     (without the model 7 - (4 - 2) = 5 ms);
    //   balanced: 3 ms each, rank 0 sends at 1.5 ms, 5.40625 ms modelled: 7.5 ms;
    //   function 1 balanced: 2 ms each, rank 0 sends at 2 ms, 5.90625 ms modelled: 8 ms.
    const auto trace = test::synth_trace(
        "gains_modelled", "ranks 2\n0 compute 1ms\n0 Isend 0ms to=1 size=4096 req=s\n"
                          "0 compute 1ms\n0 Wait 0ms req=s\n0 Barrier 5ms\n"
                          "1 event 60000019 1\n1 compute 4ms\n1 event 60000019 0\n"
                          "1 Recv 2ms from=0 size=4096\n1 Barrier 1ms\n");
    const auto dir = test::scratch_dir("gains_modelled_out");
    const auto cfg = network_cfg(dir / "net.cfg", 2, "1.0");
    const auto json = (dir / "a.json").string(), csv = (dir / "g.csv").string();
    const auto r = test::run_popsim(
        fmt::format("analyze {} --gains --gains-config {} --no-colour --json {} --gains-csv {}",
                    trace, cfg, json, csv));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    const auto g = test::read_json(json)["traces"][0]["gains"];
    CHECK(g["runtime_ns"] == 7'000'000);
    CHECK(g["ideal_runtime_ns"] == 4'000'000);
    CHECK(g["network"]["config"] == cfg);
    CHECK(g["network"]["runtime_ns"] == 4'906'250);
    const std::vector<std::tuple<std::string, long long, long long, long long>> expected{
        {"ideal network", 4'000'000, 4'000'000, 4'000'000},
        {"60000019:1 (own computation) 2x faster", 2'000'000, 4'906'250, 7'000'000},
        {"balanced computation", 3'000'000, 5'406'250, 7'500'000},
        {"computation of 60000019:1 balanced", 4'000'000, 5'906'250, 8'000'000}};
    REQUIRE(g["fixes"].size() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
        const auto& [fix, ideal, modelled, runtime] = expected[k];
        CAPTURE_BINDING(fix);
        CHECK(g["fixes"][k]["fix"] == fix);
        CHECK(g["fixes"][k]["ideal_runtime_ns"] == ideal);
        CHECK(g["fixes"][k]["network_runtime_ns"] == modelled);
        CHECK(g["fixes"][k]["runtime_ns"] == runtime);
    }
    CHECK(r.output.find("#                                    fix modelled (s) runtime (s) saved "
                        "(s)   saved     PE") != std::string::npos);
    CHECK(test::read_file(csv).find(",2,60000019:1 (own computation) 2x faster,speedup,"
                                    "60000019:1,7000000,2000000,4906250,0,0.000000,") !=
          std::string::npos);
}

TEST_CASE("gains: a region's own computation is sped up, its callees apart") {
    // Rank 0: function 1 computes 2 ms, calls function 2 (6 ms), computes 1 ms more; rank 1
    // computes 1 ms. Ideal 9 ms, traced 10 ms. Function 2 twice as fast: 2 + 3 + 1 = 6 ms ideal,
    // 7 ms traced; function 1's own 3 ms twice as fast: 1 + 6 + 0.5 = 7.5 ms ideal, 8.5 ms traced
    // (with its callee it would be 4.5 ms: the same as speeding up everything).
    const auto trace = test::synth_trace(
        "gains_nested", "ranks 2\n0 event 60000019 1\n0 compute 2ms\n0 event 60000019 2\n"
                        "0 compute 6ms\n0 event 60000019 0\n0 compute 1ms\n0 event 60000019 0\n"
                        "0 Barrier 1ms\n1 compute 1ms\n1 Barrier 9ms\n");
    const auto json = (test::scratch_dir("gains_nested_out") / "a.json").string();
    REQUIRE(
        test::run_popsim(fmt::format("analyze {} --gains --quiet --json {}", trace, json)).status ==
        0);
    const auto fixes = test::read_json(json)["traces"][0]["gains"]["fixes"];
    // Balancing function 2's 6 ms (3 ms each: 6 and 4 ms) or function 1's own 3 ms (7.5 and
    // 2.5 ms) ties with speeding each up; ties keep the order balance, then speed-up.
    REQUIRE(fixes.size() == 6);
    CHECK(fixes[0]["fix"] == "balanced computation"); // 9 + 1 ms: 5 ms each, 10 - 4 traced
    CHECK(fixes[0]["runtime_ns"] == 6'000'000);
    CHECK(fixes[1]["fix"] == "computation of 60000019:2 balanced");
    CHECK(fixes[1]["runtime_ns"] == 7'000'000);
    CHECK(fixes[2]["fix"] == "60000019:2 (own computation) 2x faster");
    CHECK(fixes[2]["runtime_ns"] == 7'000'000);
    CHECK(fixes[3]["fix"] == "computation of 60000019:1 balanced");
    CHECK(fixes[3]["runtime_ns"] == 8'500'000);
    CHECK(fixes[4]["fix"] == "60000019:1 (own computation) 2x faster");
    CHECK(fixes[4]["ideal_runtime_ns"] == 7'500'000);
    CHECK(fixes[4]["runtime_ns"] == 8'500'000);
    CHECK(fixes[5]["kind"] == "network");
}

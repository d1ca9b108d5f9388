// SPDX-License-Identifier: BSD-3-Clause
// What whatif reports, checked against a run computed by hand: rank 0 computes 1 s, then sends
// 1 MiB (eager: --eager 2MiB) to rank 1, which computes 1 s and receives it. On a network of
// latency L and bandwidth B the message arrives at 1 s + L + 1 MiB / B (the sender's startup L,
// then the transfer; the receiver posted at 1 s + L); the ideal network gives 1 s; the traced run
// lasts 1.000001 s. Every rank is useful 1 s: PE = 1 s / runtime, LB = 1, TE = 1 s / runtime.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

using namespace popsim;

namespace {

/// Under `name`: each test case its own (CTest runs them at once).
std::string hand_computed_trace(const std::string& name) {
    return test::synth_trace(name, "ranks 2\n0 compute 1s\n0 Send 1us to=1 size=1048576\n"
                                   "1 compute 1s\n1 Recv 1us from=0 size=1048576\n");
}

} // namespace

TEST_CASE("whatif report: a sweep too wide for 80 columns stacks, configurations numbered") {
    // Issue 36, item 12: four swept parameters made 109-column lines on an 80-column terminal.
    const auto trace = hand_computed_trace("whatif_report_stacked");
    const auto r = test::run_at_80_columns("whatif", trace,
                                           "--quiet --no-colour --eager 2MiB --latency 0,1ms "
                                           "--bandwidth 100MiB/s,1000MiB/s --buses 1,2 "
                                           "--cpu-ratio 1,2");
    REQUIRE(r.status == 0);
    // Configuration 14: 1 ms, 1000 MiB/s, 1 bus, CPUs twice as fast: 0.5 s + 1 ms + 1 ms.
    CHECK(r.output.find("\n # | latency bandwidth buses cpu-ratio runtime (s) speed-up      PE"
                        "      LB\n") != std::string::npos);
    CHECK(r.output.find("\n14 |     1ms 1000MiB/s     1         2    0.502000   1.9920  99.60% "
                        "100.00%\n") != std::string::npos);
    CHECK(r.output.find("\n\n # |   CommE    SerE      TE\n") != std::string::npos);
    CHECK(r.output.find("\n14 |  99.60% 100.00%  99.60%\n") != std::string::npos);
}

TEST_CASE("whatif report: a typed column per swept parameter, the efficiencies on each network") {
    const auto trace = hand_computed_trace("whatif_report_columns");
    const auto dir = test::scratch_dir("whatif_report_out");
    const auto csv = (dir / "w.csv").string(), json = (dir / "w.json").string();
    const auto r = test::run_popsim(fmt::format(
        "whatif {} --quiet --eager 2MiB --latency 0,1ms --bandwidth 100MiB/s,1000MiB/s --buses 1 "
        "--csv {} --json {}",
        trace, csv, json));
    REQUIRE(r.status == 0);
    // The terminal: only the parameters that vary (buses has one value: said once above).
    CHECK(r.output.find("buses 1, links 1") != std::string::npos);
    CHECK(r.output.find("latency (swept), bandwidth (swept)") != std::string::npos);
    CHECK(r.output.find("latency bandwidth runtime (s) speed-up      PE      LB   CommE    SerE "
                        "     TE\n") != std::string::npos);
    CHECK(r.output.find("    1ms  100MiB/s    1.011000   0.9891  98.91% 100.00%  98.91% 100.00% "
                        " 98.91%\n") != std::string::npos);
    const auto fraction = test::run_popsim(fmt::format(
        "whatif {} --quiet --eager 2MiB --latency 0,1ms --bandwidth 100MiB/s --fraction", trace));
    CHECK(fraction.output.find("    1ms    1.011000   0.9891  0.9891  1.0000  0.9891  1.0000  "
                               "0.9891\n") != std::string::npos);
    // The CSV (popsim's own dialect, ',' as RFC 4180: issue 36, item 8): the latency and
    // bandwidth as typed, then every parameter in its base unit.
    const std::string rows = test::read_file(csv);
    CHECK(rows.starts_with("latency,bandwidth,latency_ns,bandwidth_bytes_per_s,buses,"
                           "tasks_per_node,cpu_ratio,predicted_runtime_ns,ideal_runtime_ns,speedup,"
                           "parallel_efficiency,load_balance,communication_efficiency,"
                           "serialization_efficiency,transfer_efficiency\n"));
    // 1 s + 0 + 1 MiB / (100 MiB/s) = 1.01 s; 1 s + 1 ms + 1 MiB / (1000 MiB/s) = 1.002 s.
    CHECK(rows.find("\n0,100MiB/s,0,104857600,1,1,1,1010000000,1000000000,0.990100,0.990099,"
                    "1.000000,0.990099,1.000000,0.990099\n") != std::string::npos);
    CHECK(rows.find("\n1ms,1000MiB/s,1000000,1048576000,1,1,1,1002000000,1000000000,0.998005,"
                    "0.998004,1.000000,0.998004,1.000000,0.998004\n") != std::string::npos);
    const auto j = test::read_json(json);
    REQUIRE(j["configurations"].size() == 4);
    const auto& c = j["configurations"][2]; // 1ms, 100MiB/s: the first parameter varies slowest
    CHECK(c["latency"] == "1ms");
    CHECK(c["latency_ns"] == 1000000);
    CHECK(c["bandwidth"] == "100MiB/s");
    CHECK(c["bandwidth_bytes_per_s"] == 104857600);
    CHECK(c["predicted_runtime_ns"] == 1011000000);
    CHECK(c["ideal_runtime_ns"] == 1000000000);
    CHECK(c["transfer_efficiency"].get<double>() == doctest::Approx(1.0 / 1.011));
    CHECK(c["serialization_efficiency"].get<double>() == doctest::Approx(1.0));
    // An infinite bandwidth has no number: null in the JSON, inf in the CSV.
    REQUIRE(test::run_popsim(fmt::format("whatif {} --quiet --eager 2MiB --bandwidth 1GB/s,inf "
                                         "--csv {} --json {}",
                                         trace, csv, json))
                .status == 0);
    CHECK(test::read_json(json)["configurations"][1]["bandwidth_bytes_per_s"].is_null());
    CHECK(test::read_file(csv).find("\ninf,0,inf,") != std::string::npos);
}

TEST_CASE("whatif report: the HTML charts runtime and efficiency against each swept parameter") {
    const auto trace = hand_computed_trace("whatif_report_charts");
    const auto html = (test::scratch_dir("whatif_report_html") / "w.html").string();
    REQUIRE(test::run_popsim(fmt::format("whatif {} --quiet --eager 2MiB --latency 0,1us,10us "
                                         "--bandwidth 100MiB/s,inf --html {}",
                                         trace, html))
                .status == 0);
    const std::string page = test::read_file(html);
    // A section per swept parameter, on a log axis, one line per value of the other one, the
    // real run and the ideal network as reference lines.
    for (const char* text :
         {"<h2>Against latency</h2>", "<h2>Against bandwidth</h2>", ">latency (log scale)</text>",
          ">bandwidth (log scale)</text>", ">bandwidth 100MiB/s</text>", ">bandwidth inf</text>",
          ">latency 10us</text>", ">real run</text>", ">ideal network</text>",
          ">Predicted runtime</text>", ">Parallel efficiency</text>", ">runtime (s)</text>"}) {
        CAPTURE(text);
        CHECK(page.find(text) != std::string::npos);
    }
    // The runtime axis spans the runtimes (1 s to 1.01 s), not 0 to 1.01 s: no tick at 0.
    CHECK(page.find("class=\"tick\">0</text>") != std::string::npos); // the latency 0 tick only
    CHECK(page.find("text-anchor=\"end\" class=\"tick\">0</text>") == std::string::npos);
    // Every configuration in the table: 1 s + 10 us + 10 ms.
    CHECK(page.find("<td>10us</td><td>100MiB/s</td><td>1.010010</td>") != std::string::npos);
}

TEST_CASE(
    "whatif report: useful computation is the traced run's, as analyze counts it (issue 36)") {
    // Item 6: rank 1 idles 0.5 s, then computes 0.5 s; rank 0 computes 1 s; both meet at a
    // barrier. analyze: LB = 0.75 s / 1 s. The replay's time outside MPI counted the idle span
    // as computation: LB read 100 %.
    const auto trace =
        test::synth_trace("whatif_report_idle", "ranks 2\n0 compute 1s\n0 Barrier 1us\n"
                                                "1 idle 500ms\n1 compute 500ms\n1 Barrier 1us\n");
    const auto json = (test::scratch_dir("whatif_report_idle_out") / "w.json").string();
    const auto r = test::run_popsim(
        fmt::format("whatif {} --quiet --no-color --latency 0,1ms --json {}", trace, json));
    REQUIRE(r.status == 0);
    // Ideal: 1 s; PE = 0.75 / 1. With 1 ms of latency at the barrier: T = 1.002 s, PE = 0.75 /
    // 1.002, CommE = TE = 1 / 1.002.
    CHECK(
        r.output.find("\n      0    1.000000   1.0000  75.00%  75.00% 100.00% 100.00% 100.00%\n") !=
        std::string::npos);
    CHECK(
        r.output.find("\n    1ms    1.002000   0.9980  74.85%  75.00%  99.80% 100.00%  99.80%\n") !=
        std::string::npos);
    CHECK(r.output.find("traced run: 1.000001 s, PE 75.00%, LB 75.00%, CommE 100.00%") !=
          std::string::npos);
    const auto traced = test::read_json(json)["traced"];
    CHECK(traced["load_balance"].get<double>() == doctest::Approx(0.75));
    CHECK(traced["runtime_ns"] == 1'000'001'000);
}

TEST_CASE("whatif report: LAMMPS' load balance is analyze's on every network") {
    // awk over the trace's Running states per rank: 0.156298, 0.238741, 0.134931, 0.135910 s;
    // LB = 0.166470 / 0.238741 = 69.73 % (analyze's). Ranks 1, 3 and 4 are "Not created" for
    // 0.080-0.123 s at the start: the replay's time outside MPI gave 95.08 %.
    const auto trace = test::shared_data("lammps-melt/lammps_melt_4.prv.gz");
    const auto json = (test::scratch_dir("whatif_report_lammps") / "w.json").string();
    REQUIRE(test::run_popsim(
                fmt::format("whatif {} --quiet --latency 0,1us,10us --json {}", trace, json))
                .status == 0);
    const auto j = test::read_json(json);
    CHECK(j["traced"]["load_balance"].get<double>() == doctest::Approx(0.6973).epsilon(1e-4));
    for (const auto& c : j["configurations"])
        CHECK(c["load_balance"].get<double>() == doctest::Approx(0.6973).epsilon(1e-4));
}

TEST_CASE("whatif report: efficiencies outside 0-100 % come with the warning, in every output") {
    // Issue 34, item 4, for predicted runs. Each rank computes 1 s, then spends 1 s in an
    // Allreduce whose records say Running: analyze counts 2 s useful per rank, the replay 1 s of
    // computation, so on the ideal network the run takes 1 s and PE = CommE = 2 s / 1 s = 200 %,
    // TE = 1 s / 1 s = 100 %, SerE = CommE / TE = 200 %. The traced run (2 s) has SerE 200 % too
    // (CommE 100 %, TE 50 %).
    const auto dir = test::scratch_dir("whatif_out_of_range");
    const auto trace = test::synth_trace(
        "running_in_calls", "ranks 2\n0 compute 1s\n0 event 50000002 10\n0 compute 1s\n"
                            "0 event 50000002 0\n1 compute 1s\n1 event 50000002 10\n"
                            "1 compute 1s\n1 event 50000002 0\n");
    const auto json = (dir / "s.json").string();
    const auto simulated = test::run_popsim(fmt::format("simulate {} --json {}", trace, json));
    REQUIRE(simulated.status == 0);
    CHECK(simulated.output.find("efficiencies       PE 200.00%, LB 100.00%, CommE 200.00%, "
                                "SerE 200.00%, TE 100.00%") != std::string::npos);
    CHECK(simulated.output.find("popsim: warning: " + trace +
                                ": PE 200.00%, CommE 200.00%, SerE 200.00% outside 0-100 %") !=
          std::string::npos);
    const auto has_warning = [](const nlohmann::json& report) {
        bool listed = false;
        for (const auto& w : report["warnings"])
            listed = listed || w["kind"] == "efficiency-out-of-range";
        return listed;
    };
    CHECK(has_warning(test::read_json(json)));
    const auto html = (dir / "w.html").string();
    const auto wjson = (dir / "w.json").string();
    const auto swept = test::run_popsim(
        fmt::format("whatif {} --latency 0,1s --no-color --html {} --json {}", trace, html, wjson));
    REQUIRE(swept.status == 0);
    // Latency 1 s: each rank's Allreduce startup takes 1 s, so the run takes 2 s: PE 100 %,
    // TE 1 s / 2 s = 50 %, SerE = 100 % / 50 % = 200 %.
    CHECK(swept.output.find(": traced run: SerE 200.00%; latency 0: PE 200.00%, CommE 200.00%, "
                            "SerE 200.00%; latency 1s: SerE 200.00% outside 0-100 %") !=
          std::string::npos);
    CHECK(has_warning(test::read_json(wjson)));
    const auto page = test::read_file(html);
    CHECK(page.find(R"(<td class="out-of-range" title="outside 0-100 %: see the warnings">200.00% )"
                    R"((!)</td>)") != std::string::npos);
    CHECK(page.find("<code>efficiency-out-of-range</code>") != std::string::npos);
}

TEST_CASE("whatif report: undefined efficiencies come with a warning that says why") {
    // At a CPU ratio of 1e300 every burst takes no time and the ideal network adds none: the
    // predicted run lasts 0 ns, so PE, CommE and TE divide by 0 (SerE = CommE / TE too); LB is a
    // ratio of the useful times, 75 % as traced (1.5 s / 2 s).
    const auto trace =
        test::synth_trace("undefined_predicted", "ranks 2\n0 compute 1s\n1 compute 2s\n");
    const std::string why =
        "PE, CommE, SerE, TE undefined (shown as -): ratios of zero times, the predicted run or "
        "its counterpart on the ideal network lasting 0 ns (bursts scaled to nothing by the CPU "
        "ratio, or a trace with no time in it)";
    const auto simulated = test::run_popsim("simulate " + trace + " --cpu-ratio 1e300");
    REQUIRE(simulated.status == 0);
    CHECK(simulated.output.find("efficiencies       PE -, LB 75.00%, CommE -, SerE -, TE -") !=
          std::string::npos);
    CHECK(simulated.output.find("popsim: warning: " + trace + ": " + why) != std::string::npos);
    const auto swept = test::run_popsim("whatif " + trace + " --cpu-ratio 1,1e300 --no-color");
    REQUIRE(swept.status == 0);
    CHECK(swept.output.find("popsim: warning: " + trace + ": cpu-ratio 1e300: " + why) !=
          std::string::npos);
}

// SPDX-License-Identifier: BSD-3-Clause
// popsim compare, the check a CI pipeline runs: two results side by side, exit 4 when an
// efficiency drops by more than --max-drop (a fraction of 1). Expected values: modelfactors'
// published table for epoch (Parallel efficiency 97.349953 % on 4 ranks, 95.707736 % on 8).
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace popsim;

TEST_CASE("compare: the epoch runs of 4 and 8 ranks, through their JSON and as traces") {
    const auto four = test::shared_data("epoch/epoch_4proc.prv.gz");
    const auto eight = test::shared_data("epoch/epoch_8proc.prv.gz");
    const auto dir = test::scratch_dir("compare_epoch");
    const auto base = (dir / "e4.json").string(), current = (dir / "e8.json").string();
    REQUIRE(test::run_popsim(fmt::format("analyze --quiet {} --json {}", four, base)).status == 0);
    REQUIRE(test::run_popsim(fmt::format("analyze --quiet {} --json {}", eight, current)).status ==
            0);
    const auto strict =
        test::run_popsim(fmt::format("compare {} {} --max-drop 0.01", base, current));
    CHECK(strict.status == 4);
    CHECK(test::table_row(strict.output, "Parallel efficiency") ==
          test::Cells{"97.35%", "95.71%", "-1.64 pp"});
    CHECK(strict.output.find(
              "popsim: regression: Parallel efficiency of epoch_8proc.prv.gz dropped by 1.64 "
              "points (97.35% -> 95.71%); Communication efficiency of epoch_8proc.prv.gz dropped "
              "by 1.26 points (98.64% -> 97.38%) (more than --max-drop 0.01)\n") !=
          std::string::npos);
    CHECK(test::run_popsim(fmt::format("compare {} {} --max-drop 0.05", base, current)).status ==
          0);
    // A trace instead of a report: analysed with the defaults; --metrics chooses what is checked.
    const auto traces = test::run_popsim(
        fmt::format("compare {} {} --quiet --metrics load_balance --max-drop 0.01", base, eight));
    CHECK(traces.status == 0); // load balance drops 0.41 points only
    CHECK(test::table_row(traces.output, "Load balance") ==
          test::Cells{"98.69%", "98.28%", "-0.41 pp"});
    CHECK(test::table_row(traces.output, "Parallel efficiency").empty());
}

TEST_CASE("compare: what it cannot compare is said") {
    const auto dir = test::scratch_dir("compare_errors");
    const auto one = test::synth_trace("compare_one", "ranks 2\n0 compute 1s\n1 compute 2s\n");
    const auto json = (dir / "one.json").string();
    REQUIRE(test::run_popsim(fmt::format("analyze --quiet {} --json {}", one, json)).status == 0);
    const auto bad = test::write_file(dir / "bad.json", "{\"traces\": 3}");
    test::check_fails(fmt::format("compare {} {}", json, bad), 2,
                      bad + ": not a report of popsim analyze --json (no traces)");
    test::check_fails(fmt::format("compare {} {} --metrics nope", json, json), 1,
                      "--metrics: no efficiency named nope in " + json);
    test::check_fails(fmt::format("compare {} {} --max-drop 2", json, json), 1,
                      "--max-drop 2 is not between 0 and 1");
    // Issue 35: a number JSON cannot hold exited 3 with the library's words and no file; a metric
    // that is a string read as undefined, and the gate passed.
    const auto huge = test::write_file(dir / "huge.json", "{\"traces\": [1e400]}");
    test::check_fails(fmt::format("compare {} {}", json, huge), 2,
                      huge + ": not JSON popsim can read: [json.exception.out_of_range.406] number "
                             "overflow parsing '1e400'");
    auto report = test::read_json(json);
    report["traces"][0]["mpi_multiplicative"]["load_balance"] = "0.99";
    const auto text = test::write_file(dir / "text.json", report.dump());
    test::check_fails(fmt::format("compare {} {}", json, text), 2,
                      text + ": load_balance is \"0.99\", not a number: not a report popsim wrote");
    // The same run against itself: no change, exit 0; load balance 1.5 / 2 = 75 %.
    const auto same = test::run_popsim(fmt::format("compare {} {} --max-drop 0", json, json));
    CHECK(same.status == 0);
    CHECK(test::table_row(same.output, "Load balance") ==
          test::Cells{"75.00%", "75.00%", "+0.00 pp"});
}

TEST_CASE("compare: runs are named by analyze --label, and another schema is refused") {
    const auto dir = test::scratch_dir("compare_labels");
    const auto one =
        test::synth_trace("compare_labels_run", "ranks 2\n0 compute 1s\n1 compute 3s\n");
    const auto base = (dir / "base.json").string(), current = (dir / "current.json").string();
    REQUIRE(test::run_popsim(fmt::format("analyze --quiet {} --label v1.0 --json {}", one, base))
                .status == 0);
    REQUIRE(test::run_popsim(fmt::format("analyze --quiet {} --json {}", one, current)).status ==
            0);
    CHECK(test::read_json(base)["traces"][0]["label"] == "v1.0");
    CHECK(test::read_json(current)["traces"][0]["label"] == "compare_labels_run.prv");
    const auto r = test::run_popsim(fmt::format("compare {} {}", base, current));
    CHECK(r.output.starts_with("v1.0 -> compare_labels_run.prv\n"));
    test::check_fails(fmt::format("analyze --quiet {} --label a,b", one), 1,
                      "--label names 2 runs for 1 traces");
    const auto other = test::write_file(
        dir / "other.json", "{\"schema\": \"popsim/2\", \"traces\": [{\"path\": \"x\"}]}");
    test::check_fails(fmt::format("compare {} {}", base, other), 2,
                      other + ": a report of schema \"popsim/2\": this popsim reads popsim/1");
}

// SPDX-License-Identifier: BSD-3-Clause
// The focus of analysis from the command line: `cut` and `--from/--to` give the same numbers,
// `--phases` and `--region` report each part, `events` lists what they can name, and bad
// specifications are errors naming the trace.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

using namespace popsim;
using test::run_popsim;

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
        text.replace(at, from.size(), to), at += to.size();
    return text;
}

/// `popsim cut` of [from, to) then `analyze` of the cut, and `analyze --from --to` of the
/// original, print the same report but for the trace's name.
void check_cut_equals_window(const std::string& trace, const std::string& from,
                             const std::string& to, const std::string& name) {
    const auto dir = test::scratch_dir("focus_cut_" + name);
    const std::string cut = (dir / (name + ".prv")).string();
    const auto wrote =
        run_popsim(fmt::format("cut {} --from {} --to {} -o {}", trace, from, to, cut));
    REQUIRE(wrote.status == 0);
    const auto of_cut = run_popsim(fmt::format("analyze {} --strict --no-color", cut));
    const auto windowed =
        run_popsim(fmt::format("analyze {} --from {} --to {} --no-color", trace, from, to));
    REQUIRE(of_cut.status == 0);
    REQUIRE(windowed.status == 0);
    // The window's report begins by naming it; the rest is the cut's report.
    const std::string named = fmt::format("{}: window [", trace);
    REQUIRE(windowed.output.find(named) != std::string::npos);
    std::string report = windowed.output;
    const std::size_t at = report.find(named);
    report.erase(at, report.find('\n', at) + 1 - at);
    CHECK(replace_all(of_cut.output, cut, "TRACE") == replace_all(report, trace, "TRACE"));
    std::ifstream in(cut);
    std::string header, line, mark;
    std::getline(in, header);
    while (std::getline(in, line) && (line[0] == 'c' || line[0] == '#'))
        if (line.find(":CUTTER:") != std::string::npos) mark = line;
    CHECK(mark.find(fmt::format(":CUTTER:ORIGINAL:\"{}\":", trace)) != std::string::npos);
    CHECK(std::filesystem::exists(dir / (name + ".pcf")));
    CHECK(std::filesystem::exists(dir / (name + ".row")));
}

const char* k_phases = R"(ranks 2
0 event 1000 1
0 compute 2s
0 Barrier 500ms
1 event 1000 1
1 compute 1s
1 Barrier 1500ms
0 event 1000 2
0 compute 1s
0 Barrier 200ms
1 event 1000 2
1 compute 1s
1 Barrier 200ms
)";

} // namespace

TEST_CASE("focus cli: cut then analyze equals analyze --from/--to on real traces") {
    check_cut_equals_window(test::shared_data("epoch/epoch_8proc.prv.gz"), "1s", "2s", "epoch8");
    check_cut_equals_window(
        test::shared_data("collected/extraecourse_poisson_merged/poisson_v1_16p.prv.gz"), "250ms",
        "300ms", "poisson16");
}

TEST_CASE("focus cli: a cut's header lasts the window, and says it was cut") {
    const auto trace = test::synth_trace("focus_cut_header", k_phases);
    const auto cut = (test::scratch_dir("focus_cut_header_out") / "cut.prv").string();
    REQUIRE(run_popsim(fmt::format("cut {} --phases 1000 --phase 2 -o {}", trace, cut)).status ==
            0);
    std::ifstream in(cut);
    std::string header;
    std::getline(in, header);
    CHECK(header.find("):1200000000_ns:") != std::string::npos); // phase 2: [2.5 s, 3.7 s)
    const auto r = run_popsim(fmt::format("analyze {} --no-color", cut));
    CHECK(test::table_row(r.output, "Runtime (s)") == test::Cells{"1.200000"});
}

TEST_CASE("focus cli: --phases prints, writes and reports each phase") {
    const auto trace = test::synth_trace("focus_cli_phases", k_phases);
    const auto dir = test::scratch_dir("focus_cli_phases_out");
    const auto json = (dir / "a.json").string(), csv = (dir / "phases.csv").string();
    // On an 80-column terminal (issue 36, item 12): the efficiencies that do not fit follow in
    // a second block, led by the phase numbers.
    const auto r = test::run_at_80_columns(
        "analyze", trace,
        fmt::format("--phases 1000 --no-color --json {} --parts-csv {}", json, csv));
    REQUIRE(r.status == 0);
    // Phase 1: useful 2 s and 1 s in 2.5 s; phase 2: both 1 s in 1.2 s.
    CHECK(r.output.find("\nPhase | from (s) length (s) % time |      PE      LB   CommE  StartE"
                        "    SerE\n") != std::string::npos);
    CHECK(r.output.find("\n    1 | 0.000000   2.500000 67.57% |  60.00%  75.00%  80.00% 100.00% "
                        "100.00%\n") != std::string::npos);
    CHECK(r.output.find("\n    2 | 2.500000   1.200000 32.43% |  83.33% 100.00%  83.33% 100.00% "
                        "100.00%\n") != std::string::npos);
    CHECK(r.output.find("\nPhase |      TE     IPC\n=======================\n    1 |  80.00%"
                        "       -\n    2 |  83.33%       -\n") != std::string::npos);
    const auto j = test::read_json(json);
    const auto& parts = j["traces"][0]["focus"]["parts"];
    REQUIRE(parts.size() == 2);
    CHECK(parts[0]["load_balance"].get<double>() == doctest::Approx(0.75));
    CHECK(parts[1]["from_ns"] == 2'500'000'000);
    CHECK(parts[1]["parallel_efficiency"].get<double>() == doctest::Approx(1 / 1.2));
    std::ifstream in(csv);
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    CHECK(first == "Phase;1;2"); // modelfactors' layout: percentages, ';'
    CHECK(second == "Parallel efficiency;60.000000;83.333333");
}

TEST_CASE("focus cli: --region reports every instance and all of them together") {
    const auto trace = test::synth_trace("focus_cli_region", k_phases);
    const auto r = run_popsim(fmt::format("analyze {} --region 1000:2 --no-color", trace));
    REQUIRE(r.status == 0);
    CHECK(r.output.find("region event 1000:2: 1 instance") != std::string::npos);
    CHECK(test::table_row(r.output, "Runtime (s)") == test::Cells{"1.200000"});
    const auto both = run_popsim(fmt::format("analyze {} --region 1000 --no-color", trace));
    // Both instances together: 3 s and 2 s of useful time in 3.7 s.
    CHECK(test::table_row(both.output, "Parallel efficiency") == test::Cells{"67.57%"});
}

TEST_CASE("focus cli: events lists the types and values --region and --phases take") {
    const auto trace = test::synth_trace("focus_cli_events", k_phases);
    const auto r = run_popsim("events " + trace);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("     1000                                                    4       2"
                        "    0.000000  1000:1 1 (2), 1000:2 2 (2)") != std::string::npos);
    CHECK(r.output.find("MPI Collective Comm") != std::string::npos);
}

TEST_CASE("focus cli: --region takes a name as the .pcf shows it, brackets and all (issue 36)") {
    // Item 12. Extrae lists the OpenMP function once for four types and as a caller at three
    // levels; the trace holds it only as an executed parallel function (60000018:9, 10820
    // events on 4 threads in `popsim events`: 2705 instances).
    const auto hpcg = test::shared_data("hpcg-hybrid/hpcg_2x2.prv.gz");
    const std::string name = "ComputeSPMV_ref [ComputeSPMV_ref(SparseMatrix_STRUCT const&, "
                             "Vector_STRUCT&, Vector_STRUCT&) [clone ._omp_fn.0]]";
    const auto r = run_popsim(fmt::format("analyze {} --region '{}' --quiet", hpcg, name));
    CHECK(r.status == 0);
    CHECK(r.output.starts_with(fmt::format("{}: region Executed OpenMP parallel function {} "
                                           "(60000018:9): 2705 instances, all together\n",
                                           hpcg, name)));
    // A pattern that the trace holds under several types still asks for one.
    const auto several = run_popsim(fmt::format("analyze {} --region 'ComputeSPMV*'", hpcg));
    CHECK(several.status == 2);
    CHECK(several.output.ends_with("give TYPE:ComputeSPMV* or TYPE:VALUE; the trace has such "
                                   "events of 60000018, 60000118, 70000002, 80000002\n"));
}

TEST_CASE("focus cli: bad windows and names are errors naming the trace and what was sought") {
    const auto trace = test::synth_trace("focus_cli_errors", k_phases);
    test::check_fails(fmt::format("analyze {} --from 2s --to 1s", trace), 2,
                      trace + ": --from 2.000000000 s is not before --to 1.000000000 s: the "
                              "window is empty");
    test::check_fails(fmt::format("analyze {} --from 1s --to 10s", trace), 2,
                      trace + ": the window [1.000000000 s, 10.000000000 s) ends after the "
                              "trace, which lasts 3.700000000 s (leave --to out to analyse up to "
                              "the end)");
    test::check_fails(fmt::format("analyze {} --from 5s", trace), 2,
                      trace + ": --from 5.000000000 s is at or after the trace's end, "
                              "3.700000000 s");
    // A time without its unit, or not a time: a usage error, before the trace is read (issue 36,
    // item 10: docs/focus.md said a bare number was ns).
    for (const auto& [given, cause] : std::vector<std::pair<std::string, std::string>>{
             {"1parsec", "'1parsec' is not a time (e.g. 5us, 1.5ms, 2s, 300ns)"},
             {"5", "'5' has no unit: write 5ns, 5us, 5ms or 5s"}}) {
        const auto r = run_popsim(fmt::format("analyze {} --from {}", trace, given));
        CHECK(r.status == 1);
        CHECK(r.output.starts_with("popsim: error: --from: " + cause + "\n"));
    }
    test::check_fails(fmt::format("analyze {} --region 2000", trace), 2,
                      trace + ": --region: no thread enters event type 2000: the trace has no "
                              "event of type 2000 with a value other than 0");
    test::check_fails(fmt::format("analyze {} --phases 1000:3", trace), 2,
                      trace + ": --phases: no thread enters event 1000:3: the trace has no event "
                              "of type 1000 with value 3");
    const std::string pcf = trace.substr(0, trace.size() - 4) + ".pcf";
    test::check_fails(fmt::format("analyze {} --region Allreduse", trace), 2,
                      pcf + ": --region: no event type or value of the .pcf is named "
                            "'Allreduse' (nearest: 'MPI_Allreduce', 'MPI_Reduce', "
                            "'MPI_Iallreduce')");
    test::check_fails(fmt::format("cut {} --phases 1000 -o {}.cut.prv", trace, trace), 2,
                      trace + ": 2 phases split at event type 1000: name the one to cut with "
                              "--phase N (1 to 2)");
    // Issue 35, item 6: phase 0 was taken for "not given" and cut the only instance.
    for (const char* number : {"0", "3"})
        test::check_fails(
            fmt::format("cut {} --phases 1000 --phase {} -o {}.cut.prv", trace, number, trace), 2,
            fmt::format("{}: 2 phases split at event type 1000: --phase {} is not "
                        "one of them (1 to 2)",
                        trace, number));
    const auto piped = test::run_shell(
        fmt::format("cat {} | {} analyze /dev/stdin --from 1s", trace, POPSIM_BINARY));
    CHECK(piped.status == 2);
    CHECK(piped.output == "popsim: error: /dev/stdin: --from/--to read the trace twice (its "
                          "header, then the window): give a file, not a pipe\n");
    const auto both = run_popsim(fmt::format("analyze {} --phases 1000 --region 1000", trace));
    CHECK(both.status == 1); // a usage error
    CHECK(both.output.starts_with("popsim: error: --region excludes --phases"));
    CHECK(!std::filesystem::exists(trace + ".cut.prv"));
}

TEST_CASE("focus cli: a scaling series on a region compares the region in each run") {
    // The region (event 1000) holds 4 s of computation in both runs: 2 s on each of 2 ranks, 1 s
    // on each of 4. Outside it, 1 s more per rank that the series must not see.
    const auto two = test::synth_trace("focus_series_2", R"(ranks 2
0 event 1000 1
0 compute 2s
0 event 1000 0
0 compute 1s
1 event 1000 1
1 compute 2s
1 event 1000 0
1 compute 1s
)");
    std::string four_ranks = "ranks 4\n";
    for (int r = 0; r < 4; ++r)
        four_ranks += fmt::format("{0} event 1000 1\n{0} compute 1s\n{0} event 1000 0\n"
                                  "{0} compute 1s\n",
                                  r);
    const auto four = test::synth_trace("focus_series_4", four_ranks);
    const auto r = run_popsim(fmt::format("analyze {} {} --region 1000 --no-color", two, four));
    REQUIRE(r.status == 0);
    CHECK(test::table_row(r.output, "Speedup") == test::Cells{"1.00", "2.00"});
    CHECK(test::table_row(r.output, "Computation scalability") ==
          test::Cells{"100.00%", "100.00%"});
    CHECK(test::table_row(r.output, "Runtime (s)") == test::Cells{"2.000000", "1.000000"});
}

TEST_CASE(
    "focus cli: a name the .pcf gives to values of several types means the one the trace has") {
    const auto trace = test::synth_trace("focus_shared_values", R"(ranks 1
0 compute 1s
0 event 7000 5
0 compute 2s
0 event 7000 0
0 compute 1s
)");
    // As Extrae lists OpenMP functions: one VALUES block for two types, one of them unused.
    test::write_file(trace.substr(0, trace.size() - 4) + ".pcf",
                     "EVENT_TYPE\n0 7000 Executed function\n0 7001 Instantiated function\n"
                     "VALUES\n0 End\n5 solve_system\n\n");
    const auto r = run_popsim(fmt::format("analyze {} --region 'solve*' --no-color", trace));
    REQUIRE(r.status == 0);
    CHECK(r.output.find("region Executed function solve_system (7000:5): 1 instance") !=
          std::string::npos);
    CHECK(test::table_row(r.output, "Runtime (s)") == test::Cells{"2.000000"});
}

TEST_CASE("focus cli: events and cut name the line of a malformed trace") {
    const auto dir = test::scratch_dir("focus_cli_malformed");
    const auto trace = test::write_file(dir / "bad.prv", "#Paraver (d):10_ns:1(1):1:1(1:1),0\n"
                                                         "1:1:1:1:1:0:10:1\n"
                                                         "2:1:1:1:1:5:60000019\n");
    test::check_fails("events " + trace, 2,
                      trace + ":3: event record has 6 fields, field 7 (event value) is missing");
    test::check_fails(fmt::format("cut {} --from 1ns -o {}", trace, (dir / "out.prv").string()), 2,
                      trace + ":3: event record has 6 fields, field 7 (event value) is missing");
    CHECK(!std::filesystem::exists(dir / "out.prv"));
    // What events' own scan of event records passed (it read no other record): checked as
    // analyze checks it.
    const std::string header = "#Paraver (d):10_ns:1(1):1:2(1:1,1:1),0\n";
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"9:1:1:1:1:0:10:1\n", ":2: unknown record kind '9' (expected 1, 2, 3 or 4)"},
        {"1:1:1:3:1:0:10:1\n", ":2: record names task 3 of application 1, but the header declares "
                               "2 tasks"},
        {"1:1:1:1:1:0:10:999\n", ":2: state value 999 is out of range (0-254)"}};
    int i = 0;
    for (const auto& [record, message] : refused) {
        CAPTURE_BINDING(record);
        const auto path = test::write_file(dir / fmt::format("refused{}.prv", i++),
                                           header + record + "2:1:1:1:1:5:60000019:1\n");
        test::check_fails("events " + path, 2, path + message);
    }
}

TEST_CASE("focus cli: simulate and whatif replay a window") {
    const auto trace = test::synth_trace("focus_cli_simulate", k_phases);
    // Phase 2 alone: both ranks compute 1 s, then the barrier, free on the ideal network.
    const auto r = run_popsim(fmt::format("simulate {} --from 2.5s --to 3.7s", trace));
    REQUIRE(r.status == 0);
    CHECK(r.output.find("focus              window [2.500000000 s, 3.700000000 s)") !=
          std::string::npos);
    CHECK(r.output.find("real runtime       1.200000 s\npredicted runtime  1.000000 s") !=
          std::string::npos);
    const auto w =
        run_popsim(fmt::format("whatif {} --from 2.5s --to 3.7s --latency 0,1ms", trace));
    REQUIRE(w.status == 0);
    CHECK(w.output.find("\n      0    1.000000") != std::string::npos); // latency 0: ideal
}

TEST_CASE("focus cli: a window past a thread's last record is no truncated trace") {
    // No state covers [1 s, 3 s): nothing is recorded in the second half of [0.5 s, 2 s).
    const auto trace = test::synth_trace("focus_cli_gap", "ranks 1\n0 compute 1s\n0 at 3s\n"
                                                          "0 compute 1s\n");
    const auto cut = (test::scratch_dir("focus_cli_gap_out") / "gap.prv").string();
    const auto windowed =
        run_popsim(fmt::format("analyze {} --from 0.5s --to 2s --no-color", trace));
    CHECK(windowed.status == 0);
    CHECK(test::table_row(windowed.output, "Runtime (s)") == test::Cells{"1.500000"});
    REQUIRE(run_popsim(fmt::format("cut {} --from 0.5s --to 2s -o {}", trace, cut)).status == 0);
    const auto of_cut = run_popsim(fmt::format("analyze {} --no-color", cut));
    CHECK(of_cut.status == 0);
    CHECK(test::table_row(of_cut.output, "Useful duration, total (s)") == test::Cells{"0.500000"});
}

TEST_CASE("focus cli: a region entered unevenly says how its instances are matched") {
    const auto trace = test::synth_trace("focus_cli_uneven", R"(ranks 2
0 event 1000 1
0 compute 1s
0 event 1000 0
0 event 1000 1
0 compute 1s
0 event 1000 0
1 event 1000 1
1 compute 2s
1 event 1000 0
)");
    const auto r = run_popsim(fmt::format("analyze {} --region 1000 --no-color", trace));
    REQUIRE(r.status == 0);
    CHECK(r.output.find("region event type 1000: 2 instances (its 2 threads enter it 1 to 2 "
                        "times: instances are matched by their order on each thread)") !=
          std::string::npos);
}

TEST_CASE("focus cli: the HTML of 2705 region instances names the worst ones (issue 36, item 6)") {
    // Beyond 100 instances the table's columns cannot be read: the ten of lowest parallel
    // efficiency are listed, the lowest first, as the JSON's per-instance values order them.
    const auto hpcg = test::shared_data("hpcg-hybrid/hpcg_2x2.prv.gz");
    const auto dir = test::scratch_dir("focus_cli_worst_instances");
    const auto html = (dir / "r.html").string(), json = (dir / "r.json").string();
    REQUIRE(run_popsim(fmt::format("analyze {} --region '60000018:ComputeSPMV*' --quiet --html {} "
                                   "--json {}",
                                   hpcg, html, json))
                .status == 0);
    const auto parts = test::read_json(json)["traces"][0]["focus"]["parts"];
    REQUIRE(parts.size() == 2705);
    std::size_t lowest = 0;
    for (std::size_t k = 1; k < parts.size(); ++k)
        if (parts[k]["parallel_efficiency"].get<double>() <
            parts[lowest]["parallel_efficiency"].get<double>())
            lowest = k;
    const auto page = test::read_file(html);
    CHECK(page.find("The 10 instances of lowest Parallel efficiency of 2705") != std::string::npos);
    CHECK(page.find(fmt::format("<tr><th>instance</th><th>Parallel efficiency</th>")) !=
          std::string::npos);
    CHECK(page.find(fmt::format("</tr><tr><td class=\"label\">{}</td>", lowest + 1)) ==
          page.find("</tr><tr><td class=\"label\">", page.find("worst-parts")));
    CHECK(page.find("<div class=\"charts small-multiples\">") != std::string::npos);
}

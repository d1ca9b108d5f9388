// SPDX-License-Identifier: BSD-3-Clause
// The OpenMP and hybrid models as their users read them: the model chosen for runs without MPI,
// warnings for a model that does not fit the runs, a thread axis, per-thread breakdowns.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

using namespace popsim;

namespace {

// One process. With one thread: 3 s of computation. With two: thread 1.1 computes 1 s alone, then
// opens a parallel region of 2 s where it computes 2 s and thread 1.2 computes 1 s and waits 1 s.
// The same 3000 instructions: a strong-scaling series of 1 and 2 threads (over processes, which
// stay 1, it would look weak).
constexpr const char* k_one_thread = "ranks 1\n0 compute 3s ins=3000 cyc=3000\n";
constexpr const char* k_two_threads =
    "ranks 1 threads 2\n"
    "0.0 compute 1s ins=1000 cyc=1000\n0.0 event 60000001 1\n0.0 compute 2s ins=1000 cyc=1000\n"
    "0.0 event 60000001 0\n"
    "0.1 at 1s\n0.1 event 60000001 1\n0.1 compute 1s ins=1000 cyc=1000\n0.1 idle 1s\n"
    "0.1 event 60000001 0\n";

} // namespace

TEST_CASE("openmp views: runs without MPI get the OpenMP model, on a thread axis") {
    const auto one = test::synth_trace("omp_views_1", k_one_thread);
    const auto two = test::synth_trace("omp_views_2", k_two_threads);
    const auto html = (test::scratch_dir("omp_views_html") / "r.html").string();
    const auto r = test::run_popsim(fmt::format("analyze {} {} --html {}", one, two, html));
    REQUIRE(r.status == 0);
    CHECK(r.output.starts_with("popsim: note: the traces make no MPI call: showing the OpenMP "
                               "model (--model mpi shows the MPI one)\nModel: OpenMP (PyPOP)\n"
                               "Scaling: strong (detected)\n"));
    CHECK(test::table_row(r.output, "Threads") == test::Cells{"1", "2"});
    // Runtime 3 s for both: Global efficiency 3 / (2 x 3) = 50 % with two threads.
    CHECK(test::table_row(r.output, "Global Efficiency") == test::Cells{"100.00%", "50.00%"});
    // Thread 1.2: useful 1 s, idle in the region 1 s, outside it (serial) 1 s, of 3 s.
    CHECK(test::table_row(r.output, "1.2") == test::Cells{"33.33%", "33.33%", "33.33%", "0.00%"});
    CHECK(test::table_row(r.output, "1.1") == test::Cells{"100.00%", "0.00%", "0.00%", "0.00%"});
    CHECK(r.output.find("Per-rank breakdown") == std::string::npos);
    // The HTML: plots against threads of the OpenMP table's own efficiencies, no MPI metric.
    const std::string page = test::read_file(html);
    for (const char* text : {">threads</text>", ">OpenMP Region Efficiency</text>",
                             ">Serial Region Efficiency</text>", ">Parallel Efficiency</text>",
                             "<h2>Per-thread breakdown</h2>", ">idle in regions</text>"}) {
        CAPTURE(text);
        CHECK(page.find(text) != std::string::npos);
    }
    for (const char* text :
         {">processes</text>", ">Load balance</text>", ">Transfer efficiency</text>",
          ">Communication efficiency</text>", "Per-rank breakdown", ">transfer</text>", "weak"}) {
        CAPTURE(text);
        CHECK(page.find(text) == std::string::npos);
    }
}

TEST_CASE("openmp views: a model that does not fit the runs is warned about") {
    const auto two = test::synth_trace("omp_views_fit", k_two_threads);
    const auto mpi = test::run_popsim(fmt::format("analyze {} --model mpi --no-replay", two));
    CHECK(mpi.output.starts_with(
        "popsim: warning: the trace makes no MPI call: the MPI model sees one process per run and "
        "counts the OpenMP overheads as communication; --model openmp shows the OpenMP metrics\n"
        "Model: MPI, multiplicative (modelfactors)\n"));
    const auto ranks =
        test::synth_trace("omp_views_ranks", "ranks 2\n0 compute 1s\n1 compute 1s\n");
    const auto omp = test::run_popsim(fmt::format("analyze {} --model openmp --no-replay", ranks));
    CHECK(omp.output.starts_with(
        "popsim: warning: every process runs one thread: the openmp model's thread metrics are "
        "those of serial processes; --model mpi shows the MPI metrics\n"));
    // MPI runs keep the MPI model by default, without a note.
    const auto plain = test::run_popsim(fmt::format("analyze {} --no-replay", ranks));
    CHECK(plain.output.starts_with("Model: MPI, multiplicative (modelfactors)\n"));
    // --quiet silences the warnings, not the table.
    CHECK(test::run_popsim(fmt::format("analyze {} --model mpi --no-replay --quiet", two))
              .output.starts_with("Model: MPI"));
}

TEST_CASE("openmp views: hybrid runs are columns of processes x threads on an axis of cores") {
    std::string two_by_two = "ranks 2 threads 2\n";
    for (int r = 0; r < 2; ++r)
        two_by_two += fmt::format("{0}.0 compute 1s\n{0}.0 Barrier 1us\n{0}.1 compute 1s\n", r);
    const auto hybrid = test::synth_trace("omp_views_hybrid", two_by_two);
    const auto one = test::synth_trace("omp_views_hybrid_1", "ranks 1\n0 compute 4s\n");
    const auto html = (test::scratch_dir("omp_views_hybrid_html") / "h.html").string();
    const auto r = test::run_popsim(
        fmt::format("analyze {} {} --model hybrid-additive --quiet --html {}", one, hybrid, html));
    REQUIRE(r.status == 0);
    CHECK(test::table_row(r.output, "Processes x threads") == test::Cells{"1x1", "2x2"});
    const std::string page = test::read_file(html);
    CHECK(page.find(">cores (processes x threads)</text>") != std::string::npos);
    CHECK(page.find(">2x2</text>") != std::string::npos);
}

TEST_CASE("openmp views: parallel regions are listed by the names of the .pcf") {
    // The two-thread run with its region running outlined function 7, named compute_flux in the
    // .pcf: one instance of 2 s (2/3 of the 3 s run); the threads compute 2 s and 1 s in it, mean
    // 1.5 s: PE = 1.5 / 2 = 75 %, LB = 1 - (2 - 1.5) / 2 = 75 %, and it costs the OpenMP region
    // efficiency (2 - 1.5) / 3 s = 16.67 %.
    const auto trace = test::synth_trace(
        "omp_views_regions",
        "ranks 1 threads 2\n"
        "0.0 compute 1s\n0.0 event 60000001 1\n0.0 event 60000018 7\n0.0 compute 2s\n"
        "0.0 event 60000018 0\n0.0 event 60000001 0\n"
        "0.1 at 1s\n0.1 event 60000001 1\n0.1 event 60000018 7\n0.1 compute 1s\n0.1 idle 1s\n"
        "0.1 event 60000018 0\n0.1 event 60000001 0\n");
    const auto pcf = trace.substr(0, trace.size() - 4) + ".pcf";
    test::write_file(pcf, "EVENT_TYPE\n0    60000018    Executed OpenMP parallel function\n"
                          "VALUES\n0   End\n7   compute_flux\n\n");
    const auto json = (test::scratch_dir("omp_views_regions_json") / "r.json").string();
    const auto r = test::run_popsim(fmt::format("analyze {} --quiet --json {}", trace, json));
    REQUIRE(r.status == 0);
    CHECK(test::table_row(r.output, "1") ==
          test::Cells{"2.000000", "66.67%", "75.00%", "75.00%", "16.67%", "compute_flux"});
    // On 80 columns the titles wrap and every line of the report fits.
    const auto narrow =
        test::run_at_80_columns("analyze", trace, "--quiet --no-replay 2> /dev/null");
    CHECK(narrow.output.find("| compute_flux\n") != std::string::npos);
    const auto regions = test::read_json(json)["traces"][0]["hybrid"]["regions"];
    REQUIRE(regions.size() == 1);
    CHECK(regions[0]["name"] == "compute_flux");
}

TEST_CASE(
    "openmp views: an efficiency outside 0-100 % is shown with the warning that explains it") {
    // Issue 34, item 4: a hybrid trace whose master threads lost their state records printed an
    // MPI Transfer efficiency above 100 % without a word. Here the workers compute and the
    // masters have no states: the hybrid models' MPI efficiencies leave 0-100 % (and the masters,
    // never active, count as not created: start-up, 4 s of PyPOP's 1 s runtime).
    const auto dir = test::scratch_dir("openmp_out_of_range");
    const auto whole = test::synth_trace(
        "out_of_range_whole",
        "ranks 2 threads 2\n0.0 event 60000001 1\n0.0 compute 2s\n0.0 event 60000001 0\n0.1 "
        "compute 1s\n0.0 Send 1us to=1 size=8\n1.0 event 60000001 1\n1.0 compute 1s\n1.0 event "
        "60000001 0\n1.1 compute 1s\n1.0 Recv 3s from=0 size=8\n");
    const auto trace = (dir / "masters_without_states.prv").string();
    REQUIRE(test::run_shell(
                fmt::format("awk -F: '!($1 == \"1\" && $5 == \"1\")' {} > {}", whole, trace))
                .status == 0);
    const auto json = (dir / "r.json").string();
    const auto html = (dir / "r.html").string();
    const auto r = test::run_popsim(fmt::format(
        "analyze {} --model hybrid-multiplicative --json {} --html {}", trace, json, html));
    REQUIRE(r.status == 0);
    // The HTML report marks the cell instead of colouring it, and lists the warning.
    const auto page = test::read_file(html);
    CHECK(page.find(R"(<td class="out-of-range" title="outside 0-100 %: see the warnings">150.00% )"
                    R"((!)</td>)") != std::string::npos);
    CHECK(page.find("<h2>Warnings</h2>") != std::string::npos);
    CHECK(page.find("<code>efficiency-out-of-range</code>") != std::string::npos);
    CHECK(r.output.find("popsim: warning: " + trace +
                        ": MPI parallel efficiency 150.00%, MPI communication efficiency 200.00%, "
                        "MPI start-up and shut-down -300.00%, MPI serialisation efficiency "
                        "-100.00%, parallel region \"region 1\" share of the run 150.00% outside "
                        "0-100 %: an efficiency is a fraction of an ideal") != std::string::npos);
    bool listed = false;
    const auto report = test::read_json(json);
    for (const auto& w : report["traces"][0]["warnings"])
        listed = listed || w["kind"] == "efficiency-out-of-range";
    CHECK(listed);
    // The same trace whole: nothing is out of range, and nothing is said.
    const auto fine = test::run_popsim("analyze " + whole + " --model hybrid-multiplicative");
    CHECK(fine.output.find("outside 0-100 %") == std::string::npos);
    // In a series, the warning names the run whose column it is: the hybrid tables order runs by
    // threads (1x8 after 2x2), the MPI series by processes (1x8 first).
    const auto wide = test::synth_trace(
        "out_of_range_1x8", "ranks 1 threads 8\n0.0 event 60000001 1\n0.0 compute 1s\n0.0 event "
                            "60000001 0\n");
    const auto series_run =
        test::run_popsim(fmt::format("analyze {} {} --model hybrid-multiplicative", wide, trace));
    CHECK(series_run.output.find("popsim: warning: " + trace +
                                 ": MPI parallel efficiency 150.00%") != std::string::npos);
    CHECK(series_run.output.find("popsim: warning: " + wide + ": MPI") == std::string::npos);
}

// SPDX-License-Identifier: BSD-3-Clause
// Code what-ifs (issue 38, item 1): --speedup REGION=FACTOR on simulate and whatif, checked
// against runs computed by hand and against Dimemas 5.5's "modules information" on the same
// programs (prv2dim cuts a burst at a user function's events; Dimemas divides the part inside
// the module by its ratio, then every burst by the CPU's relative speed).
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace popsim;

namespace {

/// Rank 0 computes 4 ms, 6 ms inside user function 1, 2 ms, then a Barrier; rank 1 computes
/// 3 ms. Traced: 13 ms; on the ideal network 12 ms (rank 0's computation).
std::string function_trace(const std::string& name) {
    return test::synth_trace(name, "ranks 2\n"
                                   "0 compute 4ms\n0 event 60000019 1\n0 compute 6ms\n"
                                   "0 event 60000019 0\n0 compute 2ms\n0 Barrier 1ms\n"
                                   "1 compute 3ms\n1 Barrier 10ms\n");
}

/// `popsim simulate ARGS`' predicted runtime in ns (from its JSON: the terminal rounds to µs).
long long predicted(const std::string& args) {
    const auto json =
        (test::scratch_dir(fmt::format("predicted_{}", ::getpid())) / "p.json").string();
    const auto r = test::run_popsim(fmt::format("simulate --quiet {} --json {}", args, json));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    return test::read_json(json)["predicted_runtime_ns"].get<long long>();
}

} // namespace

TEST_CASE("code what-if: the part of a burst inside a region runs FACTOR times faster") {
    const auto trace = function_trace("code_whatif_part");
    // 4 + 6 / 2 + 2 = 9 ms, as Dimemas with {60000019, 1, 2.0}; 4 + 6 / 0.5 + 2 = 18 ms.
    CHECK(predicted(trace + " --speedup 60000019:1=2") == 9'000'000);
    CHECK(predicted(trace + " --speedup 60000019:1=0.5") == 18'000'000);
    // Every value of the type (its functions) is the region when no value is named.
    CHECK(predicted(trace + " --speedup 60000019=3") == 8'000'000);
    // With CPUs twice as fast: (4 + 3 + 2) / 2 = 4.5 ms (Dimemas: ratio, then relative speed).
    CHECK(predicted(trace + " --cpu-ratio 2 --speedup 60000019:1=2") == 4'500'000);
    // On a network: the Barrier's fan-in and fan-out (Dimemas' constant model) cost 1 ms each.
    CHECK(predicted(trace + " --network dimemas --latency 1ms --speedup 60000019:1=2") ==
          11'000'000);
}

TEST_CASE("code what-if: simulate gives the predicted run's POP efficiencies") {
    // Useful 12 and 3 ms; function 1 twice as fast: 9 and 3 ms (average 6, LB 2/3), 9 ms on
    // the ideal network; with 1 ms of latency 11 ms: PE 6/11, CommE = TE = 9/11, SerE 1.
    const auto trace = function_trace("code_whatif_simulate_pop");
    const auto json = (test::scratch_dir("code_whatif_simulate_pop_out") / "s.json").string();
    const auto r = test::run_popsim(
        fmt::format("simulate {} --speedup 60000019:1=2 --network dimemas --latency 1ms --json {}",
                    trace, json));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    CHECK(r.output.find("ideal network      0.009000 s (the same CPUs and code)\n"
                        "efficiencies       PE 54.55%, LB 66.67%, CommE 81.82%, SerE 100.00%, "
                        "TE 81.82%\n") != std::string::npos);
    const auto j = test::read_json(json);
    CHECK(j["predicted_runtime_ns"] == 11'000'000);
    CHECK(j["ideal_runtime_ns"] == 9'000'000);
    const auto& e = j["efficiencies"];
    CHECK(e["parallel_efficiency"].get<double>() == doctest::Approx(6.0 / 11));
    CHECK(e["load_balance"].get<double>() == doctest::Approx(2.0 / 3));
    CHECK(e["communication_efficiency"].get<double>() == doctest::Approx(9.0 / 11));
    CHECK(e["transfer_efficiency"].get<double>() == doctest::Approx(9.0 / 11));
    CHECK(e["serialization_efficiency"].get<double>() == doctest::Approx(1.0));
    // At CPU ratio 2 without a speed-up: 6 ms ideal, useful 6 and 1.5 ms, PE = LB = 62.5 %.
    const auto cpu = test::run_popsim(fmt::format("simulate {} --cpu-ratio 2", trace));
    CHECK(cpu.output.find("ideal network      0.006000 s (the same CPUs and code)\n"
                          "efficiencies       PE 62.50%, LB 62.50%, CommE 100.00%, SerE 100.00%, "
                          "TE 100.00%\n") != std::string::npos);
}

TEST_CASE("code what-if: a function's callees are inside it, and the largest factor wins") {
    // Function 1 for 8 ms, function 2 inside it for 4 ms of them.
    const auto trace =
        test::synth_trace("code_whatif_nested", "ranks 1\n0 compute 2ms\n0 event 60000019 1\n"
                                                "0 compute 2ms\n0 event 60000019 2\n"
                                                "0 compute 4ms\n0 event 60000019 0\n"
                                                "0 compute 2ms\n0 event 60000019 0\n"
                                                "0 compute 2ms\n0 Barrier 1ms\n");
    CHECK(predicted(trace) == 12'000'000);
    CHECK(predicted(trace + " --speedup 60000019:1=2") == 8'000'000);  // 2 + 8/2 + 2
    CHECK(predicted(trace + " --speedup 60000019:2=2") == 10'000'000); // 2 + 2 + 4/2 + 2 + 2
    // 2 ms in 1 alone at 2x, 4 ms in both at 4x (the larger), 2 ms in 1 alone at 2x.
    CHECK(predicted(trace + " --speedup 60000019:1=2 --speedup 60000019:2=4") == 7'000'000);
}

TEST_CASE("code what-if: half ns are kept across ranks on the ideal network, as in Dimemas") {
    // Rank 0 computes 3 ns and sends; rank 1 receives, then computes 3 ns. Twice as fast: rank 1
    // receives at 1.5 ns and ends at 3 ns (Dimemas 5.5.0 with relative speed 2, or module
    // {60000019, 1, 2.0}: 3 ns), where rounding each rank's computation to the ns gave 2 + 2.
    const auto trace = test::synth_trace(
        "code_whatif_half_ns", "ranks 2\n0 event 60000019 1\n0 compute 3ns\n"
                               "0 Send 1ns to=1 size=8\n0 compute 1ns\n0 event 60000019 0\n"
                               "1 event 60000019 1\n1 Recv 5ns from=0 size=8\n1 compute 3ns\n"
                               "1 event 60000019 0\n");
    CHECK(predicted(trace + " --cpu-ratio 2") == 3);
    CHECK(predicted(trace + " --speedup 60000019:1=2") == 3);
    // Balanced: each rank's share of the 7 ns after MPI_Init is 3.5 ns; rank 0's first 3 ns of
    // computation become 2.625 ns, rank 1 gets its 3.5 ns from then on: 6.125 ns, rounded to 6.
    CHECK(predicted(trace + " --balance") == 6);
}

TEST_CASE("code what-if: every computation N times faster is --cpu-ratio N") {
    // Each rank is inside user function 1 from time 0 to its end; messages, a wait and a
    // collective between. The sweeps must agree configuration by configuration.
    const auto trace = test::synth_trace(
        "code_whatif_all", "ranks 3\n"
                           "0 event 60000019 1\n0 compute 3ms\n0 Isend 10us to=1 size=200000 "
                           "req=s\n0 compute 1ms\n0 Wait 5us req=s\n0 Allreduce 50us size=800\n"
                           "0 compute 2ms\n0 event 60000019 0\n"
                           "1 event 60000019 1\n1 compute 1ms\n1 Recv 2ms from=0 "
                           "size=200000\n1 compute 2.5ms\n1 Allreduce 40us size=800\n"
                           "1 compute 1ms\n1 event 60000019 0\n"
                           "2 event 60000019 1\n2 compute 5ms\n2 Allreduce 10us size=800\n"
                           "2 compute 0.7ms\n2 event 60000019 0\n");
    const auto dir = test::scratch_dir("code_whatif_all_out");
    const auto by_code = (dir / "code.json").string(), by_cpu = (dir / "cpu.json").string();
    const std::string network = "--latency 20us --bandwidth 100MB/s --buses 1";
    REQUIRE(
        test::run_popsim(fmt::format("whatif {} --quiet {} --speedup 60000019=1.5,2,3 --json {}",
                                     trace, network, by_code))
            .status == 0);
    REQUIRE(test::run_popsim(fmt::format("whatif {} --quiet {} --cpu-ratio 1.5,2,3 --json {}",
                                         trace, network, by_cpu))
                .status == 0);
    const auto code = test::read_json(by_code)["configurations"];
    const auto cpu = test::read_json(by_cpu)["configurations"];
    REQUIRE(code.size() == 3);
    REQUIRE(cpu.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CAPTURE(i);
        CHECK(code[i]["speedups"]["60000019"] == cpu[i]["cpu_ratio"]);
        for (const char* key : {"predicted_runtime_ns", "ideal_runtime_ns"})
            CHECK(code[i][key] == cpu[i][key]);
        // Useful time: the Running states sped up one by one, against the sum divided.
        for (const char* key : {"parallel_efficiency", "load_balance", "transfer_efficiency",
                                "serialization_efficiency"})
            CHECK(code[i][key].get<double>() ==
                  doctest::Approx(cpu[i][key].get<double>()).epsilon(1e-6));
    }
}

TEST_CASE("code what-if: whatif sweeps the factor with the network, each run's POP factors") {
    const auto trace = function_trace("code_whatif_sweep");
    const auto dir = test::scratch_dir("code_whatif_sweep_out");
    const auto json = (dir / "w.json").string(), csv = (dir / "w.csv").string();
    const auto r = test::run_popsim(fmt::format(
        "whatif {} --no-colour --latency 0,1ms --speedup 60000019:1=1,2 --json {} --csv {}", trace,
        json, csv));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    CHECK(r.output.find("code: event 60000019:1 x1,2\n") != std::string::npos);
    // Rank 0 computes 12 ms, then 9 ms; rank 1 3 ms: LB = 7.5 / 12 and 6 / 9.
    CHECK(r.output.find("      0                  2    0.009000   1.4444  66.67%  66.67% "
                        "100.00% 100.00% 100.00%\n") != std::string::npos);
    // 2 ms of Barrier latency (fan-in, fan-out): 11 ms; PE = 6 / 11, CommE = TE = 9 / 11.
    CHECK(r.output.find("    1ms                  2    0.011000   1.1818  54.55%  66.67%  "
                        "81.82% 100.00%  81.82%\n") != std::string::npos);
    const auto j = test::read_json(json);
    CHECK(j["code"][0]["region"] == "60000019:1");
    const auto& c = j["configurations"][3];
    CHECK(c["speedups"]["60000019:1"] == 2);
    CHECK(c["predicted_runtime_ns"] == 11'000'000);
    CHECK(c["ideal_runtime_ns"] == 9'000'000);
    CHECK(c["load_balance"].get<double>() == doctest::Approx(6.0 / 9));
    CHECK(test::read_file(csv).starts_with(
        "latency,latency_ns,bandwidth_bytes_per_s,buses,tasks_per_node,cpu_ratio,"
        "speedup:60000019:1,predicted_runtime_ns,"));
}

TEST_CASE("code what-if: what cannot be sped up is refused, naming why") {
    const auto trace = function_trace("code_whatif_errors");
    const auto pcf = trace.substr(0, trace.size() - 4) + ".pcf";
    test::check_fails(fmt::format("simulate {} --speedup 60000019:7=2", trace), 2,
                      trace + ": --speedup 60000019:7=2: no thread is ever inside event "
                              "60000019:7");
    test::check_fails(
        fmt::format("simulate {} --speedup MPI_Barrier=2", trace), 2,
        trace + ": --speedup MPI_Barrier=2: MPI Collective Comm MPI_Barrier (50000002:8) is "
                "MPI, not computation (the network options change MPI)");
    const auto typo = test::run_popsim(fmt::format("simulate {} --speedup 'nosuch*=2'", trace));
    CHECK(typo.status == 2);
    CHECK(typo.output.starts_with("popsim: error: " + pcf + ": --speedup: no event type"));
    for (const char* usage : {"solve", "60000019=0", "=2", "60000019:0=2"}) {
        CAPTURE(usage);
        const auto r = test::run_popsim(fmt::format("simulate {} --speedup '{}'", trace, usage));
        CHECK(r.status == 1);
        CHECK(r.output.starts_with("popsim: error: --speedup: "));
    }
    // simulate runs one configuration; whatif sweeps.
    CHECK(test::run_popsim(fmt::format("simulate {} --speedup 60000019=1,2", trace)).status == 1);
    const auto dim = test::scratch_dir("code_whatif_errors_dim") / "t.dim";
    REQUIRE(test::run_popsim(fmt::format("convert {} {}", trace, dim.string())).status == 0);
    test::check_fails(fmt::format("whatif {} --speedup 60000019=2", dim.string()), 2,
                      dim.string() + ": --speedup needs a Paraver trace or an OTF2 archive: a "
                                     "Dimemas trace has no names for its code regions");
}

TEST_CASE("balanced computation: between two collectives every rank computes the average") {
    // Before the Allreduce 2, 4 and 6 ms (4 each balanced); before the Barrier 6, 2 and 1 ms (3
    // each): 6 + 6 = 12 ms as traced, 4 + 3 = 7 ms balanced.
    const auto trace = test::synth_trace(
        "balance_phases", "ranks 3\n0 compute 2ms\n0 Allreduce 1ms\n0 compute 6ms\n0 Barrier 1ms\n"
                          "1 compute 4ms\n1 Allreduce 1ms\n1 compute 2ms\n1 Barrier 1ms\n"
                          "2 compute 6ms\n2 Allreduce 1ms\n2 compute 1ms\n2 Barrier 1ms\n");
    CHECK(predicted(trace) == 12'000'000);
    CHECK(predicted(trace + " --balance") == 7'000'000);
    // Start-up (up to the end of MPI_Init) is not computation to share: 5 ms as traced, then
    // (2 + 6) / 2 = 4 ms each; 5 + 6 = 11 ms unbalanced.
    const auto init = test::synth_trace(
        "balance_startup", "ranks 2\n0 compute 5ms\n0 Init 1ms\n0 compute 2ms\n0 Barrier 1ms\n"
                           "1 compute 1ms\n1 Init 5ms\n1 compute 6ms\n1 Barrier 1ms\n");
    CHECK(predicted(init) == 11'000'000);
    CHECK(predicted(init + " --balance") == 9'000'000);
}

TEST_CASE("balanced computation: the threads of a parallel region share its work") {
    // The master computes 2 s in the region and waits 4 s at its end; the worker computes 6 s;
    // then the master computes 1 s: 7 s as traced, (2 + 6) / 2 + 1 = 5 s balanced.
    const auto trace = test::synth_trace(
        "balance_openmp", "ranks 1 threads 2\n0.0 event 60000001 1\n0.0 compute 2s\n"
                          "0.0 state 5 4s\n0.0 event 60000001 0\n0.0 compute 1s\n0.1 compute 6s\n");
    CHECK(predicted(trace) == 7'000'000'000);
    CHECK(predicted(trace + " --balance") == 5'000'000'000);
}

TEST_CASE("balanced computation: whatif replays each configuration as traced and balanced") {
    const auto trace = function_trace("balance_whatif");
    const auto dir = test::scratch_dir("balance_whatif_out");
    const auto json = (dir / "w.json").string(), csv = (dir / "w.csv").string();
    const auto r = test::run_popsim(fmt::format(
        "whatif {} --no-colour --latency 0,1ms --balance --json {} --csv {}", trace, json, csv));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    // Rank 0 computes 12 ms and rank 1 3 ms before the Barrier: 7.5 ms each balanced, every
    // efficiency 100 % on the ideal network; 2 ms of Barrier latency on top at 1 ms.
    CHECK(r.output.find("      0      yes    0.007500   1.7333 100.00% 100.00% 100.00% 100.00% "
                        "100.00%\n") != std::string::npos);
    CHECK(r.output.find("    1ms      yes    0.009500   1.3684  78.95% 100.00%  78.95% 100.00%  "
                        "78.95%\n") != std::string::npos);
    const auto j = test::read_json(json);
    REQUIRE(j["configurations"].size() == 4);
    CHECK(j["configurations"][1]["balanced"] == true);
    CHECK(j["configurations"][1]["predicted_runtime_ns"] == 7'500'000);
    CHECK(j["configurations"][2]["balanced"] == false);
    CHECK(test::read_file(csv).find(",cpu_ratio,balanced,predicted_runtime_ns,") !=
          std::string::npos);
    const auto dim = test::scratch_dir("balance_whatif_dim") / "t.dim";
    REQUIRE(test::run_popsim(fmt::format("convert {} {}", trace, dim.string())).status == 0);
    test::check_fails(fmt::format("simulate {} --balance", dim.string()), 2,
                      dim.string() + ": --balance needs a Paraver trace or an OTF2 archive: a "
                                     "Dimemas trace has no states for the useful time");
}

TEST_CASE("code what-if: a .cfg's modules information gives Dimemas' answer") {
    // Each expected runtime is Dimemas 5.5's (prv2dim + Dimemas -S 32k) on the same program and
    // configuration: an ideal machine whose CPUs have relative speed `speed`, then the records.
    const auto dir = test::scratch_dir("code_whatif_modules");
    const auto cfg = [&](const std::string& name, const std::string& speed,
                         const std::string& modules) {
        return test::write_file(
            dir / (name + ".cfg"),
            "#DIMEMAS_CONFIGURATION\n"
            "\"environment information\" {\"\", 0, \"\", 1024, 0.0, 0, 1};;\n"
            "\"multi node information\" {0, 1024, \"\", 32, " +
                speed +
                ", 0.0, 0.0, 1, 1, 0, 0.0, 1, 1, 0.0};;\n"
                "\"predefined mapping information\" {\"1 TASKS_PER_NODE\"};;\n" +
                modules);
    };
    const auto module = [](const char* value, const char* ratio) {
        return fmt::format("\"modules information\" {{60000019, {}, {}}};;\n", value, ratio);
    };
    // Rank 0: 4 ms, 6 ms in function 1, 2 ms; rank 1: 1 ms. Then a Barrier.
    const auto t1 = test::synth_trace("code_whatif_modules_t1",
                                      "ranks 2\n0 compute 4ms\n0 event 60000019 1\n0 compute 6ms\n"
                                      "0 event 60000019 0\n0 compute 2ms\n0 Barrier 1ms\n"
                                      "1 compute 1ms\n1 Barrier 12ms\n");
    const auto simulate = [](const std::string& trace, const std::string& config) {
        return predicted(trace + " --config " + config);
    };
    CHECK(simulate(t1, cfg("r2", "1.0", module("1", "2.0"))) == 9'000'000);
    CHECK(simulate(t1, cfg("r05", "1.0", module("1", "0.5"))) == 18'000'000);
    CHECK(simulate(t1, cfg("r0", "1.0", module("1", "0.0"))) == 6'000'000); // no time inside
    CHECK(simulate(t1, cfg("rel2_r2", "2.0", module("1", "2.0"))) == 4'500'000);
    CHECK(simulate(t1, cfg("rel05_r4", "0.5", module("1", "4.0"))) == 15'000'000);
    // The same module twice: the last ratio (Dimemas overwrites it).
    CHECK(simulate(t1, cfg("dup", "1.0", module("1", "2.0") + module("1", "4.0"))) == 7'500'000);
    // A module the trace never enters changes nothing (no error, as in Dimemas).
    CHECK(simulate(t1, cfg("absent", "1.0", module("7", "2.0"))) == 12'000'000);
    // A module spanning an MPI call: 2 + 3/2 + (Barrier) + 4/2 + 1 on rank 0 = 6.5 ms.
    const auto t3 = test::synth_trace(
        "code_whatif_modules_t3",
        "ranks 2\n0 compute 2ms\n0 event 60000019 1\n0 compute 3ms\n0 Barrier 1ms\n"
        "0 compute 4ms\n0 event 60000019 0\n0 compute 1ms\n0 Barrier 1ms\n"
        "1 compute 1ms\n1 Barrier 5ms\n1 compute 1ms\n1 Barrier 4ms\n");
    CHECK(simulate(t3, cfg("t3_r2", "1.0", module("1", "2.0"))) == 6'500'000);
    // Both ranks in the module: rank 1's 1 + 10/2 = 6 ms sets the runtime.
    const auto t6 = test::synth_trace(
        "code_whatif_modules_t6",
        "ranks 2\n0 compute 2ms\n0 event 60000019 1\n0 compute 6ms\n0 event 60000019 0\n"
        "0 Barrier 1ms\n1 compute 1ms\n1 event 60000019 1\n1 compute 10ms\n"
        "1 event 60000019 0\n1 Barrier 1ms\n");
    CHECK(simulate(t6, cfg("t6_r2", "1.0", module("1", "2.0"))) == 6'000'000);
    // An inner function's module, the outer one left as traced: 2 + 2 + 3/3 + 4/3 + 5 + 2 ms.
    const auto t5 = test::synth_trace(
        "code_whatif_modules_t5",
        "ranks 2\n0 compute 2ms\n0 event 60000019 1\n0 compute 2ms\n0 event 60000019 2\n"
        "0 compute 3ms\n0 Barrier 1ms\n0 compute 4ms\n0 event 60000019 0\n0 compute 5ms\n"
        "0 event 60000019 0\n0 compute 2ms\n0 Barrier 1ms\n"
        "1 compute 1ms\n1 Barrier 7ms\n1 compute 1ms\n1 Barrier 13ms\n");
    CHECK(simulate(t5, cfg("t5_inner", "1.0", module("2", "3.0"))) == 13'333'333);
    // What popsim does not model is refused with the line.
    const auto before =
        test::write_file(dir / "before.cfg", "#DIMEMAS_CONFIGURATION\n" + module("1", "2.0") +
                                                 "\"predefined mapping "
                                                 "information\" {\"1 "
                                                 "TASKS_PER_NODE\"};;\n");
    test::check_fails(fmt::format("simulate {} --config {}", t1, before), 2,
                      before + ":2: \"modules information\" before the mapping record: Dimemas "
                               "drops it there (it belongs to the application the last mapping "
                               "defines); put it after the mapping");
    const auto constant = cfg("constant", "1.0", module("1", "-0.003"));
    test::check_fails(fmt::format("simulate {} --config {}", t1, constant), 2,
                      constant + ":5: \"modules information\" field 3 (execution ratio) must be "
                                 ">= 0: a negative ratio (each burst of the module lasting that "
                                 "many seconds) is not modelled: '-0.003'");
}

TEST_CASE("balanced computation: one region's computation alone") {
    // Rank 0: 4 ms, 6 ms in function 1, 2 ms; rank 1: 3 ms, no function. Function 1's 6 ms
    // shared before the Barrier: rank 0 12 - 6 + 3 = 9 ms, rank 1 3 + 3 = 6 ms: 9 ms.
    const auto trace = function_trace("balance_region");
    CHECK(predicted(trace + " --balance 60000019:1") == 9'000'000);
    CHECK(predicted(trace + " --balance") == 7'500'000); // all of it: (12 + 3) / 2
    const auto json = (test::scratch_dir("balance_region_out") / "w.json").string();
    const auto r = test::run_popsim(
        fmt::format("whatif {} --no-colour --balance 60000019:1 --json {}", trace, json));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    CHECK(r.output.find("code: computation of event 60000019:1 balanced or not\n") !=
          std::string::npos);
    CHECK(test::read_json(json)["configurations"][1]["predicted_runtime_ns"] == 9'000'000);
    test::check_fails(fmt::format("simulate {} --balance 60000019:7", trace), 2,
                      trace + ": --balance 60000019:7: no thread is ever inside event 60000019:7");
}

TEST_CASE("code what-if: Dimemas' modules on LAMMPS, with four networks") {
    // validation/dimemas_modules.csv: Dimemas 5.5.0 (prv2dim + Dimemas -S 32k) on the LAMMPS melt
    // traces with each configuration of ../shared/data/lammps-melt/dimemas and "modules
    // information" on Extrae's Application (40000001) and Flushing (40000003) events
    // (validation/dimemas_modules.sh made it). popsim's clock keeps the fractions of a ns Dimemas'
    // doubles keep: exact on the ideal network, within 3 ns (1e-8) on the others.
    const std::map<std::string, std::string> modules{
        {"app2", "\"modules information\" {40000001, 1, 2.0};;\n"},
        {"app05", "\"modules information\" {40000001, 1, 0.5};;\n"},
        {"flush2app2", "\"modules information\" {40000003, 1, 2.0};;\n\"modules information\" "
                       "{40000001, 1, 2.0};;\n"}};
    const auto dir = test::scratch_dir("code_whatif_lammps_modules");
    std::istringstream rows(
        test::read_file(std::string(POPSIM_SOURCE_DIR) + "/validation/dimemas_modules.csv"));
    std::string row;
    std::getline(rows, row); // the header
    int cases = 0;
    while (std::getline(rows, row)) {
        CAPTURE(row);
        std::vector<std::string> f;
        for (std::size_t at = 0, comma; at <= row.size(); at = comma + 1) {
            comma = std::min(row.find(',', at), row.size());
            f.push_back(row.substr(at, comma - at));
        }
        REQUIRE(f.size() == 4);
        const auto base =
            test::shared_data(fmt::format("lammps-melt/dimemas/{}.{}.cfg", f[0], f[1]));
        const auto cfg = (dir / fmt::format("{}.{}.{}.cfg", f[0], f[1], f[2])).string();
        test::write_file(cfg, test::read_file(base) + modules.at(f[2]));
        test::write_file(
            dir / "dimemas.collectives",
            test::read_file(test::shared_data("lammps-melt/dimemas/dimemas.collectives")));
        const auto trace = test::shared_data(fmt::format("lammps-melt/{}.prv.gz", f[0]));
        const double dimemas = std::stod(f[3]);
        const auto popsim = static_cast<double>(predicted(trace + " --config " + cfg));
        if (f[1] == "dimemas_ideal")
            CHECK(popsim == dimemas);
        else
            CHECK(popsim == doctest::Approx(dimemas).epsilon(2e-8));
        ++cases;
    }
    CHECK(cases == 24);
}

// SPDX-License-Identifier: BSD-3-Clause
// The popsim command line as users run it: exit codes, messages on stderr, files written.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>

using namespace popsim;

using test::read_json;
using test::run_popsim;

TEST_CASE("cli: simulate predicts the ideal runtime and writes a Paraver timeline") {
    const auto dir = test::scratch_dir("cli_simulate");
    const auto sim = (dir / "sim.prv").string(), json = (dir / "sim.json").string();
    const auto r = run_popsim("simulate " + test::shared_data("epoch/epoch_2proc.prv.gz") + " -o " +
                              sim + " --json " + json);
    CHECK(r.status == 0);
    CHECK(read_json(json)["predicted_runtime_ns"] ==
          11504370091); // Dimemas 5.5.0, dimemas_results.csv
    CHECK(std::ifstream(dir / "sim.pcf").good());
    CHECK(std::ifstream(dir / "sim.row").good());
    CHECK(run_popsim("analyze " + sim).status == 0);
    // On the ideal network the critical path is computation alone, as long as the runtime.
    std::ifstream in(sim);
    std::string line;
    Time on_path = 0;
    std::map<std::string, Time> since; // per thread, when its computation on the path began
    while (std::getline(in, line)) {
        const auto at = line.find(":91000001:");
        if (at == std::string::npos) continue;
        const auto time_at = line.rfind(':', at - 1);
        const std::string thread = line.substr(2, time_at - 2);
        const Time t = std::stoll(line.substr(time_at + 1, at - time_at - 1));
        const char value = line.back();
        CHECK(value != '2');
        if (value == '1') since[thread] = t;
        if (value == '0') on_path += t - since[thread];
    }
    CHECK(on_path == 11504370091);
}

TEST_CASE("cli: simulate, cut and synth -o X.prv.gz write gzip (issue 36, item 12)") {
    const auto dir = test::scratch_dir("cli_gzip_outputs");
    const auto trace = test::shared_data("epoch/epoch_2proc.prv.gz");
    const std::vector<std::string> commands{"simulate --quiet " + trace,
                                            "cut " + trace + " --from 1s --to 2s",
                                            "synth --halo 4 --steps 3"};
    for (std::size_t i = 0; i < commands.size(); ++i) {
        CAPTURE(commands[i]);
        const auto plain = (dir / ("out" + std::to_string(i) + ".prv")).string();
        REQUIRE(run_popsim(commands[i] + " -o " + plain).status == 0);
        REQUIRE(run_popsim(commands[i] + " -o " + plain + ".gz").status == 0);
        // gzip(1) itself reads it back: the same bytes as the uncompressed output (but the cut's
        // mark, which says when it was cut, to the second).
        CHECK(test::run_shell("gzip -dc " + plain +
                              ".gz | grep -v :CUTTER: | cmp - <(grep -v "
                              ":CUTTER: " +
                              plain + ")")
                  .status == 0);
        CHECK(std::ifstream(plain + ".gz").get() == 0x1f);
    }
}

TEST_CASE("cli: simulate -o marks the simulated run's critical path, by hand") {
    // The late-sender chain (test_support). Ideal network: the path is rank 1's 0-10 us and rank
    // 3's 10-13 us. With 1 us latency, each message arrives 1 us after its send began: rank 3's
    // last 3 us (12-15 us), the transfer into its Recv (11-12 us, the MPI part of the path on
    // rank 3), rank 2's wait for rank 1's message (10-11 us), rank 1's 0-10 us.
    const auto path = test::synth_trace("cli_critical_path", test::k_late_sender_chain);
    const auto dir = std::filesystem::path(path).parent_path();
    const auto marks = [&](const std::string& options) {
        const auto sim = (dir / "sim.prv").string();
        std::filesystem::remove(sim);
        REQUIRE(run_popsim("simulate " + path + " -o " + sim + " " + options).status == 0);
        std::ifstream in(sim);
        std::string line, out;
        while (std::getline(in, line))
            if (line.find(":91000001:") != std::string::npos) out += line + "\n";
        return out;
    };
    CHECK(marks("") == "2:1:1:1:1:0:91000001:1\n"
                       "2:1:1:1:1:10000:91000001:0\n"
                       "2:3:1:3:1:10000:91000001:1\n"
                       "2:3:1:3:1:13000:91000001:0\n");
    CHECK(marks("--latency 1us --bandwidth inf") == "2:1:1:1:1:0:91000001:1\n"
                                                    "2:1:1:1:1:10000:91000001:0\n"
                                                    "2:2:1:2:1:10000:91000001:2\n"
                                                    "2:2:1:2:1:11000:91000001:0\n"
                                                    "2:3:1:3:1:11000:91000001:2\n"
                                                    "2:3:1:3:1:12000:91000001:1\n"
                                                    "2:3:1:3:1:15000:91000001:0\n");
    std::ifstream pcf(dir / "sim.pcf");
    const std::string labels((std::istreambuf_iterator<char>(pcf)), {});
    CHECK(labels.find("91000001    Critical path (popsim)") != std::string::npos);
}

TEST_CASE("cli: analyze writes the replay's numbers and the rank breakdown to JSON") {
    const auto dir = test::scratch_dir("cli_analyze_json");
    const auto json = (dir / "m.json").string();
    REQUIRE(
        run_popsim("analyze " + test::shared_data("epoch/epoch_2proc.prv.gz") + " --json " + json)
            .status == 0);
    const auto j = read_json(json)["traces"][0];
    CHECK(j["ideal"]["runtime_ns"] == 11504370091);
    CHECK(j["rank_breakdown_ns"].size() == 2);
    CHECK(j["mpi_multiplicative"]["serialization_efficiency"].get<double>() ==
          doctest::Approx(0.99842359).epsilon(1e-6));
}

TEST_CASE("cli: a trace whose dependencies deadlock exits with status 2 and names the tasks") {
    // Each rank receives, then sends, all at one instant: each receive waits for the other's
    // send, a cycle of messages no relaxation breaks (the timestamps cannot order them).
    const auto path = test::synth_trace("cli_deadlock",
                                        "ranks 2\n0 Recv 0s from=1 size=8\n0 Send 0s to=1 size=8\n"
                                        "1 Recv 0s from=0 size=8\n1 Send 0s to=0 size=8\n");
    for (const char* command : {"simulate ", "analyze ", "whatif "}) {
        CAPTURE(command);
        const auto r = run_popsim(command + path);
        CHECK(r.status == 2);
        CHECK(r.output.find("popsim: error: " + path + ": the replay deadlocks") !=
              std::string::npos);
        CHECK(r.output.find("task 1 in waiting for a receive") != std::string::npos);
    }
}

TEST_CASE("cli: blocking sends that relied on MPI buffering replay as eager sends") {
    // Both ranks send 1 MiB (rendezvous at the 32 KiB eager limit) before receiving: the program
    // ran because MPI buffered the sends, the rendezvous replay would deadlock. Replayed eager,
    // every MPI call takes no time on the ideal network: 0 s.
    const auto path =
        test::synth_trace("cli_unsafe_exchange",
                          "ranks 2\n0 Send 1s to=1 size=1048576\n0 Recv 1s from=1 size=1048576\n"
                          "1 Send 1s to=0 size=1048576\n1 Recv 1s from=0 size=1048576\n");
    const auto r = run_popsim("simulate " + path);
    CHECK(r.status == 0);
    CHECK(r.output.find("popsim: warning: " + path +
                        ": 2 blocking sends of at least the eager limit close a dependency cycle "
                        "(the program relied on MPI buffering them); they replay as eager sends; "
                        "the first: task 1 to task 2, 1048576 bytes (record 1)") !=
          std::string::npos);
    CHECK(r.output.find("predicted runtime  0.000000 s") != std::string::npos);
}

TEST_CASE("cli: no command is a usage error") {
    CHECK(run_popsim("").status == 1);
}

TEST_CASE("cli: synth is deterministic and reproduces the bundled examples byte for byte") {
    const auto dir = test::scratch_dir("cli_synth_examples");
    for (int ranks : {2, 4, 8}) {
        const auto ours = (dir / ("halo_" + std::to_string(ranks) + ".prv")).string();
        REQUIRE(
            run_popsim("synth --halo " + std::to_string(ranks) + " --steps 40 -o " + ours).status ==
            0);
        std::ifstream a(ours), b(std::string(POPSIM_SOURCE_DIR) + "/examples/halo/halo_" +
                                 std::to_string(ranks) + ".prv");
        std::stringstream sa, sb;
        sa << a.rdbuf();
        sb << b.rdbuf();
        INFO("ranks " << ranks);
        CHECK(sa.str() == sb.str());
        // Records come in time order, as Extrae's merger writes them: each one at its begin time
        // (field 6; for a communication, its logical send).
        std::istringstream lines(sa.str());
        std::uint64_t previous = 0, out_of_order = 0;
        for (std::string line; std::getline(lines, line);) {
            if (line.empty() || line[0] < '1' || line[0] > '3') continue;
            std::istringstream fields(line);
            std::string field;
            for (int f = 0; f < 6; ++f) std::getline(fields, field, ':');
            const auto time = std::stoull(field);
            out_of_order += time < previous;
            previous = time;
        }
        CHECK(out_of_order == 0);
    }
}

TEST_CASE("cli: simulate with a Dimemas configuration and with overrides") {
    const auto dir = test::scratch_dir("cli_dimemas");
    const auto json = (dir / "p.json").string();
    const auto trace = test::shared_data("epoch/epoch_4proc.prv.gz");
    REQUIRE(
        run_popsim("simulate " + trace + " --config " +
                   test::shared_data("epoch/dimemas/epoch_4proc.whatif_lat5us_bw1000_bus0.cfg") +
                   " --json " + json)
            .status == 0);
    const double with_config = read_json(json)["predicted_runtime_ns"].get<double>();
    CHECK(std::abs(with_config - 6098160805.0) <= 6098160805.0 * 1e-3);
    // The same network as the ideal configuration (which names the same collectives file) with
    // overrides: 1000 MB/s in Dimemas' units is 1000 MiB/s.
    REQUIRE(run_popsim("simulate " + trace + " --config " +
                       test::shared_data("epoch/dimemas/epoch_4proc.dimemas_ideal.cfg") +
                       " --latency 5us --bandwidth 1000MiB/s --json " + json)
                .status == 0);
    CHECK(read_json(json)["predicted_runtime_ns"].get<double>() == with_config);
    const auto bad = run_popsim("simulate " + trace + " --latency fast");
    CHECK(bad.status == 1);
    CHECK(bad.output.find("'fast' is not a time") != std::string::npos);
}

TEST_CASE("cli: whatif sweeps the cross product and writes one row per configuration") {
    const auto dir = test::scratch_dir("cli_whatif");
    const auto json = (dir / "w.json").string();
    REQUIRE(run_popsim("whatif " + test::shared_data("epoch/epoch_2proc.prv.gz") +
                       " --bandwidth 100MB/s,inf --latency 0,10us --json " + json)
                .status == 0);
    const auto j = read_json(json);
    REQUIRE(j["configurations"].size() == 4);
    // Infinite bandwidth and no latency is the ideal network.
    CHECK(j["configurations"][1]["predicted_runtime_ns"] == j["ideal_runtime_ns"]);
    CHECK(j["configurations"][1]["transfer_efficiency"].get<double>() == doctest::Approx(1.0));
    CHECK(j["configurations"][0]["predicted_runtime_ns"].get<double>() >
          j["ideal_runtime_ns"].get<double>());
}

TEST_CASE("cli: simulate and whatif stream the program, or build it in memory, alike") {
    const auto dir = test::scratch_dir("cli_program_pass");
    const auto trace = test::shared_data("epoch/epoch_2proc.prv.gz");
    const auto json = (dir / "r.json").string();
    constexpr std::int64_t k_dimemas_ideal = 11504370091; // Dimemas 5.5.0, dimemas_results.csv
    for (const std::string in_memory : {"", " --in-memory"}) {
        CAPTURE(in_memory);
        REQUIRE(run_popsim("simulate " + trace + in_memory + " --json " + json).status == 0);
        auto j = read_json(json);
        CHECK(j["predicted_runtime_ns"] == k_dimemas_ideal);
        CHECK(j["program_pass"]["streamed"] == in_memory.empty());
        CHECK(j["program_pass"]["in_memory_because"].is_null());
        REQUIRE(
            run_popsim("whatif " + trace + in_memory + " --latency 0,5us --json " + json).status ==
            0);
        j = read_json(json);
        CHECK(j["ideal_runtime_ns"] == k_dimemas_ideal);
        CHECK(j["configurations"][0]["predicted_runtime_ns"] == k_dimemas_ideal);
        CHECK(j["program_pass"]["streamed"] == in_memory.empty());
    }
    // -o streams too (the calls spilled to disk beside the output), and writes what the trace
    // read into memory gives, byte for byte.
    std::vector<std::string> written;
    for (const std::string in_memory : {"", " --in-memory"}) {
        const auto out = (dir / (in_memory.empty() ? "streamed.prv" : "in_memory.prv")).string();
        REQUIRE(
            run_popsim("simulate " + trace + in_memory + " -o " + out + " --json " + json).status ==
            0);
        CHECK(read_json(json)["program_pass"]["streamed"] == in_memory.empty());
        written.push_back(test::read_file(out));
    }
    CHECK(written[0].size() > 1000000);
    CHECK(written[0] == written[1]);
    for (const auto& entry : std::filesystem::directory_iterator(dir)) // no spill left behind
        CHECK(!entry.path().filename().string().starts_with("popsim-spill"));
    // A hybrid trace streams its program too (fork/join barriers among each task's threads), and
    // predicts what the in-memory program does.
    const auto hybrid = test::shared_data("hpcg-hybrid/hpcg_2x2.prv.gz");
    std::vector<std::int64_t> predicted;
    for (const std::string in_memory : {"", " --in-memory"}) {
        REQUIRE(run_popsim("simulate " + hybrid + in_memory + " --quiet --json " + json).status ==
                0);
        const auto j = read_json(json);
        CHECK(j["program_pass"]["streamed"] == in_memory.empty());
        predicted.push_back(j["predicted_runtime_ns"].get<std::int64_t>());
    }
    CHECK(predicted[0] == predicted[1]);
    // A trace whose worker threads call MPI needs the in-memory program; the report says why.
    const auto worker_mpi = test::synth_trace("cli_worker_mpi", test::k_worker_calls_mpi);
    REQUIRE(run_popsim("simulate " + worker_mpi + " --quiet --json " + json).status == 0);
    const auto pass = read_json(json)["program_pass"];
    CHECK(pass["streamed"] == false);
    CHECK(pass["in_memory_because"].get<std::string>().find("calls MPI") != std::string::npos);
}

TEST_CASE("cli: task-to-node mappings") {
    // 4 ranks, 2 per node. Rank 0 sends 1 MiB to rank 1 and rank 2 to rank 3 at 0, 1 ms each at
    // 1000 MiB/s. Filled (nodes {0,0,1,1}) both messages stay inside a node: instantaneous, runtime
    // 0. Interleaved (nodes {0,1,0,1}) both cross the network: 1 ms with unlimited links, 2 ms
    // with the default single output link of node 0 (as in Dimemas configurations).
    const auto path = test::synth_trace(
        "cli_mapping", "ranks 4\n0 Send 1us to=1 size=1048576\n1 Recv 1us from=0 size=1048576\n"
                       "2 Send 1us to=3 size=1048576\n3 Recv 1us from=2 size=1048576\n");
    const auto dir = test::scratch_dir("cli_mapping_out");
    const auto json = (dir / "m.json").string();
    std::string base =
        "simulate " + path + " --bandwidth 1000MiB/s --tasks-per-node 2 --json " + json;
    REQUIRE(run_popsim(base + " --mapping interleaved").status == 0);
    CHECK(read_json(json)["predicted_runtime_ns"] == 2000000);
    base += " --links 0";
    REQUIRE(run_popsim(base + " --mapping fill").status == 0);
    CHECK(read_json(json)["predicted_runtime_ns"] == 0);
    REQUIRE(run_popsim(base + " --mapping interleaved").status == 0);
    CHECK(read_json(json)["predicted_runtime_ns"] == 1000000);
    REQUIRE(run_popsim(base + " --mapping 0:1:1:1").status ==
            0); // only the first message crosses nodes
    CHECK(read_json(json)["predicted_runtime_ns"] == 1000000);
    CHECK(run_popsim(base + " --mapping 0:1").status == 1);

    // A configuration's "mapping information" is the mapping unless --mapping is given (issue 34,
    // item 8: the default fill overwrote it). Its {0, 0, 1, 1} keeps both messages inside a node:
    // 0 ns; --mapping 0:1:0:1 sends both across, at once (unlimited links): 1 ms.
    auto config = [&](const std::string& name, const std::string& mapping) {
        return test::write_file(
            dir / name,
            "#DIMEMAS_CONFIGURATION\n"
            "\"environment information\" {\"\", 0, \"\", 2, 1000.0, 0, 1};;\n"
            "\"multi node information\" {0, 2, \"\", 2, 1.0, 0.0, 0.0, 0, 0, 0, 0.0, 0, 0, 0.0};;\n"
            "\"mapping information\" {\"t.dim\", " +
                mapping + "};;\n");
    };
    const auto filled = config("filled.cfg", "4, [4] {0, 0, 1, 1}");
    const auto from_config = "simulate " + path + " --config " + filled + " --json " + json;
    REQUIRE(run_popsim(from_config).status == 0);
    CHECK(read_json(json)["predicted_runtime_ns"] == 0);
    CHECK(read_json(json)["network"].get<std::string>().ends_with(
        "mapping from --config, eager 32k"));
    REQUIRE(run_popsim(from_config + " --mapping 0:1:0:1").status == 0);
    CHECK(read_json(json)["predicted_runtime_ns"] == 1000000);
    const auto three = config("three.cfg", "3, [3] {0, 0, 1}");
    test::check_fails("simulate " + path + " --config " + three, 2,
                      three + ": \"mapping information\" places 3 tasks, the trace has 4");
}

TEST_CASE("cli: real traces: warnings one line per kind, --quiet, --strict, --app, JSON") {
    const auto dir = test::scratch_dir("cli_real_traces");
    const auto hpcc = test::shared_data("hpcc/hpcc_2.prv.gz");
    const auto json = (dir / "hpcc.json").string();
    const auto r = run_popsim("analyze " + hpcc + " --json " + json);
    CHECK(r.status == 0);
    CHECK(
        r.output.find("popsim: warning: " + hpcc +
                      ": communication records break MPI's matching rules and were re-paired: "
                      "12334 records received before they are sent, 8 receives dropped as "
                      "cancelled, 12348 records re-paired, 8 sends and 0 receives left without "
                      "a partner (they replay without a message): the first received before it is "
                      "sent: record 17 (1.2.1 -> 1.1.1, tag 2) sent at 0.014336570 s") !=
        std::string::npos);
    const auto t = read_json(json)["traces"][0];
    CHECK(t["communication_repairs"]["cancelled_receives"] == 8);
    CHECK(t["warnings"][0]["kind"] == "repaired-communications");
    CHECK(t["ideal"]["runtime_ns"].get<std::int64_t>() <= t["runtime_ns"].get<std::int64_t>());
    CHECK(t["analysed_windows_ns"] == nlohmann::json::array({{0, 295626750}}));

    const auto quiet = run_popsim("analyze " + hpcc + " --quiet --no-color");
    CHECK(quiet.status == 0);
    CHECK(quiet.output.find("warning") == std::string::npos);

    const auto strict = run_popsim("--strict analyze " + hpcc);
    CHECK(strict.status == 2);
    CHECK(strict.output == "popsim: error: " + hpcc +
                               ": communication records break MPI's matching rules: 12334 are "
                               "received before they are sent, 8 receives were cancelled "
                               "(refused by --strict; without it popsim re-pairs them)\n");

    const auto lulesh = test::shared_data(
        "collected/profet_lulesh/lulesh_7p1_with_uncores_sockets1p2.chop8.prv.gz");
    const auto app3 = run_popsim("simulate " + lulesh + " --app 3");
    CHECK(app3.status == 2);
    CHECK(app3.output == "popsim: error: " + lulesh + ": --app 3: the trace has 2 applications\n");
    const auto sim_json = (dir / "lulesh.json").string();
    CHECK(run_popsim("simulate " + lulesh + " --quiet --json " + sim_json).status == 0);
    const auto kinds = read_json(sim_json)["warnings"];
    std::vector<std::string> names;
    for (const auto& w : kinds) names.push_back(w["kind"]);
    CHECK(names == std::vector<std::string>{"reset-records", "other-applications",
                                            "foreign-communicators", "calls-without-record"});
}

TEST_CASE("cli: a warning that traces of a series share is said once, naming them (issue 36)") {
    // Item 12: epoch's runs each said it, a line per trace. Their counts (704 and 1412
    // MPI_PROC_NULL exchanges) are those each trace alone reports.
    const auto one = test::shared_data("epoch/epoch_1proc.prv.gz"),
               two = test::shared_data("epoch/epoch_2proc.prv.gz");
    const std::string summary =
        "sending or receiving calls have no communication record and replay without a message "
        "(normal for MPI_PROC_NULL partners, e.g. at the edges of a non-periodic halo exchange, "
        "and for messages cut in half by a trace cut; otherwise records were lost)";
    CHECK(run_popsim("analyze " + one + " --no-color")
              .output.find("popsim: warning: " + one + ": 704 " + summary +
                           "; the first: MPI_Sendrecv at "
                           "0.686830634 s on thread 1.1.1\n") != std::string::npos);
    const auto series = run_popsim("analyze " + one + " " + two + " --no-color");
    CHECK(series.status == 0);
    CHECK(series.output.find("popsim: warning: 2 traces: " + summary + ": " + one + " (704), " +
                             two + " (1412)\n") != std::string::npos);
    CHECK(series.output.find("popsim: warning: " + one) == std::string::npos);
}

TEST_CASE("cli: a truncated trace exits 2 in every command, and --allow-truncated analyses it") {
    const auto trace = test::synth_trace(
        "cli_truncated", "ranks 2\n0 compute 1s\n0 Barrier 1s\n1 compute 2s\n1 Barrier 0s\n"
                         "declared_end 8s\n");
    // The header, the communicator and seven records: the last record is on line 9.
    const std::string refusal =
        "popsim: error: " + trace +
        ":9: the trace is truncated (an interrupted merge, copy or simulate -o?): the records "
        "end at 2.000000000 s, 75.0 % of the run the header declares (8.000000000 s) is missing; "
        "--allow-truncated analyses the part that is there\n";
    for (const char* command : {"analyze ", "simulate ", "whatif --latency 1us,2us "}) {
        CAPTURE(command);
        const auto r = run_popsim(command + trace);
        CHECK(r.status == 2);
        CHECK(r.output == refusal);
    }
    const auto allowed = run_popsim("analyze " + trace + " --allow-truncated --no-color");
    CHECK(allowed.status == 0);
    CHECK(allowed.output.find("popsim: warning: " + trace +
                              ": the trace is truncated: the records end at 2.000000000 s, 75.0 % "
                              "of the run the header declares (8.000000000 s) is missing; it is "
                              "analysed up to its last record (--allow-truncated)\n") !=
          std::string::npos);
    CHECK(test::table_row(allowed.output, "Parallel efficiency") == test::Cells{"75.00%"});
}

TEST_CASE("cli: simulate leaves spans with tracing off out of the real run as of the replay") {
    const auto dir = test::scratch_dir("cli_simulate_disabled");
    const auto trace = test::synth_trace("cli_disabled", "ranks 2\n0 state 14 2s\n0 compute 8s\n"
                                                         "0 Barrier 4s\n1 state 14 2s\n"
                                                         "1 compute 6s\n1 Barrier 6s\n");
    const auto json = (dir / "sim.json").string();
    REQUIRE(run_popsim("simulate " + trace + " --json " + json).status == 0);
    CHECK(read_json(json)["real_runtime_ns"] == 12000000000); // 14 s less the 2 s off
    CHECK(read_json(json)["predicted_runtime_ns"] == 8000000000);
}

TEST_CASE("cli: no output replaces an input or another output") {
    const auto trace = test::synth_trace("cli_overwrite", "ranks 2\n0 compute 1s\n1 compute 2s\n");
    const std::string base = trace.substr(0, trace.size() - 4);
    const auto size_before = std::filesystem::file_size(trace);
    auto refused = [&](const std::string& args, const std::string& message) {
        CAPTURE(args);
        const auto r = run_popsim(args);
        CHECK(r.status == 2);
        CHECK(r.output == "popsim: error: " + message + "\n");
    };
    refused("analyze " + trace + " --json " + trace,
            trace + ": --json would overwrite the input trace " + trace +
                "; popsim never replaces its input: choose another output");
    refused("analyze " + trace + " --csv " + base + ".pcf",
            base + ".pcf: --csv would overwrite a file of the input trace " + trace +
                "; popsim never replaces its input: choose another output");
    refused("simulate " + trace + " -o " + trace,
            trace + ": -o would overwrite the input trace " + trace +
                "; popsim never replaces its input: choose another output");
    refused("convert " + trace + " " + trace,
            trace + ": output would overwrite the input trace " + trace +
                "; popsim never replaces its input: choose another output");
    refused("analyze " + trace + " --csv " + base + ".out --json " + base + ".out",
            base + ".out: --csv and --json would both write this file");
    refused("simulate " + trace + " -o " + base + ".sim.prv --json " + base + ".sim.row",
            base + ".sim.row: -o and --json would both write this file");
    CHECK(std::filesystem::file_size(trace) == size_before);
    CHECK_FALSE(std::filesystem::exists(base + ".out"));
    // The same trace twice in a series (also through another spelling of its path).
    const auto other_spelling =
        (std::filesystem::path(trace).parent_path() / "." / std::filesystem::path(trace).filename())
            .string();
    refused("analyze " + trace + " " + other_spelling,
            other_spelling + ": given twice (traces 1 and 2): a series needs each run once");
}

TEST_CASE("cli: no output replaces a configuration, its collectives file or an archive's file") {
    namespace fs = std::filesystem;
    const auto dir = test::scratch_dir("cli_overwrite_inputs");
    const auto trace = test::synth_trace("cli_overwrite_inputs", "ranks 2\n0 compute 1s\n"
                                                                 "1 compute 2s\n");
    auto refused = [&](const std::string& args, const std::string& message) {
        CAPTURE(args);
        const auto r = run_popsim(args);
        CHECK(r.status == 2);
        CHECK(r.output == "popsim: error: " + message + "\n");
    };
    // A Dimemas configuration that names its collectives file, in a folder of its own.
    const auto cfg = (dir / "net.cfg").string(),
               collectives = (dir / "dimemas.collectives").string();
    for (const auto& file : {"lammps_melt_2.dimemas_ideal.cfg", "dimemas.collectives"})
        fs::copy_file(test::shared_data(std::string("lammps-melt/dimemas/") + file),
                      file == std::string("dimemas.collectives") ? collectives : cfg,
                      fs::copy_options::overwrite_existing);
    const auto cfg_before = test::read_file(cfg), collectives_before = test::read_file(collectives);
    const std::string never = "; popsim never replaces its input: choose another output";
    refused("whatif " + trace + " --config " + cfg + " --csv " + cfg,
            cfg + ": --csv would overwrite the input file " + cfg + never);
    refused("simulate " + trace + " --config " + cfg + " -o " + cfg,
            cfg + ": -o would overwrite the input file " + cfg + never);
    refused("whatif " + trace + " --config " + cfg + " --json " + collectives,
            collectives + ": --json would overwrite the input file " + collectives + never);
    refused("analyze " + trace + " --gains --gains-config " + cfg + " --gains-csv " + collectives,
            collectives + ": --gains-csv would overwrite the input file " + collectives + never);
    CHECK(test::read_file(cfg) == cfg_before);
    CHECK(test::read_file(collectives) == collectives_before);
    // An OTF2 archive: its anchor, its definitions and every file in its folder of locations.
    const auto archive = dir / "pp";
    fs::remove_all(archive);
    fs::copy(test::shared_data("otf2/pipit-ping-pong"), archive, fs::copy_options::recursive);
    const auto anchor = (archive / "traces.otf2").string();
    const auto definitions = (archive / "traces.def").string();
    const auto location = (archive / "traces" / "0.evt").string();
    const auto location_before = test::read_file(location);
    refused("analyze " + anchor + " --json " + definitions,
            definitions + ": --json would overwrite a file of the input trace " + anchor + never);
    refused("simulate " + anchor + " --json " + location,
            location + ": --json would overwrite a file of the input trace " + anchor + never);
    refused("convert " + anchor + " " + definitions,
            definitions + ": output would overwrite a file of the input trace " + anchor + never);
    CHECK(test::read_file(location) == location_before);
    // An archive written beside its input's folder would replace that folder.
    const auto inside = (archive / "in.prv").string();
    fs::copy_file(trace, inside, fs::copy_options::overwrite_existing);
    refused("convert " + inside + " " + (dir / "pp.otf2").string(),
            (dir / "pp").string() + ": output would replace the folder " + (dir / "pp").string() +
                ", which holds the input " + inside + never);
    // A trace is files: "-", standard output for a report, is no name for one.
    refused("simulate " + trace + " -o -",
            "-: -o: a trace is written as files (a .prv with its .pcf and .row, an OTF2 archive, "
            "a .dim), not to standard output: name them");
    // Two outputs: an archive's definitions are the archive's.
    refused("simulate " + trace + " -o " + (dir / "out.otf2").string() + " --json " +
                (dir / "out.def").string(),
            (dir / "out.def").string() + ": -o and --json would both write this file");
}

TEST_CASE("cli: an output that cannot be written whole is not written at all (exit 3)") {
    const auto epoch = test::shared_data("epoch/epoch_2proc.prv.gz");
    // A full disk: a one-page (4 KiB) tmpfs, where the test may mount one (root, as CI runs).
    const auto dir = test::scratch_dir("cli_full_disk");
    const auto mount_point = (dir / "tiny").string();
    std::filesystem::create_directories(mount_point);
    if (std::system(("mount -t tmpfs -o size=4k tmpfs " + mount_point + " 2>/dev/null").c_str()) !=
        0) {
        MESSAGE("no tmpfs could be mounted here: the full-disk case is not checked");
        return;
    }
    for (const auto& [command, output] : std::vector<std::pair<std::string, std::string>>{
             {"convert " + epoch + " ", mount_point + "/e.dim"},
             {"convert " + test::shared_data("otf2/pipit-ping-pong/traces.otf2") + " ",
              mount_point + "/p.prv"}, // a Paraver trace from OTF2 (issue 35, item 7)
             {"simulate " + epoch + " -o ", mount_point + "/e.prv"},
             {"analyze " + epoch + " --json ", mount_point + "/e.json"}}) {
        CAPTURE_BINDING(command);
        const auto r = run_popsim(command + output + " --quiet");
        CHECK(r.status == 3);
        CHECK(r.output.find("popsim: error: " + output +
                            ": write failed: No space left on device") != std::string::npos);
    }
    // Nothing is left behind: no truncated file under the real name, no partial file.
    CHECK(std::filesystem::is_empty(mount_point));
    CHECK(std::system(("umount " + mount_point).c_str()) == 0);
}

TEST_CASE("cli: analyze --root-causes: the wait states, traced and on the ideal network") {
    // The late-sender chain (test_support): traced, rank 2 waits 8 us for
    // rank 1 and rank 3 10 us for rank 2; on the ideal network rank 3 waits 9 us.
    const auto path = test::synth_trace("cli_root_causes", test::k_late_sender_chain);
    const auto json = (std::filesystem::path(path).parent_path() / "r.json").string();
    const auto r = run_popsim("analyze " + path + " --root-causes --no-color --json " + json);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("Wait states of") != std::string::npos);
    CHECK(r.output.find("rank 3 for rank 2 (late sender, 1 calls)") != std::string::npos);
    const auto causes = read_json(json)["traces"][0]["root_causes"];
    CHECK(causes["traced"]["total_ns"]["late_sender"] == 18'000);
    CHECK(causes["ideal"]["total_ns"]["late_sender"] == 17'000);
    CHECK(causes["traced"]["per_rank_ns"][2]["late_sender"] == 10'000);
    const auto first = causes["traced"]["pairs"][0];
    CHECK(first["waiting_rank"] == 3);
    CHECK(first["late_rank"] == 2);
    CHECK(first["time_ns"] == 10'000);
    const auto in_calls = causes["traced"]["calls"];
    REQUIRE(in_calls.size() == 1); // both waits are in MPI_Recv
    CHECK(in_calls[0]["call"] == "MPI_Recv");
    CHECK(in_calls[0]["time_ns"] == 18'000);
    CHECK(in_calls[0]["calls"] == 2);
    // Ideal: rank 3 ends last, at 13 us; its wait leads back through rank 2 to rank 1's 10 us.
    const auto critical = causes["critical_path"];
    CHECK(critical["length_ns"] == 13'000);
    CHECK(critical["per_rank_ns"] == nlohmann::json::array({10'000, 0, 3'000}));
    // Traced: rank 3 ends at 15 us; 11-15 us on it, 10-11 us on rank 2, 0-10 us on rank 1.
    CHECK(causes["traced_critical_path"]["per_rank_ns"] ==
          nlohmann::json::array({10'000, 1'000, 4'000}));
    CHECK(r.output.find("Critical path on the ideal network") != std::string::npos);
    // All 17 us of waiting on the ideal network are rank 1's computation (0-based 0).
    const auto delays = causes["delay_costs"];
    CHECK(delays["caused_ns"] == nlohmann::json::array({17'000, 0, 0}));
    CHECK(delays["direct_ns"] == nlohmann::json::array({8'000, 0, 0}));
    CHECK(r.output.find("the computation of: rank 1 100.00% (47.06% directly)") !=
          std::string::npos);
    // Without the replay there is no ideal network to compare with.
    CHECK(run_popsim("analyze " + path + " --root-causes --no-replay").status == 1);
}

TEST_CASE("cli: analyze --root-causes by code region, and its CSV") {
    // test_support's chain in user functions; rank 1 (1-based) computes 4 us in function 1, then
    // 6 us in function 2, before its Send. On the ideal network rank 2 waits 2-10 us and rank 3
    // 1-10 us for that computation: 5 us of it in function 1, 12 us in function 2.
    const auto path = test::synth_trace("cli_root_causes_regions", test::k_chain_in_functions);
    const auto dir = std::filesystem::path(path).parent_path();
    const auto csv = (dir / "causes.csv").string(), json = (dir / "causes.json").string();
    const auto r = run_popsim("analyze " + path + " --root-causes --no-color --root-causes-csv " +
                              csv + " --json " + json);
    REQUIRE(r.status == 0);
    CHECK(
        r.output.find("The same by code region (event type 60000019): rank 1 in 60000019:2 70.59%, "
                      "rank 1 in 60000019:1 29.41%") != std::string::npos);
    const auto causes = read_json(json)["traces"][0]["root_causes"];
    CHECK(causes["code_regions"]["event_type"] == 60000019);
    const auto regions = causes["delay_costs"]["regions"];
    REQUIRE(regions.size() == 2);
    CHECK(regions[0]["causing_rank"] == 1);
    CHECK(regions[0]["region"] == 2);
    CHECK(regions[0]["time_ns"] == 12'000);
    std::ifstream in(csv);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    CHECK(text.starts_with("run,table,timeline,pattern,rank,late_rank,causing_rank,call,"
                           "call_site,region,region_name,time_ns,calls\n"));
    const std::string run = std::filesystem::path(path).filename().string();
    for (const auto* row :
         {",delay_costs,ideal,,,,1,,,,,17000,\n",
          ",delay_cost_regions,ideal,,,,1,,,1,60000019:1,5000,\n",
          ",delay_cost_regions,ideal,,,,1,,,2,60000019:2,12000,\n",
          ",wait_pairs,ideal,late_sender,3,2,,,,,,9000,1\n",
          ",critical_path,ideal,,3,,,,,,,3000,\n", ",critical_path,traced,,2,,,,,,,1000,\n"}) {
        CAPTURE(row);
        CHECK(text.find(run + row) != std::string::npos);
    }
    // With --region, the root causes are the whole run's, by the regions it names.
    const auto focused = (dir / "focused.json").string();
    REQUIRE(run_popsim("analyze " + path + " --region 60000019 --root-causes --json " + focused)
                .status == 0);
    const auto by_region = read_json(focused)["traces"][0]["root_causes"];
    CHECK(by_region["code_regions"]["event_type"] == 60000019);
    CHECK(by_region["delay_costs"]["regions"] == causes["delay_costs"]["regions"]);
    // Code regions another event type names; one the .pcf does not know is the trace's error.
    CHECK(run_popsim("analyze " + path + " --root-causes --code-regions 70000001").status == 0);
    const auto unknown = run_popsim("analyze " + path + " --root-causes --code-regions nosuch");
    CHECK(unknown.status == 2);
    CHECK(unknown.output.find("cli_root_causes_regions.pcf: --code-regions") != std::string::npos);
    // Both need --root-causes.
    CHECK(run_popsim("analyze " + path + " --code-regions 60000019").status == 1);
    CHECK(run_popsim("analyze " + path + " --root-causes-csv " + csv + ".2").status == 1);
}

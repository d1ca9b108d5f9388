// SPDX-License-Identifier: BSD-3-Clause
// One input, one verdict (issue 34, item 9; issue 35, must-show 2): every input of the test corpus
// is analysed streamed, --in-memory, --replay-method longest-path and --root-causes, and simulated
// streamed and --in-memory; all give the same numbers or the same error.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <vector>

using namespace popsim;
namespace fs = std::filesystem;

namespace {

/// What a run said: its status and, on success, the numbers compared; else its first line.
struct Verdict {
    int status = 0;
    std::string error;
    std::vector<nlohmann::json> numbers;
    bool operator==(const Verdict&) const = default;
};

std::string first_line(const std::string& output) {
    const auto error = output.find("popsim: error: ");
    if (error == std::string::npos) return output.substr(0, output.find('\n'));
    return output.substr(error, output.find('\n', error) - error);
}

/// `popsim analyze` of `input` with `options`: the runtime, the ideal replay's and the MPI model's
/// efficiencies.
Verdict analyze(const std::string& input, const std::string& options, const fs::path& json) {
    const auto r = test::run_popsim(
        fmt::format("analyze --quiet {} {} --json {}", input, options, json.string()));
    if (r.status != 0) return {r.status, first_line(r.output), {}};
    const auto t = test::read_json(json.string())["traces"][0];
    return {0, "", {t["runtime_ns"], t["ideal"], t["mpi_multiplicative"], t["rank_breakdown_ns"]}};
}

/// `popsim simulate` of `input` with `options`: the predicted runtime and each thread's times.
Verdict simulate(const std::string& input, const std::string& options, const fs::path& json) {
    const auto r =
        test::run_popsim(fmt::format("simulate {} {} --json {}", input, options, json.string()));
    if (r.status != 0) return {r.status, first_line(r.output), {}};
    const auto j = test::read_json(json.string());
    return {0, "", {j["predicted_runtime_ns"], j["threads"]}};
}

/// Small programs of every kind the replay handles, as `popsim synth` writes them.
std::vector<std::string> synth_programs(const fs::path& dir) {
    const std::vector<std::pair<std::string, std::string>> programs = {
        {"p2p", "ranks 3\n0 compute 2ms\n0 Send 1us to=1 size=100000\n1 Irecv 1us from=0 "
                "size=100000 req=a\n1 compute 1ms\n1 Wait 2ms req=a\n1 Send 1us to=2 size=8\n2 "
                "Recv 4ms from=1 size=8\n"},
        {"collectives", "ranks 4\n0 compute 1ms\n1 compute 2ms\n2 compute 3ms\n3 compute 4ms\n0 "
                        "Allreduce 4ms\n1 Allreduce 3ms\n2 Allreduce 2ms\n3 Allreduce 1ms\n0 Bcast "
                        "1ms root=0 size=64\n1 Bcast 1ms root=0 size=64\n2 Bcast 1ms root=0 "
                        "size=64\n3 Bcast 1ms root=0 size=64\n0 Reduce 1ms root=2 size=8\n1 Reduce "
                        "1ms root=2 size=8\n2 Reduce 1ms root=2 size=8\n3 Reduce 1ms root=2 "
                        "size=8\n"},
        {"startup", "ranks 2\n0 compute 1s\n0 Init 4s\n1 at 2s\n1 Init 3s\n0 compute 2s\n1 "
                    "compute 1s\n0 Barrier 1s\n1 Barrier 2s\n0 Finalize 1s\n1 Finalize 1s\n"},
        {"threads", "ranks 2 threads 2\n0.0 event 60000001 1\n0.0 compute 2s\n0.0 event 60000001 "
                    "0\n0.1 compute 1s\n0.0 Send 1us to=1 size=8\n1.0 Recv 3s from=0 size=8\n"},
        {"truncated",
         "ranks 2\n0 compute 1s\n0 Barrier 1s\n1 compute 2s\n1 Barrier 0s\ndeclared_end "
         "3s\n"},
        {"unmatched", "ranks 2\n0 compute 1s\n0 Send 1us\n1 Recv 2s\n"}};
    std::vector<std::string> out;
    for (const auto& [name, text] : programs) {
        const auto path = (dir / (name + ".prv")).string();
        replay::synth::write_paraver(replay::synth::parse_description(text, name), path);
        out.push_back(path);
    }
    return out;
}

} // namespace

TEST_CASE("modes: every input of the corpus gets one verdict in every mode") {
    const auto dir = test::scratch_dir("modes_differential");
    std::vector<std::string> inputs = synth_programs(dir);
    for (const auto& e :
         fs::directory_iterator(fs::path(POPSIM_SOURCE_DIR) / "fuzz/corpus/paraver"))
        inputs.push_back(e.path().string());
    // A duplicate communicator naming other tasks, and a cut's counts in a trace that is not one.
    const auto base = inputs[1]; // the collectives
    const auto header_edit = [&](const std::string& name, const std::string& line) {
        const auto path = (dir / name).string();
        REQUIRE(test::run_shell(fmt::format("(head -2 {0}; echo '{1}'; tail -n +3 {0}) > {2}", base,
                                            line, path))
                    .status == 0);
        return path;
    };
    const auto duplicate = header_edit("duplicate_communicator.prv", "c:1:1:1:1");
    const auto counts = header_edit("counts_not_cut.prv", "#popsim:collectives-before-cut:1:1:1:2");
    test::check_fails("analyze " + duplicate, 2,
                      duplicate + ":3: communicator 1 of application 1 is defined twice, with "
                                  "other tasks (its c: lines differ)");
    test::check_fails("analyze " + counts, 2,
                      counts + ":3: a collectives-before-cut line in a trace that is not a cut (no "
                               "CUTTER line, as popsim cut and Paraver's cutter write)");
    inputs.insert(inputs.end(), {duplicate, counts});
    std::size_t accepted = 0;
    for (const auto& input : inputs) {
        for (const std::string allow : {"", "--allow-truncated"}) {
            CAPTURE(input);
            CAPTURE(allow);
            const auto json = dir / "report.json";
            const Verdict streamed = analyze(input, allow, json);
            for (const std::string mode :
                 {"--in-memory", "--replay-method longest-path", "--root-causes"}) {
                CAPTURE(mode);
                CHECK(analyze(input, allow + " " + mode, json) == streamed);
            }
            const Verdict simulated = simulate(input, allow, json);
            CHECK(simulate(input, allow + " --in-memory", json) == simulated);
            CHECK(simulated.status == streamed.status);
            CHECK(simulated.error == streamed.error);
            if (streamed.status == 0 && !streamed.numbers[1].is_null()) {
                ++accepted;
                CHECK(simulated.numbers[0] == streamed.numbers[1]["runtime_ns"]);
            }
        }
    }
    CHECK(accepted >= 10); // the comparison is not vacuous
}

// SPDX-License-Identifier: BSD-3-Clause
// The C++ library (include/popsim/popsim.hpp) against hand-computed examples: its tables and
// reports are the commands', its errors say what the program says, with the same kinds.
#include "popsim/popsim.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace {

const popsim::Metric& metric(const std::vector<popsim::Metric>& rows, const std::string& key) {
    const auto it = std::find_if(rows.begin(), rows.end(),
                                 [&](const popsim::Metric& m) { return m.key == key; });
    REQUIRE(it != rows.end());
    return *it;
}

/// The kind and message of the Error `call` throws.
template <class Call> std::pair<popsim::Error::Kind, std::string> error_of(Call call) {
    try {
        call();
    } catch (const popsim::Error& e) {
        return {e.kind(), e.what()};
    }
    FAIL("no popsim::Error");
    return {};
}

} // namespace

TEST_CASE("library: analyze returns the table the command prints and its JSON report") {
    // Two ranks computing 1 s and 3 s, no MPI: runtime 3 s, mean useful 2 s: LB = PE = 2/3,
    // communication efficiency 3 / 3 = 1; the ideal network changes nothing (3 s).
    const auto trace =
        popsim::test::synth_trace("library_analyze", "ranks 2\n0 compute 1s\n1 compute 3s\n");
    const auto a = popsim::analyze({trace}, {{"label", "two"}});
    CHECK(a.table.model == "mpi");
    CHECK(a.table.description.starts_with("Model: MPI, multiplicative (modelfactors)"));
    CHECK(a.table.column_title == "Number of processes");
    CHECK(a.table.columns == std::vector<std::string>{"2"});
    const auto& lb = metric(a.table.metrics, "load_balance");
    CHECK(lb.label == "Load balance");
    CHECK(lb.unit == "fraction");
    CHECK(lb.level == 1); // under Parallel efficiency
    CHECK(lb.values.at(0).value() == doctest::Approx(2.0 / 3));
    CHECK(metric(a.table.metrics, "parallel_efficiency").values.at(0).value() ==
          doctest::Approx(2.0 / 3));
    CHECK(metric(a.table.metrics, "communication_efficiency").values.at(0).value() == 1.0);
    const auto& runtime = metric(a.table.raw, "runtime_ns");
    CHECK(runtime.unit == "ns");
    CHECK(runtime.values.at(0).value() == 3e9);
    CHECK(a.table.html.starts_with("<table class=\"metrics\">"));
    const auto report = nlohmann::json::parse(a.json);
    CHECK(report["schema"] == "popsim/1");
    CHECK(report["command"] == "analyze");
    CHECK(report["traces"][0]["label"] == "two");
    CHECK(report["traces"][0]["ideal"]["runtime_ns"] == 3000000000);
    // The options are analyze's: the OpenMP model lists runs as processes x threads.
    const auto omp = popsim::analyze({trace}, {{"model", "openmp"}, {"no-replay", ""}}).table;
    CHECK(omp.model == "openmp");
    CHECK(omp.columns == std::vector<std::string>{"2x1"});
}

TEST_CASE("library: simulate and whatif return their commands' JSON reports") {
    const auto trace =
        popsim::test::synth_trace("library_simulate", "ranks 2\n0 compute 1s\n1 compute 3s\n");
    const auto simulated = nlohmann::json::parse(popsim::simulate(trace, {{"latency", "5us"}}));
    CHECK(simulated["command"] == "simulate");
    CHECK(simulated["predicted_runtime_ns"] == 3000000000); // no message to delay
    const auto sweep = nlohmann::json::parse(
        popsim::whatif(trace, {{"latency", "1us,10us"}, {"bandwidth", "1GB/s,inf"}}));
    REQUIRE(sweep["configurations"].size() == 4); // the cross product
    CHECK(sweep["configurations"][0]["latency_ns"] == 1000);
    CHECK(sweep["configurations"][3]["latency_ns"] == 10000);
}

TEST_CASE("library: errors are the program's, with their kind") {
    const auto trace =
        popsim::test::synth_trace("library_errors", "ranks 2\n0 compute 1s\n1 compute 3s\n");
    CHECK(
        error_of([] { popsim::analyze({"nope.prv"}); }) ==
        std::pair{popsim::Error::Kind::bad_input, std::string("nope.prv: no such file or folder")});
    const auto [kind, message] = error_of([&] { popsim::analyze({trace}, {{"model", "bogus"}}); });
    CHECK(kind == popsim::Error::Kind::usage);
    CHECK(message.starts_with("--model: 'bogus' is not one of auto, mpi,"));
    CHECK(error_of([&] {
              popsim::analyze({trace}, {{"no-such-option", ""}});
          }).first == popsim::Error::Kind::usage);
    CHECK(error_of([&] {
              popsim::analyze({trace}, {{"help", ""}});
          }) == std::pair{popsim::Error::Kind::usage,
                          std::string(
                              "--help: the library prints nothing; see `popsim COMMAND --help`")});
    // A failed call leaves nothing behind: the next one runs with its own options.
    CHECK(popsim::analyze({trace}).table.model == "mpi");
    CHECK_FALSE(popsim::version().empty());
}

// SPDX-License-Identifier: BSD-3-Clause
// analyze --project on the epoch traces (1-8 processes): the modelfactors fit gives what BSC's
// modelfactors projects from the published factors of the same runs (SciPy 1.10.1: load balance
// 25.8978 %, parallel efficiency 5.27851 %, global efficiency 0.156330 % at 1024 processes).
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace popsim;

TEST_CASE("projection: analyze --project extrapolates epoch as modelfactors does") {
    const auto dir = test::scratch_dir("projection_epoch");
    const auto json = (dir / "p.json").string(), gp = (dir / "p.gp").string(),
               html = (dir / "p.html").string();
    std::string traces;
    for (const int p : {1, 2, 4, 8})
        traces += test::shared_data(fmt::format("epoch/epoch_{}proc.prv.gz", p)) + " ";
    const auto r = test::run_popsim(
        fmt::format("analyze {} --quiet --no-colour --project 64,1024 --json {} --gnuplot {} "
                    "--html {}",
                    traces, json, gp, html));
    REQUIRE_MESSAGE(r.status == 0, r.output);
    const auto projection = test::read_json(json)["projection"];
    CHECK(projection["processes"] == nlohmann::json{64, 1024});
    const std::vector<std::pair<std::string, std::vector<double>>> expected{
        {"Parallel efficiency", {68.49247202, 5.278512344}},
        {"Load balance", {85.01717851, 25.89780189}},
        {"Communication efficiency", {80.56309703, 20.38208635}},
        {"Computation scalability", {33.1361235, 2.96162476}},
        {"Global efficiency", {22.69575011, 0.1563297285}}};
    // Serialisation and transfer too, which modelfactors does not project.
    REQUIRE(projection["factors"].size() == 7);
    CHECK(projection["factors"][3]["name"] == "Serialisation efficiency");
    CHECK(projection["factors"][3]["modelfactors_fits_it"] == false);
    CHECK(projection["factors"][4]["name"] == "Transfer efficiency");
    for (const auto& [name, values] : expected) {
        CAPTURE_BINDING(name);
        const auto& factors = projection["factors"];
        const auto f = std::find_if(factors.begin(), factors.end(),
                                    [&name = name](const auto& x) { return x["name"] == name; });
        REQUIRE(f != factors.end());
        CHECK((*f)["modelfactors_fits_it"] == true);
        for (std::size_t i = 0; i < 2; ++i)
            CHECK(100 * (*f)["modelfactors"]["values"][i].get<double>() ==
                  doctest::Approx(values[i]).epsilon(2e-5));
        // The best form's leave-one-out range holds its projection.
        for (std::size_t i = 0; i < 2; ++i) {
            CHECK((*f)["best"]["low"][i].get<double>() <= (*f)["best"]["values"][i].get<double>());
            CHECK((*f)["best"]["values"][i].get<double>() <= (*f)["best"]["high"][i].get<double>());
        }
    }
    CHECK(r.output.find("Load balance") != std::string::npos);
    CHECK(test::read_file(html).find("<h2>Projection</h2>") != std::string::npos);
    const auto script = test::read_file(gp);
    CHECK(script.find("load( x ) = ( x > 1 ) ? ") != std::string::npos);
    CHECK(script.find("glob( x ) = para( x ) * comp( x ) / 100\n") != std::string::npos);
    CHECK(script.ends_with("e\npause -1\n"));
    // One process count is no series to fit.
    const auto one = test::run_popsim(fmt::format("analyze {} --quiet --project 64",
                                                  test::shared_data("epoch/epoch_4proc.prv.gz")));
    CHECK(one.status != 0);
    CHECK(one.output.find("two process counts") != std::string::npos);
    CHECK(test::run_popsim(fmt::format("analyze {} --quiet --gnuplot {}",
                                       test::shared_data("epoch/epoch_4proc.prv.gz"), gp))
              .status != 0);
}

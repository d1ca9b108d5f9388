// SPDX-License-Identifier: BSD-3-Clause
// analyze --communication (issue 36, item 7): the communication matrix, the message sizes and the
// time profile, against awk over the trace's own message records and a run computed by hand.
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <numeric>

using namespace popsim;

TEST_CASE("communication: epoch's messages as the trace's 3: records count them") {
    // zcat epoch_8proc.prv.gz | awk -F: '$1==3 {n++; b+=$14; if ($4==1 && $10==2) {p++;
    // pb+=$14}; if ($14>=32768 && $14<65536) big++}': 5100 messages, 214386256 bytes, 325
    // (15742592 bytes) from rank 1 to rank 2, 4240 of [32 KiB, 64 KiB).
    const auto trace = test::shared_data("epoch/epoch_8proc.prv.gz");
    const auto dir = test::scratch_dir("communication_epoch");
    const auto json = (dir / "c.json").string(), csv = (dir / "c.csv").string(),
               html = (dir / "c.html").string();
    const auto r = test::run_popsim(fmt::format(
        "analyze {} --communication --communication-csv {} --json {} --html {} --quiet --no-color",
        trace, csv, json, html));
    REQUIRE(r.status == 0);
    CHECK(r.output.find("Communication of " + trace +
                        ": 5100 messages, 204.5 MiB between 8 "
                        "ranks\n") != std::string::npos);
    const auto c = test::read_json(json)["traces"][0]["communication"];
    CHECK(c["messages"] == 5100);
    CHECK(c["bytes"] == 214386256);
    CHECK(c["pairs"][0] ==
          nlohmann::json({{"sender", 1}, {"receiver", 2}, {"messages", 325}, {"bytes", 15742592}}));
    bool found = false;
    for (const auto& bin : c["message_sizes"]) {
        if (bin["from_bytes"] != 32768) continue;
        found = true;
        CHECK(bin["to_bytes"] == 65536);
        CHECK(bin["messages"] == 4240);
    }
    CHECK(found);
    const auto rows = test::read_file(csv);
    CHECK(rows.starts_with("run,table,sender,receiver,from_bytes,to_bytes,rank,from_ns,to_ns,"
                           "messages,bytes,useful_ns,mpi_ns\n"
                           "epoch_8proc.prv.gz,pairs,1,2,,,,,,325,15742592,,\n"));
    const auto page = test::read_file(html);
    CHECK(page.find("<h2>Communication</h2>") != std::string::npos);
    CHECK(
        page.find("<table class=\"heat comm-matrix\"><tr><th>sender \\ receiver</th><th>1</th>") !=
        std::string::npos);
    // 15742592 of 214386256 bytes: 7.3 %.
    CHECK(page.find("title=\"1 -> 2: 325 messages, 15.0 MiB\">7.3%</td>") != std::string::npos);
    CHECK(page.find("<td class=\"label\">[32 KiB, 64 KiB)</td><td>4240</td>") != std::string::npos);
    CHECK(page.find("<svg class=\"time-profile\"") != std::string::npos);
}

TEST_CASE("communication: a time profile and a size by hand") {
    // Rank 1 computes 1 s and sends 1000 bytes (in [512 B, 1 KiB)); rank 2 computes 0.5 s, then
    // waits in its receive until the message comes at 1 s.
    const auto trace = test::synth_trace("communication_by_hand",
                                         "ranks 2\n0 compute 1s\n0 Send 1us to=1 size=1000\n"
                                         "1 compute 500ms\n1 Recv 500001us from=0 size=1000\n");
    const auto json = (test::scratch_dir("communication_by_hand_out") / "c.json").string();
    REQUIRE(
        test::run_popsim(fmt::format("analyze {} --communication --json {} --quiet", trace, json))
            .status == 0);
    const auto c = test::read_json(json)["traces"][0]["communication"];
    CHECK(c["message_sizes"] ==
          nlohmann::json::array(
              {{{"from_bytes", 512}, {"to_bytes", 1024}, {"messages", 1}, {"bytes", 1000}}}));
    const auto& profile = c["time_profile"];
    const auto sum = [](const nlohmann::json& bins) {
        return std::accumulate(
            bins.begin(), bins.end(), std::int64_t{0},
            [](std::int64_t s, const auto& b) { return s + b.template get<std::int64_t>(); });
    };
    CHECK(sum(profile["useful_ns"][0]) == 1'000'000'000);
    CHECK(sum(profile["useful_ns"][1]) == 500'000'000);
    CHECK(sum(profile["mpi_ns"][0]) == 1'000);
    CHECK(sum(profile["mpi_ns"][1]) == 500'001'000);
    // 100 bins over the 1.000001 s run: rank 2's first bin is all computation, its last but one
    // all waiting.
    const std::int64_t bin = profile["bin_ns"];
    CHECK(bin == 10'000'010);
    CHECK(profile["useful_ns"][1][0] == bin);
    CHECK(profile["mpi_ns"][1][98] == bin);
    test::check_fails(fmt::format("analyze {} --communication-csv x.csv", trace), 1,
                      "--communication-csv writes the views of --communication: add it");
}

TEST_CASE("communication: sizes past 2^63 bytes: shares stay shares, sums stop at 2^64 - 1") {
    // Two messages of 9.3e18 bytes (valid 64-bit sizes): one pair holds all of them; their
    // 1.86e19 bytes pass 2^64 - 1, where the sum stops (it wrapped to 1.5e17 before).
    const std::string send = "0 Send 1us to=1 size=9300000000000000000\n"
                             "1 Recv 1us from=0 size=9300000000000000000\n";
    const auto trace = test::synth_trace("communication_huge", "ranks 2\n" + send + send);
    const auto json = (std::filesystem::path(trace).parent_path() / "c.json").string();
    const auto r =
        test::run_popsim("analyze " + trace + " --communication --no-color --json " + json);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("most bytes (rank -> rank): 1 -> 2 100.00%") != std::string::npos);
    CHECK(test::read_json(json)["traces"][0]["communication"]["bytes"] == UINT64_MAX);
}

// SPDX-License-Identifier: BSD-3-Clause
// Quantities on the command line and in synth descriptions.
#include "pipeline/options/units.hpp"
#include "replay/units.hpp"

#include <doctest/doctest.h>
#include <stdexcept>

using namespace popsim;

TEST_CASE("units: durations") {
    CHECK(replay::parse_duration("8s") == 8'000'000'000);
    CHECK(replay::parse_duration("1.5ms") == 1'500'000);
    CHECK(replay::parse_duration("3us") == 3'000);
    CHECK(replay::parse_duration("12") == 12);
    CHECK(!replay::parse_duration("-1s"));
    CHECK(!replay::parse_duration("fast"));
    CHECK_THROWS_WITH_AS(pipeline::parse_time("5 us"),
                         "'5 us' is not a time (e.g. 5us, 1.5ms, 2s, 300ns)",
                         std::invalid_argument);
    // On the command line a bare number is ambiguous (ns for popsim's clock, s in a Dimemas
    // configuration): only 0 goes without a unit.
    CHECK(pipeline::parse_time("0") == 0);
    CHECK(pipeline::parse_time("300ns") == 300);
    CHECK_THROWS_WITH_AS(pipeline::parse_time("5"), "'5' has no unit: write 5ns, 5us, 5ms or 5s",
                         std::invalid_argument);
}

TEST_CASE("units: bandwidths in Dimemas MB/s (2^20 bytes)") {
    CHECK(pipeline::parse_bandwidth_mbps("1000MiB/s") == 1000.0);
    CHECK(pipeline::parse_bandwidth_mbps("0") == 0.0);
    CHECK_THROWS_WITH_AS(pipeline::parse_bandwidth_mbps("100"),
                         "'100' has no unit: write 100MB/s (10^6 bytes/s) or 100MiB/s (2^20 "
                         "bytes/s, the MB/s of Dimemas configuration files)",
                         std::invalid_argument);
    CHECK(pipeline::parse_bandwidth_mbps("1GiB/s") == 1024.0);
    CHECK(pipeline::parse_bandwidth_mbps("1048576B/s") == doctest::Approx(1.0));
    CHECK(pipeline::parse_bandwidth_mbps("10GB/s") == doctest::Approx(1e10 / 1048576.0));
    CHECK(pipeline::parse_bandwidth_mbps("inf") == 0.0);
    CHECK_THROWS_AS(pipeline::parse_bandwidth_mbps("fast"), std::invalid_argument);
}

TEST_CASE("units: sizes") {
    CHECK(pipeline::parse_bytes("32k") == 32768);
    CHECK(pipeline::parse_bytes("64KiB") == 65536);
    CHECK(pipeline::parse_bytes("1MB") == 1'000'000);
    CHECK(pipeline::parse_bytes("4096") == 4096);
    CHECK_THROWS_AS(pipeline::parse_bytes("lots"), std::invalid_argument);
}

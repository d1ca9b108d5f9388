// SPDX-License-Identifier: BSD-3-Clause
// Dimemas .dim traces: popsim's writer and reader round-trip a replay program, and bad records are
// refused with file and line.
#include "replay/engine/engine.hpp"
#include "replay/input/dimemas_trace.hpp"
#include "replay/network/dimemas_config.hpp"
#include "replay/network/ideal.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace popsim;
using namespace popsim::replay;

TEST_CASE("dimemas trace: epoch 4 ranks replays the same from the .prv and from its .dim") {
    const auto trace = test::read_quiet(test::shared_data("epoch/epoch_4proc.prv.gz"));
    const auto program = build_replay_program(trace);
    const auto path = (test::scratch_dir("dim_roundtrip") / "epoch4.dim").string();
    write_dimemas_trace(program, trace.header.communicators, path);
    const auto back = read_dimemas_trace(path);
    CHECK(back.messages.size() == program.messages.size());
    CHECK(back.collectives.size() == program.collectives.size());
    network::IdealNetwork ideal;
    CHECK(replay_events(back, ideal).runtime == 6051059081); // Dimemas 5.5.0's ideal runtime
    network::DimemasNetwork a(network::read_dimemas_config(
        test::shared_data("epoch/dimemas/epoch_4proc.whatif_lat5us_bw1000_bus1.cfg")));
    network::DimemasNetwork b(network::read_dimemas_config(
        test::shared_data("epoch/dimemas/epoch_4proc.whatif_lat5us_bw1000_bus1.cfg")));
    CHECK(replay_events(back, a).runtime == replay_events(program, b).runtime);
}

TEST_CASE("dimemas trace: bad records name the file and line") {
    const auto dir = test::scratch_dir("dim_bad");
    const auto header = std::string("#DIMEMAS:\"t\":1,000000000000:2(1,1),0\n");
    const auto kind = test::write_file(dir / "kind.dim", header + "1:0:0:1.0\n42:0:0\n");
    CHECK_THROWS_WITH_AS(
        read_dimemas_trace(kind),
        (kind + ":3: record kind 42 is not supported (0, 1, 2, 3, 10, 20)").c_str(), TraceError);
    const auto task = test::write_file(dir / "task.dim", header + "1:5:0:1.0\n");
    CHECK_THROWS_WITH_AS(read_dimemas_trace(task),
                         (task + ":2: task 5 does not exist (the header declares 2)").c_str(),
                         TraceError);
    const auto lonely = test::write_file(dir / "lonely.dim", header + "2:0:0:1:-1:8:0:1:2\n");
    CHECK_THROWS_WITH_AS(read_dimemas_trace(lonely), doctest::Contains("lacks its receive"),
                         TraceError);
    // Issue 34, item 9, and 35, item 6: what the event replay and the longest path would read
    // differently, or what names nothing, is refused.
    const std::string send = "2:0:0:1:-1:8:0:1:2\n";
    const std::vector<std::pair<std::string, std::string>> refused = {
        {send + "3:1:0:0:-1:8:0:1:0\n3:1:0:0:-1:8:0:1:0\n",
         ":4: a second receive of the same message (same tasks, tag and id; the first on line 3)"},
        {send + "3:1:0:0:-1:8:0:1:1\n3:1:0:0:-1:8:0:1:2\n3:1:0:0:-1:8:0:1:2\n",
         ":5: a second wait for the same message (same tasks, tag and id; the first on line 4)"},
        {send + "3:1:0:0:-1:8:0:1:2\n",
         ":3: a wait for a message whose receive was not posted before it (its Irecv, type 1)"},
        {"d:1:1:2:0:7\n", ":2: communicator 1 names task 7, which does not exist (the header "
                          "declares 2)"},
        {"d:1:1:2:0:1\n10:0:0:10:9:1:-1:8:8\n10:1:0:10:9:0:-1:8:8\n",
         ":3: a global operation on communicator 9, which no d: line defines"},
        {"1:0:0:nan\n", ":2: burst duration 'nan' is not a finite number of seconds"},
        {"1:0:0:0x1p-3\n", ":2: burst duration '0x1p-3' is not a decimal number of seconds"},
        {"1:0:0:1.5s\n", ":2: burst duration '1.5s' is not a decimal number of seconds"}};
    int i = 0;
    for (const auto& [records, message] : refused) {
        CAPTURE_BINDING(records);
        const auto path =
            test::write_file(dir / fmt::format("refused{}.dim", i++), header + records);
        CHECK_THROWS_WITH_AS(read_dimemas_trace(path), (path + message).c_str(), TraceError);
    }
    // Dimemas writes decimals, some with an exponent: 1.5e-06 s is 1500 ns.
    const auto exponent = test::write_file(dir / "exponent.dim", header + "1:0:0:1.5e-06\n");
    network::IdealNetwork ideal;
    CHECK(replay_events(read_dimemas_trace(exponent), ideal).runtime == 1500);
    // A file cut short: in a record (no newline after its last line), or before the offset table
    // the header places at byte 60 (the header is 37 bytes, the burst line 10).
    const auto cut = test::write_file(dir / "cut.dim", header + "1:0:0:1.0\n1:0:0:0.0");
    CHECK_THROWS_WITH_AS(read_dimemas_trace(cut),
                         (cut + ":3: the trace is truncated: its last line has no newline (cut "
                                "mid-line)")
                             .c_str(),
                         TraceError);
    const auto short_table =
        test::write_file(dir / "short.dim", "#DIMEMAS:\"t\":1,000000000060:2(1,1),0\n1:0:0:1.0\n");
    CHECK_THROWS_WITH_AS(read_dimemas_trace(short_table),
                         (short_table + ":2: the trace is truncated: its header places the offset "
                                        "table at byte 60, but the file has 47 bytes")
                             .c_str(),
                         TraceError);
    const auto not_dim = test::write_file(dir / "x.dim", "hello\n");
    CHECK_THROWS_WITH_AS(
        read_dimemas_trace(not_dim),
        (not_dim + ":1: not a Dimemas trace: the first line does not start with '#DIMEMAS:'")
            .c_str(),
        TraceError);
}

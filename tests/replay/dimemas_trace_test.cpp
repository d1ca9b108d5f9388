// Dimemas .dim traces: popsim's writer and reader round-trip a replay program, and bad records are
// refused with file and line.
#include "replay/engine/engine.hpp"
#include "replay/input/dimemas_trace.hpp"
#include "replay/network/dimemas_config.hpp"
#include "replay/network/ideal.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

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
    const auto not_dim = test::write_file(dir / "x.dim", "hello\n");
    CHECK_THROWS_WITH_AS(
        read_dimemas_trace(not_dim),
        (not_dim + ":1: not a Dimemas trace: the first line does not start with '#DIMEMAS:'")
            .c_str(),
        TraceError);
}

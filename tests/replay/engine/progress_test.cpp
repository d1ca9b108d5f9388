// SPDX-License-Identifier: BSD-3-Clause
// Progress reports for the bars of long runs: the reader counts the file's own bytes (compressed
// ones for gzip, so a .prv.gz shows a percentage), the replay its finished operations.
#include "replay/engine/engine.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/network/ideal.hpp"
#include "replay/program/replay_program.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>

using namespace popsim;

TEST_CASE("progress: the reader reports the bytes of the file, compressed ones for gzip") {
    for (const char* name : {"epoch/epoch_2proc.prv.gz", "epoch/epoch_1proc.prv.gz"}) {
        const auto path = test::shared_data(name);
        CAPTURE(path);
        replay::ReadOptions options;
        options.read_labels = false;
        options.block_bytes = 1 << 16; // many reports
        std::uint64_t last = 0, calls = 0;
        bool increasing = true;
        options.on_progress = [&](std::uint64_t bytes) {
            increasing = increasing && bytes >= last;
            last = bytes;
            ++calls;
        };
        replay::read_paraver(path, options);
        CHECK(increasing);
        CHECK(calls > 10);
        CHECK(last == std::filesystem::file_size(path)); // the whole file, not its text
    }
}

TEST_CASE("progress: the replay reports every operation once") {
    std::string description = "ranks 2\n";
    for (int i = 0; i < 40000; ++i)
        description += "0 Send 1us to=1 size=8\n1 Recv 1us from=0 size=8\n";
    const auto trace = test::read_quiet(test::synth_trace("progress_replay", description));
    const auto program = replay::build_replay_program(trace);
    std::uint64_t reported = 0, calls = 0;
    replay::network::IdealNetwork ideal;
    replay::replay_events(program, ideal,
                          {.timeline = false, .on_progress = [&](std::uint64_t ops) {
                               reported += ops;
                               ++calls;
                           }});
    CHECK(reported == program.op_count());
    CHECK(calls >= 2); // more than 2^16 operations: reported on the way, then the rest
}

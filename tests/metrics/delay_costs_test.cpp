// Issue 18: delay costs on hand-computed cases, and their identity on the validation traces:
// every instant of every wait of the ideal replay is some rank's computation.
#include "metrics/root_causes.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace popsim;

namespace {
metrics::RootCauses causes_of(const std::string& path) {
    const auto trace = test::read_quiet(path);
    return metrics::root_causes(trace, replay::build_replay_program(trace));
}
using Pairs = std::map<std::pair<std::uint32_t, std::uint32_t>, Time>;
} // namespace

TEST_CASE("delay costs: a chain of late senders, by hand (ranks 0-based)") {
    // Ideal network (test_support's chain): rank 1 waits 2-10 us for rank 0, which computed
    // then: 8 us caused directly by rank 0. Rank 2 waits 1-10 us for rank 1's send at 10 us; rank
    // 1 was computing 1-2 us, but its send waited for rank 0's message anyway, so the chain that
    // set 10 us is rank 0's computation over all of 1-10 us: 9 us, caused by rank 0 through rank
    // 1's wait (not directly). Rank 1's 1 us changed nothing: it is charged nothing.
    const auto c = causes_of(test::synth_trace("delay_chain", test::k_late_sender_chain));
    CHECK(c.ideal.total.total() == 17'000);
    CHECK(c.delays.caused == std::vector<Time>{17'000, 0, 0});
    CHECK(c.delays.direct == std::vector<Time>{8'000, 0, 0});
    CHECK(c.delays.pairs == Pairs{{{0, 1}, 8'000}, {{0, 2}, 9'000}});
    CHECK(c.delays.unexplained == 0);
}

TEST_CASE("delay costs: imbalance that alternates, with a perfect average balance") {
    // Two iterations of compute + Allreduce: rank 0 computes 3 then 1 us, rank 1 1 then 3 us
    // (4 us each). Rank 1 waits 2 us in the first Allreduce, caused by rank 0; rank 0 waits 2 us
    // in the second, caused by rank 1: serialisation with a perfect load balance.
    const auto c = causes_of(test::synth_trace("delay_alternating", R"(ranks 2
0 compute 3us
0 Allreduce 1us size=8
0 compute 1us
0 Allreduce 3us size=8
1 compute 1us
1 Allreduce 3us size=8
1 compute 3us
1 Allreduce 1us size=8
)"));
    CHECK(c.ideal.total.total() == 4'000);
    CHECK(c.delays.caused == std::vector<Time>{2'000, 2'000});
    CHECK(c.delays.pairs == Pairs{{{0, 1}, 2'000}, {{1, 0}, 2'000}});
    CHECK(c.critical_path.length == 6'000); // 3 + 3 us: each iteration's slower rank
}

TEST_CASE("delay costs: they add up to the ideal replay's waiting on the validation traces") {
    for (const char* name : {"epoch/epoch_8proc.prv.gz", "lammps-melt/lammps_melt_4.prv.gz",
                             "hpcg-hybrid/hpcg_2x2.prv.gz"}) {
        CAPTURE(name);
        const auto c = causes_of(test::shared_data(name));
        Time caused = 0, in_pairs = 0;
        for (const Time t : c.delays.caused) caused += t;
        for (const auto& [key, t] : c.delays.pairs) in_pairs += t;
        CHECK(caused + c.delays.unexplained == c.ideal.total.total());
        CHECK(in_pairs == caused);
        CHECK(c.delays.unexplained == 0);
    }
}

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Who caused the waiting (docs/metrics.md, "Root causes"): each wait state of the ideal replay
// charged to the computation that made its partner late. While W waited, from its entry a_W to
// its late partner's entry a_D, the partner was computing or itself waiting; its waits are
// followed to their own partners (DependencyWalk), so every instant of [a_W, a_D) is the
// computation of the rank on the chain of dependencies that set a_D: the wait's cost, direct
// when that rank is the partner itself, propagated when it lies further back (Böhme et al.'s
// short- and long-term costs, read off the ideal timeline rather than compared per interval).
//
// Example:
//   auto costs = popsim::metrics::delay_costs(program, result, waits);
//   costs.caused[3]; // the waiting rank 4's computation caused
#include "metrics/code_regions.hpp"
#include "metrics/startup.hpp"
#include "metrics/wait_states.hpp"

#include <map>
#include <utility>
#include <vector>

namespace popsim::metrics {

struct DelayCosts {
    std::vector<Time> caused;  // per task: the waiting its computation caused
    std::vector<Time> direct;  // of that, as the late partner itself (short-term)
    std::vector<Time> startup; // per task: the waiting its start-up caused (StartupBursts)
    std::map<std::pair<std::uint32_t, std::uint32_t>, Time> pairs; // (causing, waiting) task
    /// (causing task, the code region of its computation: code_regions.hpp)
    std::map<std::pair<std::uint32_t, std::uint64_t>, Time> regions;
    Time unexplained = 0; // no computation found (should be 0 on the ideal network)
};

/// `waits`: the wait states of `result`, a replay of `program` on the ideal network with its
/// timeline; `startup`: its start-up bursts, whose costs are kept apart. The costs add up to the
/// waits: sum(caused) + sum(startup) + unexplained = waits.total.total().
DelayCosts delay_costs(const replay::ReplayProgram& program, const replay::ReplayResult& result,
                       const WaitStates& waits, const CodeRegions& regions,
                       const StartupBursts& startup);

} // namespace popsim::metrics

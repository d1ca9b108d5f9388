// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What should I fix first (docs/metrics.md, "Gains"): `analyze --gains` replays candidate fixes on
// the ideal network — the network itself, balanced computation, and each of the code regions
// with the most computation on the ideal critical path twice as fast — and on a Dimemas model of
// the traced network when given one, and ranks them by the time they would save on the traced
// run, with the efficiency each one moves.
#include "metrics/trace_summary.hpp"
#include "pipeline/options/network_options.hpp"
#include "pipeline/whatif/predicted_efficiencies.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/trace.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace popsim::pipeline {

struct Gain {
    enum class Kind { network, balance, speedup } kind = Kind::network;
    std::string fix;        // "ideal network", "balanced computation", "User function x 2x faster"
    std::string region;     // a speed-up's region as TYPE:VALUE; else empty
    Time ideal_runtime = 0; // the fix replayed on the ideal network
    Time network_runtime = 0; // on the traced network's model (Gains::network), if given
    Time runtime = 0; // on the traced network: traced - (ideal or model - fixed ideal or model)
    double useful_change = 0; // the average useful time's relative change (-0.1: 10 % less)
    WhatifEfficiencies e;     // of the run `runtime` long
};

struct Gains {
    Time runtime = 0, ideal_runtime = 0; // traced (its analysed windows), on the ideal network
    struct Network {
        std::string config; // the Dimemas .cfg modelling the traced network
        Time runtime = 0;   // the traced program replayed on it
    };
    std::optional<Network> network; // given: each fix saves what it saves there
    WhatifEfficiencies traced;      // the traced run's, with the same definitions
    std::uint32_t region_type = 0;  // the code regions' event type (0: none)
    std::vector<Gain> fixes;        // most time saved first
};

/// `program` built from `trace` (in memory, with the region types read), `summary` its analysis
/// with the ideal replay (by the event engine's rules: the fixes are replayed by it, side by
/// side); `network`: a model of the traced network (a Dimemas .cfg without modules), or none;
/// `top_regions`: how many regions to speed up and balance.
Gains rank_gains(const replay::Trace& trace, const replay::ReplayProgram& program,
                 const metrics::TraceSummary& summary,
                 const std::optional<NetworkOptions>& network = std::nullopt,
                 std::size_t top_regions = 5);

/// "LB 69.73% -> 98.12%": the efficiency among LB, SerE and TE that moves most, or the
/// computation's change when a speed-up moves none as much.
std::string moves(const Gains& gains, const Gain& gain);

nlohmann::json gains_json(const Gains& gains);

} // namespace popsim::pipeline

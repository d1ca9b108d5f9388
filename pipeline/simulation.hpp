// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// simulate's computation, one layer below the command (docs/architecture.md): the trace's program
// replayed on one network, with code what-ifs, the predicted run's efficiencies, and the simulated
// trace written when asked for.
//
// Example:
//   const auto s = popsim::pipeline::simulate({.trace = "run.prv", .network = {.latency = "1us"}});
//   // s.result.runtime: the predicted runtime; s.efficiencies: PE, LB, CommE, SerE, TE
#include "pipeline/load_program.hpp"
#include "pipeline/options/focus.hpp"
#include "pipeline/options/network_options.hpp"
#include "pipeline/processes/work_division.hpp"
#include "pipeline/whatif/code_whatif.hpp"
#include "pipeline/whatif/predicted_efficiencies.hpp"
#include "replay/engine/replay_result.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

/// simulate's options.
struct SimulateOptions {
    std::string trace;
    FocusOptions window; // --from/--to
    NetworkOptions network;
    std::vector<std::string> speedups;  // --speedup REGION=FACTOR
    std::optional<std::string> balance; // --balance [REGION]
    /// -o: the simulated trace to write (.prv with its .pcf/.row, or an OTF2 anchor); empty: none.
    std::string output;
    bool in_memory = false;
};

/// The simulated run and what it was replayed from.
struct Simulation {
    std::unique_ptr<LoadedProgram> loaded; // the trace's program, its warnings and pass
    std::optional<CodeWhatif> code;        // the code changes' regions, found in the trace
    CodeChange change;                     // the one simulated
    replay::ReplayResult result;           // on the network
    Time ideal_runtime = 0;                // on the ideal network, the same CPUs and code
    WhatifEfficiencies efficiencies;       // of the predicted run (docs/metrics.md)
    /// False on a process of an MPI run that helped another read the trace.
    bool reports_here = true;
};

/// Checks the network options (before the trace), reads the trace, replays it and writes the
/// simulated trace (`options.output`). Bad options are std::invalid_argument, bad traces
/// TraceError. `division`: an MPI run, whose reporting process simulates while the others help it
/// read the trace.
Simulation simulate(const SimulateOptions& options, WorkDivision* division = nullptr);

} // namespace popsim::pipeline

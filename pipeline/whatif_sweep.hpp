// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What `popsim whatif` computes, apart from how it is shown: the cross product of the swept
// network parameters and code changes, each configuration replayed on the trace's program
// (written down once), with the efficiencies of each predicted run (docs/network-model.md).
#include "pipeline/load_program.hpp"
#include "pipeline/options/focus.hpp"
#include "pipeline/options/network_options.hpp"
#include "pipeline/processes/work_division.hpp"
#include "pipeline/whatif/code_whatif.hpp"
#include "pipeline/whatif/predicted_efficiencies.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

/// whatif's options: what to sweep.
struct WhatifOptions {
    std::string trace;
    FocusOptions window;                // --from/--to
    NetworkOptions network;             // values may be comma-separated lists
    std::vector<std::string> speedups;  // --speedup REGION=FACTOR[,FACTOR...]
    std::optional<std::string> balance; // --balance [REGION]: each configuration also balanced
    bool in_memory = false;
};

/// A parameter `whatif` can sweep: its option, its values as typed, and their value in the
/// parameter's base unit (the CSV's and JSON's typed columns).
struct SweptParameter {
    std::string name;        // "latency": the option without dashes, the column's name
    std::string base_column; // "latency_ns", "bandwidth_bytes_per_s", "buses"
    std::optional<std::string> NetworkOptions::*field; // null for a --speedup
    std::vector<std::string> values;                   // as typed; empty when not given
    bool has_unit = false;              // typed with a unit: a column as typed beside the base one
    std::optional<std::size_t> speedup; // the --speedup it is, in their order
    bool balance = false;               // --balance: "no", "yes"

    /// Given with a unit: the CSV and JSON have the values as typed too.
    bool typed_column() const { return has_unit && !values.empty(); }
};

/// One configuration of the sweep: the index of its value in each parameter's list.
struct Configuration {
    std::vector<std::size_t> value; // per parameter; 0 for those not given
    NetworkOptions network;         // single values
    CodeChange code;                // each --speedup's factor, and --balance
};

struct Prediction {
    Time runtime = 0, ideal = 0; // on the network, and on the ideal one with the same CPUs
    std::vector<double> base;    // each parameter's value in its base unit
    WhatifEfficiencies e;
};

/// The sweep, configuration by configuration, with what it was replayed on.
struct Sweep {
    std::vector<SweptParameter> parameters;
    std::vector<Configuration> configs;    // every combination, the first parameter varying slowest
    std::vector<Prediction> predictions;   // one per configuration
    std::unique_ptr<LoadedProgram> loaded; // the trace's program, its warnings and pass
    std::optional<CodeWhatif> code;        // the code changes' regions, found in the trace
    Time real_runtime = 0;                 // the traced run (0 for a .dim trace)
    Time ideal_runtime = 0;                // the traced program on the ideal network
    std::optional<TracedUseful> traced;    // the traced run's useful computation, as analyze's
    /// False on a process of an MPI run that replayed its configurations for another to show.
    bool reports_here = true;
};

/// Reads the trace, writes its program down once and replays every configuration, side by side.
/// Bad options are std::invalid_argument (before the trace is read), bad traces TraceError.
/// `division`: the configurations divided among the processes of an MPI run (round robin); every
/// process calls sweep, and the reporting one gets every prediction.
Sweep sweep(const WhatifOptions& options, WorkDivision* division = nullptr);

} // namespace popsim::pipeline

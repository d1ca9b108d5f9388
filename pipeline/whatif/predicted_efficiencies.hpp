// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The POP efficiencies of a predicted run (docs/metrics.md, "On another network"): analyze's PE,
// LB and CommE applied to the predicted runtime, CommE split into Transfer against the ideal
// network with the same CPUs and code, and Serialisation. simulate, whatif and analyze --gains
// report them.
#include "metrics/trace_summary.hpp"
#include "replay/engine/replay_result.hpp"
#include "replay/time.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

/// NaN where undefined.
struct WhatifEfficiencies {
    double speedup = 0, parallel = 0, load_balance = 0, communication = 0, serialization = 0,
           transfer = 0;
};

/// The five efficiencies, in the order the reports give them: short name, JSON key, member.
struct EfficiencyField {
    const char* name;
    const char* key;
    double WhatifEfficiencies::*value;
};
inline constexpr std::array<EfficiencyField, 5> k_efficiency_fields{
    {{"PE", "parallel_efficiency", &WhatifEfficiencies::parallel},
     {"LB", "load_balance", &WhatifEfficiencies::load_balance},
     {"CommE", "communication_efficiency", &WhatifEfficiencies::communication},
     {"SerE", "serialization_efficiency", &WhatifEfficiencies::serialization},
     {"TE", "transfer_efficiency", &WhatifEfficiencies::transfer}}};

/// Those of `e` outside 0-100 %, as "TE 140.00%".
std::vector<std::string> out_of_range(const WhatifEfficiencies& e);
/// Those of `e` that are undefined (ratios of zero times), by their short names: "PE".
std::vector<std::string> undefined(const WhatifEfficiencies& e);

/// A run `runtime` long whose ideal counterpart takes `ideal_runtime`, useful computation taking
/// `average` and `maximum` over the threads: PE = average / T, LB = average / maximum, CommE =
/// maximum / T, TE = ideal / T, SerE = CommE / TE; the speed-up is `real_runtime` / T.
WhatifEfficiencies efficiencies(Time runtime, Time ideal_runtime, double average, double maximum,
                                Time real_runtime);

/// The traced run's useful computation as `analyze` counts it (the Running state; averaged and
/// maximum over the threads, in its traced windows), and its runtime there.
struct TracedUseful {
    double average = 0, maximum = 0;
    Time runtime = 0;
};

/// `summary`'s, or none without one.
std::optional<TracedUseful> traced_useful(const std::optional<metrics::TraceSummary>& summary);

/// The efficiencies of the replay `r` of `p`, whose ideal counterpart took `ideal_runtime`. Useful
/// computation is the traced run's, as analyze counts it (`traced`, with the code what-ifs made),
/// over the CPU ratio; without states (a Dimemas trace) each task's first thread's replayed time
/// outside MPI.
WhatifEfficiencies on_network(const replay::ReplayResult& r, const replay::ReplayProgram& p,
                              const std::optional<TracedUseful>& traced, double cpu_ratio,
                              Time real_runtime, Time ideal_runtime);

/// The five efficiencies as the JSON reports name them (null where undefined), into `out`.
void add_efficiencies_json(const WhatifEfficiencies& e, nlohmann::json& out);

} // namespace popsim::pipeline

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The POP efficiencies of a predicted run (docs/metrics.md, "On another network"): analyze's PE,
// LB and CommE applied to the predicted runtime, CommE split into Transfer against the ideal
// network with the same CPUs and code, and Serialisation. whatif and analyze --gains report them.
#include "replay/time.hpp"

namespace popsim::simulator {

/// NaN where undefined.
struct WhatifEfficiencies {
    double speedup = 0, parallel = 0, load_balance = 0, communication = 0, serialization = 0,
           transfer = 0;
};

/// A run `runtime` long whose ideal counterpart takes `ideal_runtime`, useful computation taking
/// `average` and `maximum` over the threads: PE = average / T, LB = average / maximum, CommE =
/// maximum / T, TE = ideal / T, SerE = CommE / TE; the speed-up is `real_runtime` / T.
WhatifEfficiencies efficiencies(Time runtime, Time ideal_runtime, double average, double maximum,
                                Time real_runtime);

} // namespace popsim::simulator

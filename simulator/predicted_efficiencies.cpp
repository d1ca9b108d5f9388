// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/predicted_efficiencies.hpp"

#include <cmath>

namespace popsim::simulator {

WhatifEfficiencies efficiencies(Time runtime, Time ideal_runtime, double average, double maximum,
                                Time real_runtime) {
    const double T = static_cast<double>(runtime), ideal = static_cast<double>(ideal_runtime);
    auto ratio = [](double a, double b) { return b == 0 ? std::nan("") : a / b; };
    WhatifEfficiencies e;
    e.speedup = real_runtime == 0 ? std::nan("") : ratio(static_cast<double>(real_runtime), T);
    e.parallel = ratio(average, T);
    e.load_balance = maximum == 0 ? 1 : average / maximum;
    e.communication = ratio(maximum, T);
    e.transfer = ratio(ideal, T);
    e.serialization = ratio(e.communication, e.transfer);
    return e;
}

} // namespace popsim::simulator

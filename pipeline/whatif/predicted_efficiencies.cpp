// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/whatif/predicted_efficiencies.hpp"

#include "metrics/ratio.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace popsim::pipeline {

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

std::optional<TracedUseful> traced_useful(const std::optional<metrics::TraceSummary>& summary) {
    if (!summary) return std::nullopt;
    return TracedUseful{.average = summary->useful_average(),
                        .maximum = static_cast<double>(summary->useful_max()),
                        .runtime = summary->runtime};
}

WhatifEfficiencies on_network(const replay::ReplayResult& r, const replay::ReplayProgram& p,
                              const std::optional<TracedUseful>& traced, double cpu_ratio,
                              Time real_runtime, Time ideal_runtime) {
    if (traced)
        return efficiencies(r.runtime, ideal_runtime, traced->average / cpu_ratio,
                            traced->maximum / cpu_ratio, real_runtime);
    double sum = 0, max = 0;
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
        const auto useful = static_cast<double>(r.task(p, t).outside_mpi());
        sum += useful;
        max = std::max(max, useful);
    }
    return efficiencies(r.runtime, ideal_runtime, p.tasks == 0 ? 0 : sum / p.tasks, max,
                        real_runtime);
}

void add_efficiencies_json(const WhatifEfficiencies& e, nlohmann::json& out) {
    for (const auto& f : k_efficiency_fields) {
        const double v = e.*f.value;
        out[f.key] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
    }
}

std::vector<std::string> out_of_range(const WhatifEfficiencies& e) {
    std::vector<std::string> out;
    for (const auto& f : k_efficiency_fields)
        if (const double v = e.*f.value; std::isfinite(v) && metrics::outside_0_100(v))
            out.push_back(fmt::format("{} {:.2f}%", f.name, 100 * v));
    return out;
}

std::vector<std::string> undefined(const WhatifEfficiencies& e) {
    std::vector<std::string> out;
    for (const auto& f : k_efficiency_fields)
        if (!std::isfinite(e.*f.value)) out.emplace_back(f.name);
    return out;
}

} // namespace popsim::pipeline

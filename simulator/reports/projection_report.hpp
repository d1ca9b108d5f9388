// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// `analyze --project` in the terminal, the JSON report and a gnuplot file in modelfactors' terms
// (docs/metrics.md, "Projections").
#include "metrics/projection.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace popsim::simulator {

/// Each factor measured, then projected to each count: modelfactors' Amdahl fit, and the form
/// that fits best with its leave-one-out range.
std::string format_projection(const metrics::Projection& projection, const TerminalStyle& style);

nlohmann::json projection_json(const metrics::Projection& projection);

/// The HTML report's charts: per factor, the measured runs, modelfactors' curve and the best
/// form's with its range, over `projection`, projected to the measured counts and the asked ones.
std::string projection_html(const metrics::Projection& projection);

/// A gnuplot script as modelfactors writes one: the functions load(x), comm(x), comp(x) (its
/// Amdahl fits, in %), para(x) and glob(x) (their products), defined above the smallest measured
/// count, and the measured points of para, load, comm, comp and glob as inline data.
std::string projection_gnuplot(const metrics::Projection& projection);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// `analyze --gains` in the terminal, the CSV and the HTML report: one row per candidate fix, the
// most time saved first.
#include "pipeline/whatif/gains.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <string>
#include <vector>

namespace popsim::simulator {

struct GainsReport {
    std::string path; // of the trace
    pipeline::Gains gains;
};

std::string format_gains(const GainsReport& report, const TerminalStyle& style);
/// run,rank,fix,kind,region,runtime_ns,ideal_runtime_ns,network_runtime_ns (with
/// --gains-config),saved_ns,saved_fraction,useful_change,
/// then the five efficiencies.
std::string gains_csv(const std::vector<GainsReport>& reports);
/// A section per trace (none without reports).
std::string gains_html(const std::vector<GainsReport>& reports);

} // namespace popsim::simulator

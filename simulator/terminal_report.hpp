#pragma once
// The metric table for people at a terminal: hierarchy indented, one column per trace, values
// coloured on the POP scale (green from 0.8, light red below, red below 0.5) when on a TTY.
#include "simulator/metric_table.hpp"

#include <string>

namespace popsim::simulator {

struct TerminalStyle {
    bool color = false;
    bool fraction = false; // 0.9734 instead of 97.34%
};

std::string format_terminal_table(const MetricTable& table, const TerminalStyle& style);
/// Where a part (a phase, a region instance) lies in the trace.
struct PartSpan {
    double from_s = 0;
    double length_s = 0;
};
/// The same table turned on its side, compact for many columns (phases, region instances): one
/// line per part with its start, length and share of the parts' time, its efficiencies
/// (abbreviated: PE, LB, CommE, ...) and IPC; beyond 40 parts, the 20 longest.
std::string format_parts_table(const MetricTable& table, const std::vector<PartSpan>& spans,
                               const TerminalStyle& style);

} // namespace popsim::simulator

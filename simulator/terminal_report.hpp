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
/// The same table turned on its side, compact for many columns (phases, region instances): one
/// line per column with its span, its efficiencies (abbreviated: PE, LB, CommE, ...) and IPC.
std::string format_parts_table(const MetricTable& table, const std::vector<std::string>& spans,
                               const TerminalStyle& style);

} // namespace popsim::simulator

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

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The metric table for people at a terminal: hierarchy indented, one column per trace, efficiencies
// on the POP scale's background colours (green from 0.8, light red below, red below 0.5, black
// text: legible on dark and light terminals), stacked in blocks of columns to fit the terminal's
// width.
#include "simulator/metric_table.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace popsim::simulator {

struct TerminalStyle {
    bool color = false;
    bool fraction = false; // 0.9734 instead of 97.34%
    std::size_t width = 0; // characters per line; 0 = no limit
};

/// The style for standard output: colours only on a terminal, without --no-color or NO_COLOR
/// (no-color.org); the width of the terminal, or $COLUMNS, or no limit when output is a file.
TerminalStyle terminal_style(bool no_color, bool fraction);

/// `text` broken at spaces into lines of at most `width` characters (0: one line), each ended by
/// a newline; the lines after the first indented by two spaces.
std::string wrap_text(const std::string& text, std::size_t width);

/// An efficiency (a fraction) as the style shows it: "97.34%" or "0.9734".
std::string efficiency_text(double value, const TerminalStyle& style);
/// `part` as a share of `whole`, shown as an efficiency (efficiency_text).
std::string share_text(Time part, double whole, const TerminalStyle& style);
/// `text` on the POP colour of `value` when the style has colours.
std::string pop_colored(const std::string& text, std::optional<double> value,
                        const TerminalStyle& style);

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

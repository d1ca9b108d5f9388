// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The metric table for people at a terminal: hierarchy indented, one column per trace, efficiencies
// on the POP scale's background colours (green from 0.8, light red below, red below 0.5, black
// text: legible on dark and light terminals), stacked in blocks of columns to fit the terminal's
// width.
#include "simulator/reports/metric_table.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

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

/// Each name cut to at most `room` characters (0: no limit) with "..." where it is cut, keeping
/// what tells it from the other names in view: the middle goes by default ("compute_...(a.c:12)"),
/// the part where it differs from its nearest name stays.
std::vector<std::string> shortened_names(const std::vector<std::string>& names, std::size_t room);

/// An efficiency (a fraction) as the style shows it: "97.34%" or "0.9734".
std::string efficiency_text(double value, const TerminalStyle& style);
/// `part` as a share of `whole`, shown as an efficiency (efficiency_text).
std::string share_text(Time part, double whole, const TerminalStyle& style);
/// `text` on the POP colour of `value` when the style has colours.
std::string pop_colored(const std::string& text, std::optional<double> value,
                        const TerminalStyle& style);

std::string format_terminal_table(const MetricTable& table, const TerminalStyle& style);

/// A column of a plain table: right-aligned under its header, each cell on the POP colour of its
/// value when it has one.
struct TextColumn {
    std::string header;
    std::vector<std::string> cells = {};
    std::vector<std::optional<double>> colours = {}; // empty: no colours
    bool bar_after = false;                          // " |" between it and the next column
    std::size_t min_width = 0; // e.g. that of "100.00%", so efficiency columns line up
};
/// The width of "100.00%" or "1.0000": an efficiency column's, whatever its values.
inline constexpr std::size_t k_efficiency_width = 7;
struct ColumnLayout {
    bool underline = false; // the header line underlined with '='
    /// Whether stacked blocks are led by a "#" column numbering the rows, for tables whose first
    /// column does not name a row alone (a parameter's value in a sweep).
    bool number_rows_when_stacked = false;
};
/// Columns side by side, each as wide as its widest cell. Wider than the style's width, they
/// stack in blocks (a blank line between), each led by the column that names the rows: the
/// first, or the row numbers.
std::string format_columns(std::vector<TextColumn> columns, const TerminalStyle& style,
                           ColumnLayout layout);
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

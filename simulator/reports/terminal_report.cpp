// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/terminal_report.hpp"

#include "pipeline/console/terminal.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fmt/format.h>
#include <numeric>
#include <sys/ioctl.h>
#include <unistd.h>

namespace popsim::simulator {

namespace {

constexpr std::size_t k_separator = 3; // " | " before each column

/// Background colours of the POP scale (256-colour palette), with black text: legible whatever
/// the terminal's own background.
const char* background_for(double v) {
    if (v >= 0.9) return "\033[38;5;16;48;5;114m"; // green
    if (v >= 0.8) return "\033[38;5;16;48;5;193m"; // light green
    if (v >= 0.5) return "\033[38;5;16;48;5;224m"; // light red
    return "\033[38;5;16;48;5;210m";               // red
}

std::string value_text(const std::optional<double>& v, ValueKind kind, const TerminalStyle& style) {
    if (!v) return "-";
    switch (kind) {
    case ValueKind::efficiency:
        return efficiency_text(*v, style);
    case ValueKind::number:
        return fmt::format("{:.2f}", *v);
    case ValueKind::time_ns:
        return fmt::format("{:.6f}", *v / 1e9);
    case ValueKind::count:
        return fmt::format("{:.0f}", *v);
    }
    return "-";
}

std::string indented_label(const MetricRow& row) {
    return std::string(static_cast<std::size_t>(row.level) * 2, ' ') + row.label;
}

/// Columns [first, last) of the table as one block: a header, the factors, the raw data.
void append_block(std::string& out, const MetricTable& table, std::size_t first, std::size_t last,
                  std::size_t label_width, const std::vector<std::size_t>& widths,
                  const TerminalStyle& style) {
    auto header = [&](const std::string& title) {
        std::string line = fmt::format("{:<{}}", title, label_width);
        for (std::size_t c = first; c < last; ++c)
            line += fmt::format(" | {:>{}}", table.columns[c], widths[c]);
        out += line + '\n' + std::string(line.size(), '=') + '\n';
    };
    auto rows = [&](const std::vector<MetricRow>& list) {
        for (const auto& row : list) {
            out += fmt::format("{:<{}}", indented_label(row), label_width);
            for (std::size_t c = first; c < last; ++c) {
                const auto& v = row.values[c];
                const std::string text =
                    fmt::format("{:>{}}", value_text(v, row.kind, style), widths[c]);
                out += " | " +
                       (row.kind == ValueKind::efficiency ? pop_colored(text, v, style) : text);
            }
            out += '\n';
            if (row.key == "global_efficiency" || row.key == "frequency_scalability") out += '\n';
        }
    };
    header(table.column_title);
    rows(table.factors);
    if (table.raw.empty()) return;
    out += '\n';
    header("Raw data");
    rows(table.raw);
}

/// "Parallel efficiency" -> "PE", "Communication efficiency" -> "CommE", "OpenMP region
/// efficiency" -> "ORE": short headers for the compact table.
std::string abbreviation(const MetricRow& row) {
    if (row.key == "communication_efficiency") return "CommE";
    if (row.key == "serialization_efficiency") return "SerE";
    if (row.key == "startup_efficiency") return "StartE";
    if (row.key == "average_ipc") return "IPC";
    std::string out;
    bool word_start = true;
    for (char c : row.label) {
        if (word_start && c != ' ' && c != '(') out += static_cast<char>(std::toupper(c));
        word_start = c == ' ' || c == '-';
    }
    return out;
}

} // namespace

std::string format_parts_table(const MetricTable& table, const std::vector<PartSpan>& spans,
                               const TerminalStyle& style) {
    constexpr std::size_t k_all_up_to = 40, k_longest = 20;
    double total = 0;
    for (const auto& s : spans) total += s.length_s;
    // Many parts: the longest, which carry the time, in time order.
    std::vector<std::size_t> listed(spans.size());
    std::iota(listed.begin(), listed.end(), 0);
    if (listed.size() > k_all_up_to) {
        std::stable_sort(listed.begin(), listed.end(), [&](std::size_t a, std::size_t b) {
            return spans[a].length_s > spans[b].length_s;
        });
        listed.resize(k_longest);
        std::sort(listed.begin(), listed.end());
    }
    std::vector<TextColumn> columns{{.header = table.column_title, .bar_after = true},
                                    {.header = "from (s)"},
                                    {.header = "length (s)"},
                                    {.header = "% time", .bar_after = true}};
    double listed_time = 0;
    for (const std::size_t c : listed) {
        listed_time += spans[c].length_s;
        columns[0].cells.push_back(table.columns[c]);
        columns[1].cells.push_back(fmt::format("{:.6f}", spans[c].from_s));
        columns[2].cells.push_back(fmt::format("{:.6f}", spans[c].length_s));
        columns[3].cells.push_back(
            fmt::format("{:.2f}%", total > 0 ? 100 * spans[c].length_s / total : 0.0));
    }
    for (const auto& r : table.factors) {
        if (r.kind != ValueKind::efficiency && r.key != "average_ipc") continue;
        TextColumn column{.header = abbreviation(r), .min_width = k_efficiency_width};
        for (const std::size_t c : listed) {
            column.cells.push_back(value_text(r.values[c], r.kind, style));
            if (r.kind == ValueKind::efficiency) column.colours.push_back(r.values[c]);
        }
        columns.push_back(std::move(column));
    }
    std::string out = format_columns(std::move(columns), style, {.underline = true});
    if (listed.size() < spans.size()) {
        out +=
            fmt::format("(the {} longest of {}, {:.1f} % of the time; --json and --parts-csv "
                        "have every one)\n",
                        listed.size(), spans.size(), total > 0 ? 100 * listed_time / total : 0.0);
    }
    return out;
}

std::string format_columns(std::vector<TextColumn> columns, const TerminalStyle& style,
                           ColumnLayout layout) {
    if (columns.empty()) return {};
    auto gap_after = [&](std::size_t c) { return columns[c].bar_after ? 2 : 0; };
    std::vector<std::size_t> widths;
    std::size_t total = 0;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::size_t w = std::max(columns[c].header.size(), columns[c].min_width);
        for (const auto& cell : columns[c].cells) w = std::max(w, cell.size());
        widths.push_back(w);
        total += (c > 0 ? 1 : 0) + w + gap_after(c);
    }
    if (layout.number_rows_when_stacked && style.width > 0 && total > style.width) {
        TextColumn numbers{.header = "#", .bar_after = true};
        for (std::size_t i = 1; i <= columns[0].cells.size(); ++i)
            numbers.cells.push_back(std::to_string(i));
        columns.insert(columns.begin(), std::move(numbers));
        return format_columns(std::move(columns), style, {.underline = layout.underline});
    }
    auto append_block = [&](std::string& out, const std::vector<std::size_t>& shown) {
        std::string header;
        for (const std::size_t c : shown) {
            if (!header.empty()) header += ' ';
            header += fmt::format("{:>{}}", columns[c].header, widths[c]);
            if (columns[c].bar_after) header += " |";
        }
        out += header + '\n';
        if (layout.underline) out += std::string(header.size(), '=') + '\n';
        const std::size_t rows = columns[0].cells.size();
        for (std::size_t i = 0; i < rows; ++i) {
            std::string line;
            for (const std::size_t c : shown) {
                if (!line.empty()) line += ' ';
                const std::string text = fmt::format("{:>{}}", columns[c].cells[i], widths[c]);
                line += columns[c].colours.empty()
                            ? text
                            : pop_colored(text, columns[c].colours[i], style);
                if (columns[c].bar_after) line += " |";
            }
            out += line + '\n';
        }
    };
    std::string out;
    // Greedy: as many columns as the width holds after the first, at least one per block.
    for (std::size_t next = 1; next < columns.size() || out.empty();) {
        std::vector<std::size_t> shown{0};
        std::size_t line = widths[0] + gap_after(0);
        while (next < columns.size() &&
               (shown.size() == 1 || style.width == 0 ||
                line + 1 + widths[next] + gap_after(next) <= style.width)) {
            line += 1 + widths[next] + gap_after(next);
            shown.push_back(next++);
        }
        if (!out.empty()) out += '\n';
        append_block(out, shown);
    }
    return out;
}

std::string format_terminal_table(const MetricTable& table, const TerminalStyle& style) {
    std::size_t label_width = std::max(table.column_title.size(), std::size_t{8});
    std::vector<std::size_t> widths;
    for (const auto& c : table.columns) widths.push_back(std::max<std::size_t>(c.size(), 6));
    for (const auto* rows : {&table.factors, &table.raw}) {
        for (const auto& r : *rows) {
            label_width = std::max(label_width, indented_label(r).size());
            for (std::size_t c = 0; c < r.values.size(); ++c)
                widths[c] = std::max(widths[c], value_text(r.values[c], r.kind, style).size());
        }
    }
    // As many columns per block as the width holds (at least one): a long series stacks.
    std::string out;
    for (std::size_t first = 0; first < widths.size();) {
        std::size_t last = first + 1, line = label_width + k_separator + widths[first];
        while (last < widths.size() &&
               (style.width == 0 || line + k_separator + widths[last] <= style.width))
            line += k_separator + widths[last++];
        if (first > 0) out += '\n';
        append_block(out, table, first, last, label_width, widths, style);
        first = last;
    }
    return out;
}

TerminalStyle terminal_style(bool no_color, bool fraction) {
    const bool tty = pipeline::watched_terminal(STDOUT_FILENO);
    const char* no_color_variable = std::getenv("NO_COLOR");
    TerminalStyle style{.color = tty && !no_color &&
                                 (no_color_variable == nullptr || *no_color_variable == '\0'),
                        .fraction = fraction};
    if (const char* columns = std::getenv("COLUMNS")) {
        std::size_t n = 0;
        const std::string_view text(columns);
        if (std::from_chars(text.data(), text.data() + text.size(), n).ec == std::errc{})
            style.width = n;
    }
    winsize size{};
    if (style.width == 0 && tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0)
        style.width = size.ws_col;
    return style;
}

namespace {

/// `name` in `room` (> 6) characters, with the character at `differs` in view.
std::string shortened(const std::string& name, std::size_t room, std::size_t differs) {
    if (name.size() <= room) return name;
    const std::size_t keep = room - 3; // characters of the name shown
    std::size_t tail = keep / 2, head = keep - tail;
    if (differs >= head && differs < name.size() - tail) {
        if (name.size() - differs <= keep - 1) { // the tail from where it differs
            tail = name.size() - differs;
            head = keep - tail;
        } else if (differs + 1 <= keep - 1) { // the head up to where it differs
            head = differs + 1;
            tail = keep - head;
        } else { // a long name differing far from both ends: that middle, cut both sides
            const std::size_t shown = keep - 3;
            return "..." + name.substr(differs - shown / 2, shown) + "...";
        }
    }
    return name.substr(0, head) + "..." + name.substr(name.size() - tail);
}

} // namespace

std::vector<std::string> shortened_names(const std::vector<std::string>& names, std::size_t room) {
    constexpr std::size_t k_shortest_room = 7; // "ab...yz"
    if (room == 0) return names;
    room = std::max(room, k_shortest_room);
    std::vector<std::string> out;
    for (const auto& name : names) {
        std::size_t differs = 0; // where it parts from the name sharing the longest start
        for (const auto& other : names) {
            if (&other == &name || other == name) continue;
            const auto [at, _] = std::ranges::mismatch(name, other);
            differs = std::max(differs, static_cast<std::size_t>(at - name.begin()));
        }
        out.push_back(shortened(name, room, std::min(differs, name.size() - 1)));
    }
    return out;
}

std::string wrap_text(const std::string& text, std::size_t width) {
    std::string out, line;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t space = std::min(text.find(' ', start), text.size());
        const std::string word = text.substr(start, space - start);
        if (width > 0 && !line.empty() && line.size() + 1 + word.size() > width) {
            out += line + '\n';
            line = "  ";
        } else if (!line.empty() && line != "  ") {
            line += ' ';
        }
        line += word;
        start = space + 1;
    }
    return out + line + '\n';
}

std::string efficiency_text(double value, const TerminalStyle& style) {
    return style.fraction ? fmt::format("{:.4f}", value) : fmt::format("{:.2f}%", value * 100.0);
}

std::string share_text(Time part, double whole, const TerminalStyle& style) {
    return efficiency_text(static_cast<double>(part) / whole, style);
}

std::string pop_colored(const std::string& text, std::optional<double> value,
                        const TerminalStyle& style) {
    if (!style.color || !value) return text;
    return background_for(*value) + text + "\033[0m";
}

} // namespace popsim::simulator

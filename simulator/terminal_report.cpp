#include "simulator/terminal_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

namespace popsim::simulator {

namespace {

constexpr int k_column_width = 12;

// ANSI 256-colour codes on the POP scale.
const char* color_for(double v) {
    if (v >= 0.9) return "\033[38;5;28m";  // dark green
    if (v >= 0.8) return "\033[38;5;70m";  // green
    if (v >= 0.5) return "\033[38;5;167m"; // light red
    return "\033[38;5;160m";               // red
}

std::string value_text(const std::optional<double>& v, ValueKind kind, const TerminalStyle& style) {
    if (!v) return "-";
    switch (kind) {
    case ValueKind::efficiency:
        return style.fraction ? fmt::format("{:.4f}", *v) : fmt::format("{:.2f}%", *v * 100.0);
    case ValueKind::number:
        return fmt::format("{:.2f}", *v);
    case ValueKind::time_us:
        return fmt::format("{:.2f}", *v);
    case ValueKind::count:
        return fmt::format("{:.0f}", *v);
    }
    return "-";
}

void append_rows(std::string& out, const std::vector<MetricRow>& rows, std::size_t label_width,
                 const TerminalStyle& style) {
    for (const auto& row : rows) {
        const std::string label =
            std::string(static_cast<std::size_t>(row.level) * 2, ' ') + row.label;
        out += fmt::format("{:<{}}", label, label_width);
        for (const auto& v : row.values) {
            const std::string text =
                fmt::format("{:>{}}", value_text(v, row.kind, style), k_column_width);
            const bool colored = style.color && v && row.kind == ValueKind::efficiency;
            out += " | ";
            if (colored) out += color_for(*v);
            out += text;
            if (colored) out += "\033[0m";
        }
        out += "\n";
        if (row.key == "global_efficiency" || row.key == "frequency_scalability") out += "\n";
    }
}

/// "Parallel efficiency" -> "PE", "Communication efficiency" -> "CommE", "OpenMP region
/// efficiency" -> "ORE": short headers for the compact table.
std::string abbreviation(const MetricRow& row) {
    if (row.key == "communication_efficiency") return "CommE";
    if (row.key == "serialization_efficiency") return "SerE";
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
    constexpr int k_width = 8;
    constexpr std::size_t k_all_up_to = 40, k_longest = 20;
    std::vector<const MetricRow*> shown;
    for (const auto& r : table.factors)
        if (r.kind == ValueKind::efficiency || r.key == "average_ipc") shown.push_back(&r);
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
    const std::size_t title_width = std::max<std::size_t>(table.column_title.size(), 5);
    std::string out = fmt::format("{:>{}} | {:>12} {:>12} {:>7} |", table.column_title, title_width,
                                  "from (s)", "length (s)", "% time");
    for (const auto* r : shown) out += fmt::format(" {:>{}}", abbreviation(*r), k_width);
    out += '\n';
    out += std::string(out.size() - 1, '=') + '\n';
    double listed_time = 0;
    for (const std::size_t c : listed) {
        listed_time += spans[c].length_s;
        out += fmt::format("{:>{}} | {:>12.6f} {:>12.6f} {:>6.2f}% |", table.columns[c],
                           title_width, spans[c].from_s, spans[c].length_s,
                           total > 0 ? 100 * spans[c].length_s / total : 0.0);
        for (const auto* r : shown) {
            const auto& v = r->values[c];
            std::string text = value_text(v, r->kind, style);
            const bool colored = style.color && v && r->kind == ValueKind::efficiency;
            out += ' ';
            if (colored) out += color_for(*v);
            out += fmt::format("{:>{}}", text, k_width);
            if (colored) out += "\033[0m";
        }
        out += '\n';
    }
    if (listed.size() < spans.size()) {
        out +=
            fmt::format("(the {} longest of {}, {:.1f} % of the time; --json and --parts-csv "
                        "have every one)\n",
                        listed.size(), spans.size(), total > 0 ? 100 * listed_time / total : 0.0);
    }
    return out;
}

std::string format_terminal_table(const MetricTable& table, const TerminalStyle& style) {
    std::size_t width = 0;
    for (const auto* rows : {&table.factors, &table.raw})
        for (const auto& r : *rows)
            width = std::max(width, r.label.size() + static_cast<std::size_t>(r.level) * 2);
    width = std::max<std::size_t>(width, 20) + 1;
    std::string header = fmt::format("{:<{}}", table.column_title, width);
    for (const auto& c : table.columns) header += fmt::format(" | {:>{}}", c, k_column_width);
    const std::string rule(header.size(), '=');
    std::string out = header;
    out += '\n';
    out += rule;
    out += '\n';
    append_rows(out, table.factors, width, style);
    if (table.raw.empty()) return out;
    out += '\n';
    out += fmt::format("{:<{}}", "Raw data", width);
    for (const auto& c : table.columns) out += fmt::format(" | {:>{}}", c, k_column_width);
    out += '\n';
    out += rule;
    out += '\n';
    append_rows(out, table.raw, width, style);
    return out;
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/modelfactors_csv.hpp"

#include "replay/output/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <stdexcept>

namespace popsim::simulator {

namespace {
std::string cell(const std::optional<double>& v, ValueKind kind) {
    if (!v) return "NaN";
    switch (kind) {
    case ValueKind::efficiency:
        return fmt::format("{:.6f}", *v * 100.0);
    case ValueKind::number:
        return fmt::format("{:.6f}", *v);
    case ValueKind::time_ns:
        return fmt::format("{:.2f}", *v / 1000.0); // modelfactors' microseconds
    case ValueKind::count:
        return fmt::format("{:.2f}", *v);
    }
    return "NaN";
}
} // namespace

std::string format_modelfactors_csv(const MetricTable& table) {
    std::string out = table.column_title;
    for (const auto& c : table.columns) {
        out += ';';
        out += c;
    }
    out += "\n";
    for (const auto& row : table.factors) {
        if (!row.in_csv) continue;
        out += csv_label(row);
        for (const auto& v : csv_values(row)) {
            out += ';';
            out += cell(v, row.kind);
        }
        out += "\n";
    }
    out += "#\n";
    for (const auto& row : table.raw) {
        if (!row.in_csv) continue;
        out += '#';
        out += csv_label(row);
        for (const auto& v : csv_values(row)) {
            out += ';';
            out += cell(v, row.kind);
        }
        out += "\n";
    }
    return out;
}

void write_text_file(const std::string& path, const std::string& text) {
    replay::write_whole_file(path, text);
}

} // namespace popsim::simulator

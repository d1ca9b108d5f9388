// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The metric hierarchy as rows and columns, the one structure every report (terminal, CSV, JSON,
// HTML) is rendered from.
#include "metrics/ratio.hpp"
#include "metrics/scaling.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace popsim::simulator {

enum class ValueKind {
    efficiency, // a fraction; shown as % (or 0-1) and coloured on the POP scale
    number,     // speed-up, IPC, GHz
    time_ns,    // raw rows: nanoseconds, shown in seconds (the CSVs use their tool's unit)
    count,      // raw rows: instructions, cycles
};

struct MetricRow {
    std::string label; // as shown: "Load balance", "Runtime (s)" (British spelling, with unit)
    std::string key;   // JSON name, e.g. "load_balance", "runtime_ns"
    int level = 0;     // indentation in the hierarchy
    ValueKind kind = ValueKind::efficiency;
    std::vector<std::optional<double>> values; // one per column
    /// The label in the CSV of the tool whose layout the table follows, where it differs
    /// (modelfactors' "Serialization efficiency", "Runtime (us)"; PyPOP's "Runtime (ns)").
    std::string csv_label = {};
    /// The values that CSV gives, where its tool defines the row otherwise (modelfactors' and
    /// PyPOP's Transfer, which hold the start-up they have no row for); empty: `values`.
    std::vector<std::optional<double>> csv_values = {};
    bool in_csv = true; // false: a row of popsim's that the CSV layout has not
};

/// The label a CSV in the layout of modelfactors or PyPOP gives the row.
inline const std::string& csv_label(const MetricRow& row) {
    return row.csv_label.empty() ? row.label : row.csv_label;
}
/// The values a CSV in the layout of modelfactors or PyPOP gives the row.
inline const std::vector<std::optional<double>>& csv_values(const MetricRow& row) {
    return row.csv_values.empty() ? row.values : row.csv_values;
}
/// The row, with the label its CSV layout gives it.
inline MetricRow with_csv_label(MetricRow row, std::string label) {
    row.csv_label = std::move(label);
    return row;
}

struct MetricTable {
    std::string column_title = "Number of processes";
    std::vector<std::string> columns; // one per trace: "4", or "2x8" for hybrid runs
    /// Where each column stands on the scaling plots' axis, and the axis' name: processes for the
    /// MPI models, threads or cores (processes x threads) for the OpenMP and hybrid ones.
    std::vector<double> axis;
    std::string axis_label = "processes";
    std::vector<MetricRow> factors;
    std::vector<MetricRow> raw;
};

/// Whether the row is an efficiency bounded by 0 and 1: a value outside says that the records
/// it comes from disagree. Scalabilities, and Global efficiency with them, are not bounded
/// (super-linear speed-up).
inline bool is_bounded_efficiency(const MetricRow& row) {
    const auto& key = row.key;
    return row.kind == ValueKind::efficiency &&
           (key.find("efficiency") != std::string::npos ||
            key.find("load_balance") != std::string::npos) &&
           key.find("global") == std::string::npos && key.find("scalab") == std::string::npos;
}

/// Transfer as modelfactors and PyPOP define it, with the start-up and shut-down that popsim
/// splits off folded back in (docs/metrics.md, "Start-up and shut-down"): TE x StartE in a
/// multiplicative model, TE + StartE - 1 in an additive one; undefined without a transfer.
std::optional<double> transfer_with_startup_multiplicative(std::optional<double> transfer,
                                                           double startup);
std::optional<double> transfer_with_startup_additive(std::optional<double> transfer,
                                                     double startup);

/// modelfactors' table: multiplicative MPI model and scalings, plus its raw rows.
MetricTable modelfactors_table(const metrics::SeriesAnalysis& series);
/// PyPOP's additive MPI model (MPI_Metrics) with the same scalings.
MetricTable additive_table(const metrics::SeriesAnalysis& series);

/// One row from a getter per column; the building block of every table. An undefined value
/// (NaN: metrics/ratio.hpp) becomes an empty cell, shown as "-".
template <class Get>
MetricRow make_row(std::size_t columns, std::string label, std::string key, int level,
                   ValueKind kind, Get get) {
    MetricRow r{std::move(label), std::move(key), level, kind, {}};
    for (std::size_t i = 0; i < columns; ++i) {
        std::optional<double> value = get(i);
        if (value && !std::isfinite(*value)) value.reset();
        r.values.push_back(value);
    }
    return r;
}

} // namespace popsim::simulator

#pragma once
// The metric hierarchy as rows and columns, the one structure every report (terminal, CSV, JSON,
// HTML) is rendered from.
#include "metrics/scaling.hpp"

#include <optional>
#include <string>
#include <vector>

namespace popsim::simulator {

enum class ValueKind {
    efficiency, // a fraction; shown as % (or 0-1) and coloured on the POP scale
    number,     // speed-up, IPC, GHz
    time_us,    // raw rows: microseconds
    count,      // raw rows: instructions, cycles
};

struct MetricRow {
    std::string label; // modelfactors' label, e.g. "Load balance"
    std::string key;   // JSON name, e.g. "load_balance"
    int level = 0;     // indentation in the hierarchy
    ValueKind kind = ValueKind::efficiency;
    std::vector<std::optional<double>> values; // one per column
};

struct MetricTable {
    std::vector<std::uint32_t> processes; // column headers
    std::vector<MetricRow> factors;
    std::vector<MetricRow> raw;
};

/// modelfactors' table: multiplicative MPI model and scalings, plus its raw rows.
MetricTable modelfactors_table(const metrics::SeriesAnalysis& series);
/// PyPOP's additive MPI model (MPI_Metrics) with the same scalings.
MetricTable additive_table(const metrics::SeriesAnalysis& series);

} // namespace popsim::simulator

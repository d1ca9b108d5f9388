#include "simulator/metric_table.hpp"

#include <functional>

namespace popsim::simulator {

namespace {

using metrics::SeriesAnalysis;
using Getter = std::function<std::optional<double>(std::size_t)>;

MetricRow row(const SeriesAnalysis& s, std::string label, std::string key, int level,
              ValueKind kind, const Getter& get) {
    return make_row(s.traces.size(), std::move(label), std::move(key), level, kind, get);
}

void add_scaling_rows(const SeriesAnalysis& s, std::vector<MetricRow>& rows) {
    using K = ValueKind;
    const auto& f = s.scaling;
    rows.push_back(row(s, "Computation scalability", "computation_scalability", 0, K::efficiency,
                       [&](auto i) { return f[i].computation_scalability; }));
    rows.push_back(row(s, "Global efficiency", "global_efficiency", 0, K::efficiency,
                       [&](auto i) { return f[i].global_efficiency; }));
    rows.push_back(row(s, "IPC scalability", "ipc_scalability", 0, K::efficiency,
                       [&](auto i) { return f[i].ipc_scalability; }));
    rows.push_back(row(s, "Instruction scalability", "instruction_scalability", 0, K::efficiency,
                       [&](auto i) { return f[i].instruction_scalability; }));
    rows.push_back(row(s, "Frequency scalability", "frequency_scalability", 0, K::efficiency,
                       [&](auto i) { return f[i].frequency_scalability; }));
    rows.push_back(
        row(s, "Speedup", "speedup", 0, K::number, [&](auto i) { return f[i].speedup; }));
    rows.push_back(
        row(s, "Average IPC", "average_ipc", 0, K::number, [&](auto i) { return s.mpi[i].ipc; }));
    rows.push_back(row(s, "Average frequency (GHz)", "average_frequency_ghz", 0, K::number,
                       [&](auto i) { return s.mpi[i].frequency_ghz; }));
}

std::vector<MetricRow> raw_rows(const SeriesAnalysis& s) {
    using K = ValueKind;
    auto us = [](double ns) { return ns / 1000.0; };
    const auto& t = s.traces;
    std::vector<MetricRow> rows;
    rows.push_back(row(s, "Runtime (us)", "runtime_us", 0, K::time_us,
                       [&](auto i) { return us(static_cast<double>(t[i].runtime)); }));
    rows.push_back(row(s, "Runtime (ideal)", "ideal_runtime_us", 0, K::time_us,
                       [&](auto i) -> std::optional<double> {
                           if (!t[i].ideal) return std::nullopt;
                           return us(static_cast<double>(t[i].ideal->runtime));
                       }));
    rows.push_back(row(s, "Useful duration (average)", "useful_average_us", 0, K::time_us,
                       [&](auto i) { return us(t[i].useful_average()); }));
    rows.push_back(row(s, "Useful duration (maximum)", "useful_maximum_us", 0, K::time_us,
                       [&](auto i) { return us(static_cast<double>(t[i].useful_max())); }));
    rows.push_back(row(s, "Useful duration (total)", "useful_total_us", 0, K::time_us,
                       [&](auto i) { return us(t[i].useful_total()); }));
    rows.push_back(row(s, "Useful duration (ideal, max)", "ideal_useful_maximum_us", 0, K::time_us,
                       [&](auto i) -> std::optional<double> {
                           if (!t[i].ideal) return std::nullopt;
                           return us(static_cast<double>(t[i].ideal->max_useful));
                       }));
    rows.push_back(row(s, "Useful instructions (total)", "useful_instructions", 0, K::count,
                       [&](auto i) -> std::optional<double> {
                           if (!t[i].has_counters) return std::nullopt;
                           return static_cast<double>(t[i].instructions);
                       }));
    rows.push_back(row(s, "Useful cycles (total)", "useful_cycles", 0, K::count,
                       [&](auto i) -> std::optional<double> {
                           if (!t[i].has_counters) return std::nullopt;
                           return static_cast<double>(t[i].cycles);
                       }));
    return rows;
}

MetricTable table_shell(const SeriesAnalysis& s) {
    MetricTable table;
    for (const auto& t : s.traces) table.columns.push_back(std::to_string(t.processes));
    table.raw = raw_rows(s);
    return table;
}

} // namespace

MetricTable modelfactors_table(const SeriesAnalysis& s) {
    using K = ValueKind;
    MetricTable table = table_shell(s);
    const auto& m = s.mpi;
    auto& rows = table.factors;
    rows.push_back(row(s, "Parallel efficiency", "parallel_efficiency", 0, K::efficiency,
                       [&](auto i) { return m[i].parallel; }));
    rows.push_back(row(s, "Load balance", "load_balance", 1, K::efficiency,
                       [&](auto i) { return m[i].load_balance; }));
    rows.push_back(row(s, "Communication efficiency", "communication_efficiency", 1, K::efficiency,
                       [&](auto i) { return m[i].communication; }));
    rows.push_back(row(s, "Serialization efficiency", "serialization_efficiency", 2, K::efficiency,
                       [&](auto i) { return m[i].serialization; }));
    rows.push_back(row(s, "Transfer efficiency", "transfer_efficiency", 2, K::efficiency,
                       [&](auto i) { return m[i].transfer; }));
    add_scaling_rows(s, rows);
    return table;
}

MetricTable additive_table(const SeriesAnalysis& s) {
    using K = ValueKind;
    MetricTable table = table_shell(s);
    const auto& m = s.mpi_additive;
    auto& rows = table.factors;
    rows.push_back(row(s, "Parallel efficiency", "parallel_efficiency", 0, K::efficiency,
                       [&](auto i) { return m[i].parallel; }));
    rows.push_back(row(s, "Load balance", "load_balance", 1, K::efficiency,
                       [&](auto i) { return m[i].load_balance; }));
    rows.push_back(row(s, "Communication efficiency", "communication_efficiency", 1, K::efficiency,
                       [&](auto i) { return m[i].communication; }));
    rows.push_back(row(s, "Serialization efficiency", "serialization_efficiency", 2, K::efficiency,
                       [&](auto i) { return m[i].serialization; }));
    rows.push_back(row(s, "Transfer efficiency", "transfer_efficiency", 2, K::efficiency,
                       [&](auto i) { return m[i].transfer; }));
    add_scaling_rows(s, rows);
    return table;
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/metric_table.hpp"

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

/// modelfactors' raw rows, shown in seconds, in its CSV in microseconds under its labels.
std::vector<MetricRow> raw_rows(const SeriesAnalysis& s) {
    using K = ValueKind;
    const auto& t = s.traces;
    auto ns = [](auto time) { return static_cast<double>(time); };
    auto time_row = [&](std::string label, std::string key, const char* modelfactors_label,
                        const Getter& get) {
        return with_csv_label(row(s, std::move(label), std::move(key), 0, K::time_ns, get),
                              modelfactors_label);
    };
    std::vector<MetricRow> rows;
    rows.push_back(time_row("Runtime (s)", "runtime_ns", "Runtime (us)",
                            [&](auto i) { return ns(t[i].runtime); }));
    rows.push_back(time_row("Runtime, ideal network (s)", "ideal_runtime_ns", "Runtime (ideal)",
                            [&](auto i) -> std::optional<double> {
                                if (!t[i].ideal) return std::nullopt;
                                return ns(t[i].ideal->runtime);
                            }));
    auto startup = row(s, "Start-up and shut-down (s)", "startup_shutdown_ns", 0, K::time_ns,
                       [&](auto i) { return ns(t[i].startup.traced); });
    startup.in_csv = false;
    rows.push_back(std::move(startup));
    rows.push_back(time_row("Useful duration, average (s)", "useful_average_ns",
                            "Useful duration (average)",
                            [&](auto i) { return t[i].useful_average(); }));
    rows.push_back(time_row("Useful duration, maximum (s)", "useful_maximum_ns",
                            "Useful duration (maximum)",
                            [&](auto i) { return ns(t[i].useful_max()); }));
    rows.push_back(time_row("Useful duration, total (s)", "useful_total_ns",
                            "Useful duration (total)",
                            [&](auto i) { return t[i].useful_total(); }));
    rows.push_back(time_row("Useful duration, ideal max (s)", "ideal_useful_maximum_ns",
                            "Useful duration (ideal, max)", [&](auto i) -> std::optional<double> {
                                if (!t[i].ideal) return std::nullopt;
                                return ns(t[i].ideal->max_useful);
                            }));
    rows.push_back(row(s, "Useful instructions (total)", "useful_instructions", 0, K::count,
                       [&](auto i) -> std::optional<double> {
                           // No count is "-": a trace counting cycles alone has none.
                           if (!t[i].has_counters || t[i].instructions == 0) return std::nullopt;
                           return static_cast<double>(t[i].instructions);
                       }));
    rows.push_back(row(s, "Useful cycles (total)", "useful_cycles", 0, K::count,
                       [&](auto i) -> std::optional<double> {
                           if (!t[i].has_counters || t[i].cycles == 0) return std::nullopt;
                           return static_cast<double>(t[i].cycles);
                       }));
    return rows;
}

MetricTable table_shell(const SeriesAnalysis& s) {
    MetricTable table;
    for (const auto& t : s.traces) {
        table.columns.push_back(std::to_string(t.processes));
        table.axis.push_back(t.processes);
    }
    table.raw = raw_rows(s);
    return table;
}

/// Transfer as modelfactors (multiplicative) and PyPOP (additive) define it.
std::optional<double> transfer_with_startup(const metrics::MpiEfficiencies& e) {
    return transfer_with_startup_multiplicative(e.transfer, e.startup);
}
std::optional<double> transfer_with_startup(const metrics::MpiAdditiveEfficiencies& e) {
    return transfer_with_startup_additive(e.transfer, e.startup);
}

/// The MPI hierarchy of one model (multiplicative or additive: the same rows), then the scalings.
template <class Efficiencies>
MetricTable mpi_table(const SeriesAnalysis& s, const std::vector<Efficiencies>& m) {
    using K = ValueKind;
    MetricTable table = table_shell(s);
    auto& rows = table.factors;
    rows.push_back(row(s, "Parallel efficiency", "parallel_efficiency", 0, K::efficiency,
                       [&](auto i) { return m[i].parallel; }));
    rows.push_back(row(s, "Load balance", "load_balance", 1, K::efficiency,
                       [&](auto i) { return m[i].load_balance; }));
    rows.push_back(row(s, "Communication efficiency", "communication_efficiency", 1, K::efficiency,
                       [&](auto i) { return m[i].communication; }));
    auto startup = row(s, "Start-up and shut-down", "startup_efficiency", 2, K::efficiency,
                       [&](auto i) { return m[i].startup; });
    startup.in_csv = false;
    rows.push_back(std::move(startup));
    rows.push_back(with_csv_label(row(s, "Serialisation efficiency", "serialization_efficiency", 2,
                                      K::efficiency, [&](auto i) { return m[i].serialization; }),
                                  "Serialization efficiency"));
    auto transfer = row(s, "Transfer efficiency", "transfer_efficiency", 2, K::efficiency,
                        [&](auto i) { return m[i].transfer; });
    transfer.csv_values = row(s, "", "", 2, K::efficiency, [&](auto i) {
                              return transfer_with_startup(m[i]);
                          }).values;
    rows.push_back(std::move(transfer));
    add_scaling_rows(s, rows);
    return table;
}

} // namespace

std::optional<double> transfer_with_startup_multiplicative(std::optional<double> transfer,
                                                           double startup) {
    if (!transfer) return std::nullopt;
    return *transfer * startup;
}

std::optional<double> transfer_with_startup_additive(std::optional<double> transfer,
                                                     double startup) {
    if (!transfer) return std::nullopt;
    return *transfer + startup - 1.0;
}

MetricTable modelfactors_table(const SeriesAnalysis& s) {
    return mpi_table(s, s.mpi);
}

MetricTable additive_table(const SeriesAnalysis& s) {
    return mpi_table(s, s.mpi_additive);
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/hybrid_tables.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <tuple>

namespace popsim::simulator {

namespace {

using K = ValueKind;

/// The table of a hybrid series: a column per run ("2x4"), on an axis of cores.
MetricTable layout_table(const std::vector<metrics::HybridRun>& runs) {
    MetricTable t;
    t.column_title = "Processes x threads";
    for (const auto& r : runs) {
        t.columns.push_back(fmt::format("{}x{}", r.processes, r.threads_per_process));
        t.axis.push_back(r.total_threads);
    }
    t.axis_label = "cores (processes x threads)";
    return t;
}

template <class Model, class Compute>
std::vector<Model> each(const std::vector<metrics::HybridRun>& runs, Compute compute) {
    std::vector<Model> out;
    for (const auto& r : runs) out.push_back(compute(r));
    return out;
}

nlohmann::json optional_number(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// Start-up and shut-down efficiency, a child of communication efficiency that PyPOP's CSV has
/// not (its Transfer holds it: with_startup_in_csv).
template <class Get>
MetricRow startup_row(std::size_t n, std::string label, std::string key, Get get) {
    auto row = make_row(n, std::move(label), std::move(key), 3, K::efficiency, get);
    row.in_csv = false;
    return row;
}

/// The transfer row, with the value its CSV layout gives it: with the start-up folded in.
template <class Get> MetricRow with_startup_in_csv(MetricRow row, Get with_startup) {
    row.csv_values =
        make_row(row.values.size(), "", "", row.level, K::efficiency, with_startup).values;
    return row;
}

/// The hybrid models' raw data, under the MPI tables' keys: the run's runtime (PyPOP's: its
/// longest active thread), on the ideal network, its start-up, its threads' useful time and
/// counters.
std::vector<MetricRow> hybrid_raw_rows(const std::vector<metrics::HybridRun>& runs) {
    const auto n = runs.size();
    auto ns = [](Time t) { return static_cast<double>(t); };
    auto total = [&](std::size_t i, auto field) {
        double sum = 0;
        for (const auto& t : runs[i].threads) sum += static_cast<double>(t.*field);
        return sum;
    };
    std::vector<MetricRow> rows;
    rows.push_back(make_row(n, "Runtime (s)", "runtime_ns", 0, K::time_ns,
                            [&](auto i) { return ns(runs[i].runtime); }));
    rows.push_back(make_row(n, "Runtime, ideal network (s)", "ideal_runtime_ns", 0, K::time_ns,
                            [&](auto i) -> std::optional<double> {
                                if (!runs[i].ideal) return std::nullopt;
                                return ns(runs[i].ideal->runtime);
                            }));
    rows.push_back(make_row(n, "Start-up and shut-down (s)", "startup_shutdown_ns", 0, K::time_ns,
                            [&](auto i) { return ns(runs[i].startup.traced); }));
    rows.push_back(make_row(n, "Useful duration, thread average (s)", "useful_average_ns", 0,
                            K::time_ns, [&](auto i) -> std::optional<double> {
                                if (runs[i].threads.empty()) return std::nullopt;
                                return total(i, &metrics::ThreadBreakdown::useful) /
                                       static_cast<double>(runs[i].threads.size());
                            }));
    rows.push_back(make_row(n, "Useful duration, thread maximum (s)", "useful_maximum_ns", 0,
                            K::time_ns, [&](auto i) {
                                Time longest = 0;
                                for (const auto& t : runs[i].threads)
                                    longest = std::max(longest, t.useful);
                                return ns(longest);
                            }));
    rows.push_back(make_row(n, "Useful duration, total (s)", "useful_total_ns", 0, K::time_ns,
                            [&](auto i) { return total(i, &metrics::ThreadBreakdown::useful); }));
    for (const auto& [label, key, field] :
         {std::tuple{"Useful instructions (total)", "useful_instructions",
                     &metrics::ThreadBreakdown::instructions},
          std::tuple{"Useful cycles (total)", "useful_cycles",
                     &metrics::ThreadBreakdown::cycles}}) {
        rows.push_back(make_row(n, label, key, 0, K::count,
                                [&, field = field](auto i) -> std::optional<double> {
                                    const double count = total(i, field); // none counted: "-"
                                    return count > 0 ? std::optional(count) : std::nullopt;
                                }));
    }
    for (auto& r : rows) r.in_csv = false; // PyPOP's hybrid CSV has efficiencies only
    return rows;
}

} // namespace

MetricTable openmp_table(const metrics::OpenMpSeries& s) {
    // PyPOP's layout: one process, a column per thread count. Several processes: their layout.
    const bool one_process =
        std::all_of(s.runs.begin(), s.runs.end(), [](const auto& r) { return r.processes == 1; });
    MetricTable t = layout_table(s.runs);
    if (one_process) {
        t.column_title = "Threads";
        t.axis_label = "threads";
        t.columns.clear();
        for (const auto& r : s.runs) t.columns.push_back(std::to_string(r.total_threads));
    }
    const auto n = s.runs.size();
    const auto& e = s.efficiencies;
    const auto& c = s.scaling;
    auto& rows = t.factors;
    rows.push_back(make_row(n, "OpenMP Region Efficiency", "omp_region_efficiency", 2,
                            K::efficiency, [&](auto i) { return e[i].omp_region; }));
    rows.push_back(make_row(n, "Serial Region Efficiency", "serial_region_efficiency", 2,
                            K::efficiency, [&](auto i) { return e[i].serial_region; }));
    rows.push_back(make_row(n, "Parallel Efficiency", "parallel_efficiency", 1, K::efficiency,
                            [&](auto i) { return e[i].parallel; }));
    rows.push_back(make_row(n, "IPC Scaling", "ipc_scaling", 2, K::efficiency,
                            [&](auto i) { return c[i].ipc; }));
    rows.push_back(make_row(n, "Instruction Scaling", "instruction_scaling", 2, K::efficiency,
                            [&](auto i) { return c[i].instruction; }));
    rows.push_back(make_row(n, "Frequency Scaling", "frequency_scaling", 2, K::efficiency,
                            [&](auto i) { return c[i].frequency; }));
    rows.push_back(make_row(n, "Computational Scaling", "computational_scaling", 1, K::efficiency,
                            [&](auto i) { return c[i].computational; }));
    rows.push_back(make_row(n, "Global Efficiency", "global_efficiency", 0, K::efficiency,
                            [&](auto i) { return c[i].global; }));
    rows.push_back(
        make_row(n, "Speedup", "speedup", 0, K::number, [&](auto i) { return c[i].speedup; }));
    rows.push_back(
        with_csv_label(make_row(n, "Runtime (s)", "runtime_ns", 0, K::time_ns,
                                [&](auto i) { return static_cast<double>(s.runs[i].runtime); }),
                       "Runtime (ns)"));
    return t;
}

MetricTable hybrid_additive_table(const std::vector<metrics::HybridRun>& runs) {
    MetricTable t = layout_table(runs);
    const auto a = each<metrics::HybridAdditive>(runs, metrics::hybrid_additive);
    const auto n = runs.size();
    auto& rows = t.factors;
    rows.push_back(make_row(n, "Parallel efficiency", "parallel_efficiency", 0, K::efficiency,
                            [&](auto i) { return a[i].parallel; }));
    rows.push_back(make_row(n, "Process efficiency", "process_efficiency", 1, K::efficiency,
                            [&](auto i) { return a[i].process; }));
    rows.push_back(make_row(n, "Process load balance", "process_load_balance", 2, K::efficiency,
                            [&](auto i) { return a[i].process_load_balance; }));
    rows.push_back(make_row(n, "Process communication efficiency",
                            "process_communication_efficiency", 2, K::efficiency,
                            [&](auto i) { return a[i].process_communication; }));
    rows.push_back(startup_row(n, "Process start-up and shut-down", "process_startup_efficiency",
                               [&](auto i) { return a[i].process_startup; }));
    rows.push_back(make_row(n, "Process serialisation efficiency",
                            "process_serialization_efficiency", 3, K::efficiency,
                            [&](auto i) { return a[i].process_serialization; }));
    rows.push_back(with_startup_in_csv(
        make_row(n, "Process transfer efficiency", "process_transfer_efficiency", 3, K::efficiency,
                 [&](auto i) { return a[i].process_transfer; }),
        [&](auto i) {
            return transfer_with_startup_additive(a[i].process_transfer, a[i].process_startup);
        }));
    rows.push_back(make_row(n, "Thread efficiency", "thread_efficiency", 1, K::efficiency,
                            [&](auto i) { return a[i].thread; }));
    rows.push_back(make_row(n, "OpenMP region efficiency", "omp_region_efficiency", 2,
                            K::efficiency, [&](auto i) { return a[i].omp_region; }));
    rows.push_back(make_row(n, "Serial region efficiency", "serial_region_efficiency", 2,
                            K::efficiency, [&](auto i) { return a[i].serial_region; }));
    t.raw = hybrid_raw_rows(runs);
    return t;
}

MetricTable hybrid_multiplicative_table(const std::vector<metrics::HybridRun>& runs) {
    MetricTable t = layout_table(runs);
    const auto m = each<metrics::HybridMultiplicative>(runs, metrics::hybrid_multiplicative);
    const auto n = runs.size();
    auto& rows = t.factors;
    rows.push_back(make_row(n, "Hybrid parallel efficiency", "hybrid_parallel_efficiency", 0,
                            K::efficiency, [&](auto i) { return m[i].hybrid_parallel; }));
    rows.push_back(make_row(n, "Hybrid load balance", "hybrid_load_balance", 1, K::efficiency,
                            [&](auto i) { return m[i].hybrid_load_balance; }));
    rows.push_back(make_row(n, "Hybrid communication efficiency", "hybrid_communication_efficiency",
                            1, K::efficiency, [&](auto i) { return m[i].hybrid_communication; }));
    rows.push_back(make_row(n, "MPI parallel efficiency", "mpi_parallel_efficiency", 1,
                            K::efficiency, [&](auto i) { return m[i].mpi_parallel; }));
    rows.push_back(make_row(n, "MPI load balance", "mpi_load_balance", 2, K::efficiency,
                            [&](auto i) { return m[i].mpi_load_balance; }));
    rows.push_back(make_row(n, "MPI communication efficiency", "mpi_communication_efficiency", 2,
                            K::efficiency, [&](auto i) { return m[i].mpi_communication; }));
    rows.push_back(startup_row(n, "MPI start-up and shut-down", "mpi_startup_efficiency",
                               [&](auto i) { return m[i].mpi_startup; }));
    rows.push_back(make_row(n, "MPI serialisation efficiency", "mpi_serialization_efficiency", 3,
                            K::efficiency, [&](auto i) { return m[i].mpi_serialization; }));
    rows.push_back(with_startup_in_csv(
        make_row(n, "MPI transfer efficiency", "mpi_transfer_efficiency", 3, K::efficiency,
                 [&](auto i) { return m[i].mpi_transfer; }),
        [&](auto i) {
            return transfer_with_startup_multiplicative(m[i].mpi_transfer, m[i].mpi_startup);
        }));
    rows.push_back(make_row(n, "OpenMP parallel efficiency", "omp_parallel_efficiency", 1,
                            K::efficiency, [&](auto i) { return m[i].omp_parallel; }));
    rows.push_back(make_row(n, "OpenMP load balance", "omp_load_balance", 2, K::efficiency,
                            [&](auto i) { return m[i].omp_load_balance; }));
    rows.push_back(make_row(n, "OpenMP communication efficiency", "omp_communication_efficiency", 2,
                            K::efficiency, [&](auto i) { return m[i].omp_communication; }));
    t.raw = hybrid_raw_rows(runs);
    return t;
}

MetricTable talp_table(const std::vector<metrics::HybridRun>& runs) {
    MetricTable t = layout_table(runs);
    const auto e = each<metrics::TalpEfficiencies>(runs, metrics::talp);
    const auto n = runs.size();
    auto& rows = t.factors;
    rows.push_back(make_row(n, "Parallel efficiency", "parallel_efficiency", 0, K::efficiency,
                            [&](auto i) { return e[i].parallel; }));
    rows.push_back(make_row(n, "MPI parallel efficiency", "mpi_parallel_efficiency", 1,
                            K::efficiency, [&](auto i) { return e[i].mpi_parallel; }));
    rows.push_back(make_row(n, "MPI communication efficiency", "mpi_communication_efficiency", 2,
                            K::efficiency, [&](auto i) { return e[i].mpi_communication; }));
    rows.push_back(make_row(n, "MPI load balance", "mpi_load_balance", 2, K::efficiency,
                            [&](auto i) { return e[i].mpi_load_balance; }));
    rows.push_back(make_row(n, "OpenMP parallel efficiency", "omp_parallel_efficiency", 1,
                            K::efficiency, [&](auto i) { return e[i].omp_parallel; }));
    rows.push_back(make_row(n, "OpenMP serialisation efficiency", "omp_serialization_efficiency", 2,
                            K::efficiency, [&](auto i) { return e[i].omp_serialization; }));
    rows.push_back(make_row(n, "OpenMP load balance", "omp_load_balance", 2, K::efficiency,
                            [&](auto i) { return e[i].omp_load_balance; }));
    rows.push_back(make_row(n, "OpenMP scheduling efficiency", "omp_scheduling_efficiency", 2,
                            K::efficiency, [&](auto i) { return e[i].omp_scheduling; }));
    // TALP measures from the end of MPI_Init to the start of MPI_Finalize: what it leaves out.
    auto left_out =
        make_row(n, "Start-up and shut-down, left out (s)", "startup_shutdown_ns", 0, K::time_ns,
                 [&](auto i) { return static_cast<double>(runs[i].startup.traced); });
    left_out.in_csv = false;
    t.raw = hybrid_raw_rows(runs);
    t.raw.push_back(std::move(left_out));
    return t;
}

std::string format_pypop_csv(const MetricTable& table) {
    std::string out = fmt::format("\"{}\"", table.column_title);
    for (const auto& c : table.columns) {
        out += ',';
        out += c;
    }
    out += '\n';
    for (const auto& row : table.factors) {
        out += fmt::format("\"{}\"", csv_label(row));
        for (const auto& v : row.values) {
            out += ',';
            out += !v                       ? std::string("NaN")
                   : row.kind == K::time_ns ? fmt::format("{:e}", *v)
                                            : fmt::format("{:.6f}", *v);
        }
        out += '\n';
    }
    return out;
}

nlohmann::json hybrid_json(const metrics::HybridRun& r) {
    const auto omp = metrics::openmp_efficiencies(r);
    const auto a = metrics::hybrid_additive(r);
    const auto m = metrics::hybrid_multiplicative(r);
    const auto t = metrics::talp(r);
    return {
        {"layout",
         {{"processes", r.processes},
          {"threads_per_process", r.threads_per_process},
          {"total_threads", r.total_threads}}},
        {"runtime_ns_pypop", r.runtime},
        {"openmp",
         {{"omp_region_efficiency", omp.omp_region},
          {"serial_region_efficiency", omp.serial_region},
          {"parallel_efficiency", omp.parallel}}},
        {"hybrid_additive",
         {{"parallel_efficiency", a.parallel},
          {"process_efficiency", a.process},
          {"process_load_balance", a.process_load_balance},
          {"process_communication_efficiency", a.process_communication},
          {"process_startup_efficiency", a.process_startup},
          {"process_transfer_efficiency", optional_number(a.process_transfer)},
          {"process_serialization_efficiency", optional_number(a.process_serialization)},
          {"process_transfer_efficiency_s1", optional_number(a.process_transfer_s1)},
          {"process_serialization_efficiency_s1", optional_number(a.process_serialization_s1)},
          {"thread_efficiency", a.thread},
          {"omp_region_efficiency", a.omp_region},
          {"serial_region_efficiency", a.serial_region}}},
        {"hybrid_multiplicative",
         {{"hybrid_parallel_efficiency", m.hybrid_parallel},
          {"hybrid_load_balance", m.hybrid_load_balance},
          {"hybrid_communication_efficiency", m.hybrid_communication},
          {"mpi_parallel_efficiency", m.mpi_parallel},
          {"mpi_load_balance", m.mpi_load_balance},
          {"mpi_communication_efficiency", m.mpi_communication},
          {"mpi_startup_efficiency", m.mpi_startup},
          {"mpi_serialization_efficiency", optional_number(m.mpi_serialization)},
          {"mpi_transfer_efficiency", optional_number(m.mpi_transfer)},
          {"omp_parallel_efficiency", m.omp_parallel},
          {"omp_load_balance", m.omp_load_balance},
          {"omp_communication_efficiency", m.omp_communication}}},
        {"regions",
         [&] {
             auto list = nlohmann::json::array();
             for (const auto& g : metrics::region_metrics(r))
                 list.push_back(
                     {{"region", g.region},
                      {"instances", g.instances},
                      {"total_length_ns", g.total_length},
                      {"parallel_efficiency", g.parallel_efficiency},
                      {"load_balance", g.load_balance},
                      {"parallel_inefficiency_contribution", g.parallel_inefficiency_contribution},
                      {"load_imbalance_contribution", g.load_imbalance_contribution}});
             return list;
         }()},
        {"thread_breakdown_ns",
         [&] {
             auto list = nlohmann::json::array();
             const auto split = metrics::thread_time_split(r);
             for (std::size_t i = 0; i < split.size(); ++i) {
                 list.push_back({{"process", r.process_of[i] + 1},
                                 {"thread", r.thread_in_process(i) + 1},
                                 {"useful", split[i].useful},
                                 {"idle_in_regions", split[i].idle_in_regions},
                                 {"serial", split[i].serial},
                                 {"mpi", split[i].mpi}});
             }
             return list;
         }()},
        {"talp",
         {{"parallel_efficiency", t.parallel},
          {"mpi_parallel_efficiency", t.mpi_parallel},
          {"mpi_communication_efficiency", t.mpi_communication},
          {"mpi_load_balance", t.mpi_load_balance},
          {"omp_parallel_efficiency", t.omp_parallel},
          {"omp_serialization_efficiency", t.omp_serialization},
          {"omp_load_balance", t.omp_load_balance},
          {"omp_scheduling_efficiency", t.omp_scheduling}}}};
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/pop_openmp.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

namespace popsim::metrics {

namespace {

double ratio(double num, double den) {
    return den == 0 ? 1.0 : num / den;
}
double as_double(Time t) {
    return static_cast<double>(t);
}

template <class F> double mean_over(std::size_t n, F f) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += f(i);
    return n == 0 ? 0 : sum / static_cast<double>(n);
}

/// Per-thread useful time inside [begin, end).
Time useful_between(const replay::ThreadTimeline& t, Time begin, Time end) {
    Time total = 0;
    const auto first = std::upper_bound(t.state_begin.begin(), t.state_begin.end(), begin);
    std::size_t i = first == t.state_begin.begin()
                        ? 0
                        : static_cast<std::size_t>(first - t.state_begin.begin() - 1);
    for (; i < t.state_count() && t.state_begin[i] < end; ++i) {
        if (t.state_value[i] != replay::extrae::k_state_running) continue;
        total +=
            std::max<Time>(0, std::min(end, t.state_end(i)) - std::max(begin, t.state_begin[i]));
    }
    return total;
}

/// What identifies a region instance beginning at `begin` on a master thread: the outlined function
/// it runs (60000018 at or after its start), else the 60000001 value that opened it.
std::uint64_t region_key(const replay::ThreadTimeline& master, Time begin) {
    for (auto type : {replay::extrae::k_omp_outlined_function, replay::extrae::k_omp_parallel}) {
        const auto* s = master.series(type);
        if (!s) continue;
        const auto it = std::lower_bound(s->time.begin(), s->time.end(), begin);
        for (auto i = static_cast<std::size_t>(it - s->time.begin()); i < s->time.size(); ++i)
            if (s->value[i] != 0) return s->value[i];
    }
    return 0;
}

/// v[p], or 0 when the run carries no such figure (a HybridRun made without start-up figures).
Time at_or_zero(const std::vector<Time>& v, std::size_t p) {
    return p < v.size() ? v[p] : 0;
}

/// Process p's MPI time outside parallel regions without its MPI_Init and MPI_Finalize, traced
/// and in the ideal replay (where MPI_Init is a barrier waiting for tasks not created yet).
Time mpi_after_startup(const HybridRun& r, std::size_t p) {
    return std::max<Time>(0, r.threads[r.master[p]].mpi_outside_omp -
                                 at_or_zero(r.startup.task_in_init_finalize, p));
}
Time ideal_mpi_after_startup(const HybridRun& r, std::size_t p) {
    const Time init_wait = std::max<Time>(0, at_or_zero(r.startup.task_ideal_startup, p) -
                                                 at_or_zero(r.startup.task_not_created, p));
    return std::max<Time>(0, r.ideal->task_mpi_outside_omp[p] - init_wait);
}

} // namespace

std::vector<RegionMetrics> region_metrics(const HybridRun& r) {
    std::map<std::uint64_t, RegionMetrics> by_region;
    const double scale = static_cast<double>(r.processes) * as_double(r.runtime);
    for (const auto& [key, sums] : r.regions) {
        const auto& [region, process] = key;
        auto& m = by_region[region];
        if (m.instances == 0) m = RegionMetrics{region, 0, 0, 0, 0, 0, 0};
        const double length = as_double(sums.length);
        // The sum of the executions' mean useful time over the process's threads.
        const double mean_useful =
            as_double(sums.useful) / as_double(r.threads_end(process) - r.master[process]);
        const double max_useful = as_double(sums.max_useful);
        m.instances += sums.instances;
        m.total_length += sums.length;
        m.parallel_efficiency += mean_useful; // weighted by length: divided below
        m.load_balance += length - (max_useful - mean_useful);
        m.parallel_inefficiency_contribution += (length - mean_useful) / scale;
        m.load_imbalance_contribution += (max_useful - mean_useful) / scale;
    }
    std::vector<RegionMetrics> out;
    for (auto& [key, m] : by_region) {
        const double total = as_double(m.total_length);
        m.parallel_efficiency = total == 0 ? 1 : m.parallel_efficiency / total;
        m.load_balance = total == 0 ? 1 : m.load_balance / total;
        out.push_back(m);
    }
    return out;
}

Time HybridRun::non_mpi(std::size_t p) const {
    const auto& m = threads[master[p]];
    return m.useful_outside_omp() + m.omp_region;
}

void HybridRun::set_shape(const replay::Trace& trace) {
    path = trace.path;
    processes = trace.task_count();
    total_threads = static_cast<std::uint32_t>(trace.thread_count());
    threads_per_process =
        trace.header.applications.empty() ? 1 : trace.header.applications[0].tasks[0].threads;
    master.clear();
    for (const auto first : trace.first_threads()) master.push_back(first);
    process_of.assign(total_threads, 0);
    for (std::uint32_t p = 0; p < processes; ++p)
        for (std::uint32_t t = master[p]; t < threads_end(p); ++t) process_of[t] = p;
    regions.clear();
    region_time.assign(processes, 0);
    omp_load_imbalance.assign(processes, 0);
    omp_scheduling.assign(processes, 0);
}

void HybridRun::add_region(std::uint32_t process, std::uint64_t region, Time length,
                           std::span<const Time> useful) {
    region_time[process] += length;
    Time useful_sum = 0, useful_max = 0, least_idle = length;
    for (const Time u : useful) {
        useful_sum += u;
        useful_max = std::max(useful_max, u);
        least_idle = std::min(least_idle, length - u);
    }
    const auto n = static_cast<Time>(useful.size());
    // Load imbalance: sum(idle - least idle) = n length - useful sum - n least idle.
    omp_load_imbalance[process] += n * length - useful_sum - n * least_idle;
    omp_scheduling[process] += n * least_idle;
    auto& sums = regions[{region, process}];
    ++sums.instances;
    sums.length += length;
    sums.useful += useful_sum;
    sums.max_useful += useful_max;
}

HybridRun hybrid_run(const replay::Trace& trace) {
    return hybrid_run(trace, startup_shutdown(trace, {{0, trace.end_time()}}));
}

HybridRun hybrid_run(const replay::Trace& trace, StartupShutdown startup) {
    HybridRun run;
    run.set_shape(trace);
    run.startup = std::move(startup);
    run.threads = thread_breakdowns(trace);
    std::vector<Time> useful;
    for (std::uint32_t p = 0; p < run.processes; ++p) {
        const auto& master = trace.threads[run.master[p]];
        for (const auto& [b, e] : parallel_regions(master, trace.end_time())) {
            useful.clear();
            for (std::uint32_t t = run.master[p]; t < run.threads_end(p); ++t)
                useful.push_back(useful_between(trace.threads[t], b, e));
            run.add_region(p, region_key(master, b), e - b, useful);
        }
    }
    for (const auto& t : run.threads) run.runtime = std::max(run.runtime, t.active);
    return run;
}

OpenMpEfficiencies openmp_efficiencies(const HybridRun& r) {
    const double T = as_double(r.runtime);
    const auto n = static_cast<double>(r.threads_per_process);
    OpenMpEfficiencies e;
    // PyPOP: OpenMP region time of each master minus the mean OpenMP-useful of its threads.
    e.omp_region = 1 - mean_over(r.processes, [&](std::size_t p) {
                           // A process's threads follow its master (linear in threads: a trace
                           // may have millions of one-thread processes).
                           const std::uint32_t end = r.threads_end(p);
                           double omp_useful = 0;
                           for (std::uint32_t t = r.master[p]; t < end; ++t)
                               omp_useful += as_double(r.threads[t].useful_in_omp);
                           return as_double(r.threads[r.master[p]].omp_region) -
                                  omp_useful / (end - r.master[p]);
                       }) / T;
    e.serial_region =
        1 - mean_over(r.processes,
                      [&](std::size_t p) {
                          return as_double(r.threads[r.master[p]].useful_outside_omp());
                      }) /
                T * (1 - 1 / n);
    e.parallel =
        mean_over(r.total_threads, [&](std::size_t t) { return as_double(r.threads[t].useful); }) /
        T;
    return e;
}

OpenMpSeries analyze_openmp_series(std::vector<HybridRun> runs) {
    std::stable_sort(runs.begin(), runs.end(), [](const HybridRun& a, const HybridRun& b) {
        return std::pair{a.total_threads, a.threads_per_process} <
               std::pair{b.total_threads, b.threads_per_process};
    });
    OpenMpSeries s;
    s.runs = std::move(runs);
    auto thread_mean = [](const HybridRun& r, auto value) {
        return mean_over(r.total_threads, [&](std::size_t t) { return value(r.threads[t]); });
    };
    auto ipc = [](const ThreadBreakdown& t) {
        return ratio(static_cast<double>(t.instructions), static_cast<double>(t.cycles));
    };
    auto frequency = [](const ThreadBreakdown& t) {
        return ratio(static_cast<double>(t.cycles), as_double(t.useful));
    };
    auto sum = [](const HybridRun& r, auto value) {
        return std::accumulate(
            r.threads.begin(), r.threads.end(), 0.0,
            [&](double acc, const ThreadBreakdown& t) { return acc + value(t); });
    };
    const HybridRun& ref = s.runs.front();
    for (const auto& r : s.runs) {
        s.efficiencies.push_back(openmp_efficiencies(r));
        OpenMpScaling sc;
        const bool counters =
            sum(r, [](const auto& t) { return static_cast<double>(t.cycles); }) > 0 &&
            sum(ref, [](const auto& t) { return static_cast<double>(t.cycles); }) > 0;
        if (counters) {
            sc.ipc = thread_mean(r, ipc) / thread_mean(ref, ipc);
            sc.instruction =
                sum(ref, [](const auto& t) { return static_cast<double>(t.instructions); }) /
                sum(r, [](const auto& t) { return static_cast<double>(t.instructions); });
            sc.frequency = thread_mean(r, frequency) / thread_mean(ref, frequency);
        }
        sc.computational = ratio(sum(ref, [](const auto& t) { return as_double(t.useful); }),
                                 sum(r, [](const auto& t) { return as_double(t.useful); }));
        sc.global = sc.computational * s.efficiencies.back().parallel;
        sc.speedup = ratio(as_double(ref.runtime), as_double(r.runtime));
        s.scaling.push_back(sc);
    }
    return s;
}

HybridAdditive hybrid_additive(const HybridRun& r) {
    const double T = as_double(r.runtime);
    HybridAdditive a;
    const auto omp = openmp_efficiencies(r);
    a.parallel = omp.parallel;
    a.omp_region = omp.omp_region;
    a.serial_region = omp.serial_region;
    a.thread = omp.omp_region + omp.serial_region - 1;
    double max_n = 0;
    const double avg_n = mean_over(r.processes, [&](std::size_t p) {
        max_n = std::max(max_n, as_double(r.non_mpi(p)));
        return as_double(r.non_mpi(p));
    });
    a.process = avg_n / T;
    a.process_load_balance = 1 - (max_n - avg_n) / T;
    a.process_communication = max_n / T;
    // Start-up and shut-down on their own term, as in the MPI additive model: 1 - CommE =
    // (1 - start-up) + (1 - SerE) + (1 - TE).
    const double S = as_double(r.startup.traced);
    a.process_startup = 1 - ratio(S, T);
    if (r.ideal) {
        Time min_mpi = std::numeric_limits<Time>::max(),
             min_ideal = std::numeric_limits<Time>::max();
        for (std::uint32_t p = 0; p < r.processes; ++p) {
            min_mpi = std::min(min_mpi, mpi_after_startup(r, p));
            min_ideal = std::min(min_ideal, ideal_mpi_after_startup(r, p));
        }
        a.process_transfer = (T - as_double(min_mpi) + as_double(min_ideal)) / T;
        a.process_serialization = (T - as_double(min_ideal)) / T;
        const double ideal = as_double(r.ideal->runtime) - as_double(r.startup.ideal);
        a.process_transfer_s1 = 1 - (T - S - ideal) / T;
        a.process_serialization_s1 = 1 - (ideal - max_n) / T;
    }
    return a;
}

HybridMultiplicative hybrid_multiplicative(const HybridRun& r) {
    const double T = as_double(r.runtime);
    HybridMultiplicative m;
    double max_u = 0;
    const double avg_u = mean_over(r.total_threads, [&](std::size_t t) {
        max_u = std::max(max_u, as_double(r.threads[t].useful));
        return as_double(r.threads[t].useful);
    });
    double max_n = 0;
    const double avg_n = mean_over(r.processes, [&](std::size_t p) {
        max_n = std::max(max_n, as_double(r.non_mpi(p)));
        return as_double(r.non_mpi(p));
    });
    m.hybrid_parallel = avg_u / T;
    m.hybrid_load_balance = ratio(avg_u, max_u);
    m.hybrid_communication = max_u / T;
    m.mpi_parallel = avg_n / T;
    m.mpi_load_balance = ratio(avg_n, max_n);
    m.mpi_communication = max_n / T;
    // As the MPI model's POP convention: MPI CommE = start-up x SerE x TE, with TE the ideal run
    // over the traced one, both without their start-up.
    const double S = as_double(r.startup.traced);
    m.mpi_startup = ratio(T - S, T);
    if (r.ideal) {
        m.mpi_transfer = ratio(as_double(r.ideal->runtime) - as_double(r.startup.ideal), T - S);
        m.mpi_serialization = ratio(m.mpi_communication, m.mpi_startup * *m.mpi_transfer);
    }
    m.omp_parallel = ratio(m.hybrid_parallel, m.mpi_parallel);
    m.omp_load_balance = ratio(m.hybrid_load_balance, m.mpi_load_balance);
    m.omp_communication = ratio(m.hybrid_communication, m.mpi_communication);
    return m;
}

TalpEfficiencies talp(const HybridRun& r) {
    // TALP measures from the end of MPI_Init to the start of MPI_Finalize: here the run without
    // its start-up and shut-down S, and the MPI time without MPI_Init and MPI_Finalize. Running
    // before MPI_Init stays computation, as in the MPI models (on Extrae traces it is the MPI
    // library's own start-up; docs/metrics.md).
    const double E = std::max(0.0, as_double(r.runtime) - as_double(r.startup.traced));
    double useful = 0, mpi = 0, worker_idle_in_mpi = 0, serialization = 0, load_imbalance = 0,
           scheduling = 0;
    double min_mpi_per_cpu = std::numeric_limits<double>::max();
    for (std::uint32_t p = 0; p < r.processes; ++p) {
        const std::uint32_t end = r.threads_end(p);
        const double cpus = end - r.master[p];
        const double master_mpi_out = as_double(mpi_after_startup(r, p));
        const double region_time = as_double(r.region_time[p]);
        double process_mpi = -as_double(at_or_zero(r.startup.task_in_init_finalize, p));
        for (std::uint32_t t = r.master[p]; t < end; ++t) {
            useful += as_double(r.threads[t].useful);
            process_mpi += as_double(r.threads[t].mpi);
        }
        mpi += process_mpi;
        // Workers outside parallel regions are serialisation, also while their master is in MPI
        // (DLB counts that time twice, by design: here, and as the workers' idle time in MPI,
        // which only the MPI metrics use).
        worker_idle_in_mpi += (cpus - 1) * master_mpi_out;
        serialization += (cpus - 1) * std::max(0.0, E - region_time);
        // DLB's min_double_non_zero: a process without MPI time is left out of the minimum.
        if (const double per_cpu = (process_mpi + (cpus - 1) * master_mpi_out) / cpus; per_cpu > 0)
            min_mpi_per_cpu = std::min(min_mpi_per_cpu, per_cpu);
        load_imbalance += as_double(r.omp_load_imbalance[p]);
        scheduling += as_double(r.omp_scheduling[p]);
    }
    if (min_mpi_per_cpu == std::numeric_limits<double>::max()) min_mpi_per_cpu = 0; // no MPI
    const double active = useful + mpi;                                             // TALP's A
    const double all = active + serialization + load_imbalance + scheduling;
    const double m = (mpi + worker_idle_in_mpi) / r.total_threads;
    TalpEfficiencies e;
    e.parallel = ratio(useful, all);
    e.mpi_parallel = ratio(E - m, E);
    e.mpi_communication = ratio(E - min_mpi_per_cpu, E);
    e.mpi_load_balance = ratio(E - m, E - min_mpi_per_cpu);
    e.omp_parallel = ratio(active, all);
    e.omp_serialization = ratio(active, active + serialization);
    e.omp_load_balance = ratio(active + serialization, active + serialization + load_imbalance);
    e.omp_scheduling = ratio(active + serialization + load_imbalance, all);
    return e;
}

std::vector<ThreadTimeSplit> thread_time_split(const HybridRun& run) {
    std::vector<ThreadTimeSplit> out;
    for (const auto& t : run.threads) {
        ThreadTimeSplit split;
        split.useful = t.useful;
        split.idle_in_regions = std::max<Time>(0, t.omp_region - t.useful_in_omp);
        split.mpi = t.mpi_outside_omp;
        split.serial =
            std::max<Time>(0, run.runtime - split.useful - split.idle_in_regions - split.mpi);
        out.push_back(split);
    }
    return out;
}

} // namespace popsim::metrics

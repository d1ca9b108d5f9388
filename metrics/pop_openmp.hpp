// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The OpenMP and hybrid MPI+OpenMP POP models (docs/metrics.md gives every formula and source):
//  - PyPOP's OpenMP metrics (OpenMP Region / Serial Region / Parallel efficiency, scalings);
//  - the hybrid additive model (S0/S1; PyPOP's MPI_OpenMP_Metrics): Parallel = Process + Thread -
//  1;
//  - the hybrid multiplicative model (S1): Hybrid = MPI x OpenMP;
//  - TALP's split of OpenMP idle time into serialisation, load imbalance and scheduling.
// Pure OpenMP (one process) and pure MPI (one thread) traces are ordinary cases of all of them.
//
// Example:
//   auto trace = popsim::replay::read_paraver("omp4.prv.gz");
//   auto run = popsim::metrics::hybrid_run(trace);
//   popsim::metrics::hybrid_additive(run).thread;   // Thread efficiency
#include "metrics/thread_breakdown.hpp"
#include "metrics/trace_summary.hpp"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace popsim::metrics {

/// One trace's inputs to the OpenMP and hybrid models.
struct HybridRun {
    std::string path;
    std::uint32_t processes = 0;
    std::uint32_t threads_per_process = 1; // of the first process, as PyPOP
    std::uint32_t total_threads = 0;
    Time runtime = 0; // PyPOP: the longest time a thread spends outside Idle/Tracing disabled
    std::vector<ThreadBreakdown> threads;
    std::vector<std::uint32_t> master;     // per process, its first thread
    std::vector<std::uint32_t> process_of; // per thread
    /// Thread t's index among its process's threads (0 for the master).
    std::uint32_t thread_in_process(std::size_t t) const {
        return static_cast<std::uint32_t>(t) - master[process_of[t]];
    }
    std::optional<IdealRun> ideal; // from the ideal-network replay
    /// Start-up and shut-down (TraceSummary::startup), which the hybrid models keep out of MPI
    /// transfer and serialisation, and TALP out of every quantity, as the MPI models do.
    StartupShutdown startup;
    std::vector<Time> region_time; // per process: the length of its master's parallel regions
    /// Per process, TALP's split of its threads' idle time inside parallel regions: per region
    /// instance, with idle_j = region length - useful of thread j, load imbalance = sum(idle_j -
    /// min idle) and scheduling = threads x min idle.
    std::vector<Time> omp_load_imbalance;
    std::vector<Time> omp_scheduling;

    /// A parallel region's executions on one process, summed (what region_metrics needs; a run
    /// does not grow with the trace's length). Regions are keyed by the outlined function
    /// (60000018) run at or after their start, else their 60000001 value.
    struct RegionSums {
        std::uint32_t instances = 0;
        Time length = 0;
        Time useful = 0;     // of the process's threads in them
        Time max_useful = 0; // per execution, the largest of its threads'
        bool operator==(const RegionSums&) const = default;
    };
    std::map<std::pair<std::uint64_t, std::uint32_t>, RegionSums> regions; // (key, process)

    /// PyPOP's "Total Non-MPI Runtime" of a process: serial useful + OpenMP region time of its
    /// master.
    Time non_mpi(std::size_t process) const;
    /// The threads of `process`: [master[process], its end).
    std::uint32_t threads_end(std::size_t process) const {
        return process + 1 < processes ? master[process + 1] : total_threads;
    }

    /// Sets the processes and threads from the trace's header and names; no region yet.
    void set_shape(const replay::Trace& trace);
    /// One execution of the parallel region keyed `region` on `process`, with `useful[k]` the
    /// useful time in it of the process's thread k: into the region time, the regions' sums and
    /// TALP's split.
    void add_region(std::uint32_t process, std::uint64_t region, Time length,
                    std::span<const Time> useful);
};

/// `startup`: the run's start-up and shut-down as summarize found them (TraceSummary::startup);
/// the first form finds them over the whole trace.
HybridRun hybrid_run(const replay::Trace& trace);
HybridRun hybrid_run(const replay::Trace& trace, StartupShutdown startup);

struct OpenMpEfficiencies {
    double omp_region = 1;
    double serial_region = 1;
    double parallel = 1;
};

struct OpenMpScaling {
    std::optional<double> ipc, instruction, frequency;
    double computational = 1, global = 1, speedup = 1;
};

struct OpenMpSeries {
    std::vector<HybridRun> runs; // sorted by total threads (ties: threads per process)
    std::vector<OpenMpEfficiencies> efficiencies;
    std::vector<OpenMpScaling> scaling;
};

OpenMpEfficiencies openmp_efficiencies(const HybridRun& run);
OpenMpSeries analyze_openmp_series(std::vector<HybridRun> runs);

struct HybridAdditive {
    double parallel = 1, process = 1, process_load_balance = 1, process_communication = 1;
    double process_startup = 1; // 1 - S / T, S the start-up and shut-down (HybridRun::startup)
    std::optional<double> process_transfer,
        process_serialization; // S0: from per-process MPI time, real and ideal
    std::optional<double> process_transfer_s1,
        process_serialization_s1; // S1/PyPOP: from the ideal runtime
    double thread = 1, omp_region = 1, serial_region = 1;
};

struct HybridMultiplicative {
    double hybrid_parallel = 1, hybrid_load_balance = 1, hybrid_communication = 1;
    double mpi_parallel = 1, mpi_load_balance = 1, mpi_communication = 1;
    double mpi_startup = 1; // (T - S) / T: CommE = start-up x SerE x TE
    std::optional<double> mpi_serialization, mpi_transfer;
    double omp_parallel = 1, omp_load_balance = 1, omp_communication = 1;
};

/// TALP's model (hybrid-v2), from CPU-time sums over all threads, with start-up and shut-down
/// (HybridRun::startup) left out of every sum, as TALP's Global region spans the run from the end
/// of MPI_Init to the start of MPI_Finalize.
struct TalpEfficiencies {
    double parallel = 1;
    double mpi_parallel = 1, mpi_communication = 1, mpi_load_balance = 1;
    double omp_parallel = 1, omp_serialization = 1, omp_load_balance = 1, omp_scheduling = 1;
};

/// Per parallel region (PyPOP's per-region child metrics of the additive model): its share of
/// the OpenMP region inefficiency and of the load imbalance, and its length-weighted efficiencies.
/// The contributions add up, over regions, to 1 - OpenMP Region Efficiency.
struct RegionMetrics {
    std::uint64_t region = 0;
    std::uint32_t instances = 0;
    Time total_length = 0;
    double parallel_efficiency = 1; // length-weighted mean of mean useful / length
    double load_balance = 1;        // length-weighted mean of 1 - (max - mean) / length
    double parallel_inefficiency_contribution = 0; // sum(length - mean useful) / (P T)
    double load_imbalance_contribution = 0;        // sum(max - mean useful) / (P T)
};
std::vector<RegionMetrics> region_metrics(const HybridRun& run);

/// Where a thread's share of the run goes (the four add up to the run's runtime): useful
/// computation; inside parallel regions but not useful (waiting at their barriers: load imbalance
/// and scheduling, or in MPI called from a region); outside regions and MPI, not useful (a worker
/// waiting while the master runs serial code); in MPI outside parallel regions.
struct ThreadTimeSplit {
    Time useful = 0, idle_in_regions = 0, serial = 0, mpi = 0;
};
std::vector<ThreadTimeSplit> thread_time_split(const HybridRun& run);

HybridAdditive hybrid_additive(const HybridRun& run);
HybridMultiplicative hybrid_multiplicative(const HybridRun& run);
TalpEfficiencies talp(const HybridRun& run);

} // namespace popsim::metrics

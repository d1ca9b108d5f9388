// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The raw quantities of one trace that the POP metrics are computed from, per thread and in ns.
//
// Example:
//   auto trace = popsim::replay::read_paraver("epoch_4proc.prv.gz");
//   popsim::metrics::TraceSummary s = popsim::metrics::summarize(trace);
//   double pe = s.useful_average() / s.runtime;   // Parallel efficiency
#include "metrics/startup.hpp"
#include "replay/program/openmp_regions.hpp"
#include "replay/time.hpp"
#include "replay/trace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace popsim::metrics {

/// What the ideal-network replay contributes (Runtime (ideal), Useful duration (ideal, max)).
struct IdealRun {
    Time runtime = 0;
    Time max_useful = 0;           // the largest of task_useful
    std::vector<Time> task_useful; // per MPI task, its first thread's simulated time outside MPI
                                   // (CPU bursts, OpenMP fork/join)
    std::vector<Time> task_end;    // per MPI task, when it finishes on the ideal network
    /// Per MPI task, its replayed MPI time outside OpenMP parallel regions (S0's mpi_ideal_p); the
    /// whole MPI time (end - useful) when the trace has no OpenMP regions.
    std::vector<Time> task_mpi_outside_omp;
};

struct TraceSummary {
    std::string path;
    std::uint32_t processes = 0;
    std::uint32_t threads = 0; // over all processes
    /// The traced windows analysed: [0, end) less the spans where tracing was off on every
    /// thread (the whole trace with --whole-trace).
    replay::Intervals windows;
    Time runtime = 0; // the windows' total length; the trace span, as modelfactors, without gaps
    std::vector<Time> useful;                           // per thread: time in the Running state
    std::vector<replay::ThreadIndex> task_first_thread; // per MPI task, its first thread
    std::uint64_t instructions = 0;                     // useful, all threads
    std::uint64_t cycles = 0;
    bool has_counters = false;
    StartupShutdown startup; // start-up and shut-down, kept out of Serialisation and Transfer
    std::optional<IdealRun> ideal;

    double useful_average() const;
    Time useful_max() const;
    double useful_total() const; // a double: the sum over millions of threads may pass 2^63 ns
};

/// `whole_trace`: analyse [0, end) even where tracing was off (replay/traced_windows.hpp).
TraceSummary summarize(const replay::Trace& trace, bool whole_trace = false);
/// The same with the spans to leave out already found (a replay program's `untraced`).
TraceSummary summarize(const replay::Trace& trace, const replay::Intervals& untraced);
/// The same with each thread's useful time already summed (a streamed trace keeps no states);
/// `startup` is left for the caller, who recorded it.
TraceSummary summarize(const replay::Trace& trace, const replay::Intervals& untraced,
                       std::vector<Time> useful);

/// Separate windows of one trace (a region's instances) as one run: times, counts and the ideal
/// replay's per-task times add up; the maxima are taken of the sums. `windows` become the given
/// ones (in the trace's time). Empty `parts`: an empty summary.
TraceSummary concatenate(const std::vector<TraceSummary>& parts, replay::Intervals windows);

/// Time thread `t` spends in state `state` (0-254), summed over its state intervals.
Time time_in_state(const replay::ThreadTimeline& t, std::uint8_t state);

} // namespace popsim::metrics

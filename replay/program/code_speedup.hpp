// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Code what-ifs (docs/network-model.md, "Code speed-ups"): the computation inside selected code
// regions runs N times faster. Each burst of a replay program is placed on its trace thread, ending
// where the call it leads to began (burst_traced_ends); the part of it inside a selected region
// takes 1/N of its time, and a part inside several selected regions takes the largest of their
// speed-ups. A region's events nest, as functions do: a thread is inside a selected value from
// its event until the 0 that closes it, the regions it opens in between (its callees) included.
// A call site (Extrae's callers of MPI calls, points on each call's entry) owns the computation
// leading to its calls: the time since the thread's previous call site event.
//
// Example:
//   popsim::replay::CodeSpeedups speedups(trace, program, {solve}); // solve: an EventSelector
//   const auto durations = speedups.burst_durations(program.burst_durations, std::vector{2.0});
//   popsim::replay::replay_events(program, model, {.burst_durations = &durations});
#include "replay/focus/event_spec.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/trace.hpp"

#include <span>
#include <vector>

namespace popsim::replay {

/// When each burst of `program` (by its index in burst_durations) ended in `trace`: where the call
/// it leads to began, or, for a thread's last bursts, where the thread's records end; a burst
/// before another burst (at an OpenMP fork or join, which take no traced time) ends where that
/// one began.
std::vector<Time> burst_traced_ends(const Trace& trace, const ReplayProgram& program);

/// What of a region a speed-up makes faster: all the time it is open, the regions it opens
/// (callees) included, or its own computation only, while it is the innermost open region (as
/// the root causes' code regions count it: metrics/code_regions.hpp).
enum class RegionScope : std::uint8_t { with_callees, own };

class CodeSpeedups {
  public:
    /// `regions`: the selected code regions, at most 64.
    CodeSpeedups(const Trace& trace, const ReplayProgram& program,
                 std::span<const EventSelector> regions,
                 RegionScope scope = RegionScope::with_callees);

    /// Whether some thread is inside region k for some time.
    bool entered(std::size_t region) const;

    /// How long [begin, end) of trace thread `thread` takes with region k `factors[k]` times
    /// faster (factors: one per region, each > 0), in ns with their fraction.
    double sped_up(ThreadIndex thread, Time begin, Time end, std::span<const double> factors) const;

    /// `durations`, the program's burst durations as traced, with its regions `factors` times
    /// faster, in ns with their fractions (the engine rounds each thread's running sum:
    /// EngineOptions::burst_durations).
    ProgramArray<double> burst_durations(const ProgramArray<Time>& durations,
                                         std::span<const double> factors) const;

  private:
    const ReplayProgram& program_;
    std::vector<Time> burst_end_;               // per burst: its traced end
    std::vector<std::vector<Intervals>> spans_; // per region, per trace thread
};

} // namespace popsim::replay

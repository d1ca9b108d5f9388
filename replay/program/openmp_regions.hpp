// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// OpenMP parallel regions as Extrae marks them on a thread (event 60000001: non-zero opens, 0
// closes), shared by the replay (fork/join of threads) and the OpenMP metrics.
#include "replay/trace.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace popsim::replay {

using Intervals = std::vector<std::pair<Time, Time>>; // sorted, disjoint [begin, end)

/// A master thread's parallel regions as its 60000001 events come, one at a time: a non-zero
/// value opens a region unless one is open, 0 closes the open one (a nested or repeated value
/// changes nothing).
class RegionEdges {
  public:
    /// The event at `time` with `value`; returns the region it closes, if any.
    std::optional<std::pair<Time, Time>> event(Time time, std::uint64_t value);
    /// The open region's entry, if one is open.
    std::optional<Time> open() const { return open_; }

  private:
    std::optional<Time> open_;
};

/// A master thread's parallel regions: [entry, exit) of its 60000001 events (RegionEdges); a
/// region still open at the end of the trace ends there.
Intervals parallel_regions(const ThreadTimeline& master, Time trace_end);

/// Whether `t` lies in one of `intervals`.
bool inside(Time t, const Intervals& intervals);

/// Whether a thread in Paraver state `state` waits for work rather than does it (Idle, Not
/// created, Synchronization, Scheduling/Fork-Join, or no state): what a region's barrier waits
/// out.
bool waits_for_work(std::uint8_t state);

/// When `thread` reached the implicit barrier that ends `region` in the trace: the end of its last
/// activity in the region (a state other than Idle, Not created, Synchronization and
/// Scheduling/Fork-Join, or an MPI call), or the region's start when it did nothing there.
Time barrier_arrival(const ThreadTimeline& thread, std::pair<Time, Time> region);

} // namespace popsim::replay

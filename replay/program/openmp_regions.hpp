#pragma once
// OpenMP parallel regions as Extrae marks them on a thread (event 60000001: non-zero opens, 0
// closes), shared by the replay (fork/join of threads) and the OpenMP metrics.
#include "replay/trace.hpp"

#include <utility>
#include <vector>

namespace popsim::replay {

using Intervals = std::vector<std::pair<Time, Time>>; // sorted, disjoint [begin, end)

/// A master thread's parallel regions: [entry, exit) of its 60000001 events; a region still open
/// at the end of the trace ends there.
Intervals parallel_regions(const ThreadTimeline& master, Time trace_end);

/// Whether `t` lies in one of `intervals`.
bool inside(Time t, const Intervals& intervals);

/// When `thread` reached the implicit barrier that ends `region` in the trace: the end of its last
/// activity in the region (a state other than Idle, Not created, Synchronization and
/// Scheduling/Fork-Join, or an MPI call), or the region's start when it did nothing there.
Time barrier_arrival(const ThreadTimeline& thread, std::pair<Time, Time> region);

} // namespace popsim::replay

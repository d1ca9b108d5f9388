// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The windows a focus of analysis names: the instances of a region, or the phases between the
// occurrences of an event (docs/focus.md).
#include "replay/focus/event_spec.hpp"
#include "replay/focus/time_window.hpp"
#include "replay/program/openmp_regions.hpp"
#include "replay/trace.hpp"

#include <vector>

namespace popsim::replay {

/// Per thread, the spans inside the selected region: each begins at an event of the type with a
/// selected value and ends at the next event of the type (value 0 or another value, which may
/// begin the next span), or at the trace's end. MPI call types select calls by their id.
std::vector<Intervals> region_spans(const Trace& trace, const EventSelector& region);

struct RegionInstances {
    /// Instance k spans from the earliest k-th entry on any thread to the latest k-th exit.
    std::vector<TimeWindow> windows;
    std::uint64_t threads_inside = 0;   // threads that enter the region at least once
    std::uint64_t fewest = 0, most = 0; // instances per such thread
};
RegionInstances region_instances(const Trace& trace, const EventSelector& region);

/// [0, b1), [b1, b2), ..., [bn, end), where bk is the earliest k-th entry into the region on any
/// thread: the run split at each occurrence (the first phase is left out when b1 = 0).
std::vector<TimeWindow> phase_windows(const Trace& trace, const EventSelector& boundary);

} // namespace popsim::replay

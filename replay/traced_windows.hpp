// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Spans where tracing was switched off on every thread (Extrae_shutdown ... Extrae_restart, state
// 14 "Tracing disabled"): users mark the region to measure this way, so by default the analysis
// covers the traced windows between them (docs/metrics.md, "Traced windows").
#include "replay/program/openmp_regions.hpp"
#include "replay/trace.hpp"

namespace popsim::replay {

/// The spans where no thread is traced: every thread is in state 14, has no state or has not been
/// created yet, and at least one is in state 14. Sorted and disjoint; empty for most traces.
/// With `warnings`, also warns (kind "partly-disabled") about threads with tracing disabled
/// outside those spans: their calls there are missing and the replay counts that time as
/// computation.
Intervals untraced_spans(const Trace& trace, WarningLog* warnings = nullptr);

/// [0, trace end) without `untraced`.
Intervals traced_windows(const Trace& trace, const Intervals& untraced);

/// How much of [begin, end) lies in `intervals`.
Time overlap(const Intervals& intervals, Time begin, Time end);

/// The parts of sorted, disjoint `a` that also lie in sorted, disjoint `b`.
Intervals intersect(const Intervals& a, const Intervals& b);

/// The intervals' lengths added up.
Time total_length(const Intervals& intervals);

/// The trace's length less `untraced`: the runtime the traced windows add up to.
Time traced_time(const Trace& trace, const Intervals& untraced);

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A window of a trace in memory, as if the trace had been cut there: the trace `popsim cut` would
// write for the same window, read back (record_window.hpp), without a second pass over the file.
//
// Example:
//   ReadOptions options;
//   options.tracked_event_types = focus_event_types(options.tracked_event_types);
//   Trace trace = read_paraver("run.prv.gz", options);
//   Trace focus = window_of(trace, {.from = 2'000'000'000, .to = 3'000'000'000});
#include "replay/focus/time_window.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/trace.hpp"

#include <cstdint>
#include <vector>

namespace popsim::replay {

/// `tracked` with what windows need besides: the hardware counter reads, so that a window counts
/// the instructions and cycles of its own bursts.
std::vector<std::uint32_t> focus_event_types(std::vector<std::uint32_t> tracked);

/// Cuts windows of one trace, each in time proportional to what it holds: the indexes a window
/// needs (messages by send time, collectives by end time) are built once, for the thousands of
/// windows of a region's instances or of the phases.
class TraceWindows {
  public:
    explicit TraceWindows(const Trace& trace);

    /// The part of the trace in `window` (0 <= from < to <= the trace's end), times from 0.
    /// Counters are those of the window's bursts when the trace was read with
    /// focus_event_types().
    Trace window(TimeWindow window) const;
    /// Per task and communicator, the collectives called before `from` (those that ended by
    /// then: a window has none of them), added to those before the trace itself if it is a cut.
    std::vector<CollectivesBeforeCut> collectives_before(Time from) const;

  private:
    struct CollectiveEnds {
        CollectivesBeforeCut key; // its calls unused
        std::vector<Time> ends;   // sorted
    };
    void index_collectives();

    const Trace& trace_;
    std::vector<RecordOwner> owners_;
    std::vector<std::uint32_t> tracked_; // the event types the trace's threads keep
    std::vector<std::size_t> messages_by_send_;
    std::vector<CollectiveEnds> collective_ends_;
};

/// One window: TraceWindows(trace).window(window).
Trace window_of(const Trace& trace, TimeWindow window);
/// TraceWindows(trace).collectives_before(from).
std::vector<CollectivesBeforeCut> collectives_before(const Trace& trace, Time from);

} // namespace popsim::replay

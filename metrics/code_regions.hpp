// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which code region each replay thread was in (docs/metrics.md, "Code regions"): the root causes
// say where, in the code, waiting happens, the critical path runs and the delaying computation
// lies. The regions are the values of one event type of the trace:
// - Extrae's callers of MPI calls (70000001-70000099) and their lines (80000001-80000099) are
//   points, on the line of each call's entry: the time up to one belongs to it, so the
//   computation leading to a call is in that call's site;
// - other types are intervals (an entry with the region's value, an exit with 0, as user
//   functions): they nest, and the innermost open one is the region.
// Value 0 is outside every region.
//
// Example:
//   auto type = popsim::metrics::default_region_type(trace); // user functions, else call sites
//   popsim::metrics::CodeRegions regions(trace, program, type);
//   regions.at_call(thread, call); // the region a call was made in
#include "replay/program/replay_program.hpp"
#include "replay/trace.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace popsim::metrics {

/// User functions (60000019) where the trace has some, else the callers of MPI calls (70000001)
/// where it has some, else 0: no regions.
std::uint32_t default_region_type(const replay::Trace& trace);

class CodeRegions {
  public:
    /// `type`: an event type read into each thread's series (ReadOptions::tracked_event_types);
    /// 0 puts everything outside regions.
    CodeRegions(const replay::Trace& trace, const replay::ReplayProgram& program,
                std::uint32_t type);

    std::uint32_t type() const { return type_; }

    /// The region replay thread `th` was in when it entered its call `call`.
    std::uint64_t at_call(replay::ReplayThread th, std::uint32_t call) const;

    /// Calls `add(region, time)` for the parts of [begin, end), a span of burst `op` in a replay
    /// of the program, in each region. A burst takes as long in the replay as in the trace, up to
    /// the call it leads to, so the span is placed that far before the call's traced entry.
    template <class Add>
    void split_burst(replay::OpIndex op, Time begin, Time end, Time replay_end, Add add) const {
        // Without regions nothing is placed: the whole span is outside them.
        const Time shift = traced_end_.empty() ? 0 : traced_end_[program_.op_ref[op]] - replay_end;
        split_traced(program_.thread_of(op), begin + shift, end + shift, add);
    }

    /// Calls `add(region, time)` for the parts of [begin, end), a span of the trace on replay
    /// thread `th`'s trace thread, in each region.
    template <class Add>
    void split_traced(replay::ReplayThread th, Time begin, Time end, Add add) const {
        split(changes_[th], begin, end, add);
    }

  private:
    /// From `at` on, the thread is in `region` (until the next change).
    struct Change {
        Time at;
        std::uint64_t region;
    };

    template <class Add>
    static void split(const std::vector<Change>& changes, Time begin, Time end, Add add) {
        auto next = std::upper_bound(changes.begin(), changes.end(), begin,
                                     [](Time t, const Change& c) { return t < c.at; });
        std::uint64_t region = next == changes.begin() ? 0 : (next - 1)->region;
        while (begin < end) {
            const Time until = next == changes.end() ? end : std::min(end, next->at);
            if (until > begin) add(region, until - begin);
            begin = until;
            if (next != changes.end()) region = (next++)->region;
        }
    }

    const replay::ReplayProgram& program_;
    std::uint32_t type_;
    std::vector<std::vector<Change>> changes_;     // per replay thread
    std::vector<std::vector<std::uint64_t>> call_; // per replay thread, per call: its region
    std::vector<Time> traced_end_;                 // per burst: when it ended in the trace
};

} // namespace popsim::metrics

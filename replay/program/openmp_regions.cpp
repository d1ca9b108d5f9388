// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/openmp_regions.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <limits>

namespace popsim::replay {

std::optional<std::pair<Time, Time>> RegionEdges::event(Time time, std::uint64_t value) {
    if (value != 0 && !open_) open_ = time;
    if (value != 0 || !open_) return std::nullopt;
    return std::pair{*std::exchange(open_, std::nullopt), time};
}

Intervals parallel_regions(const ThreadTimeline& master, Time trace_end) {
    Intervals regions;
    const auto* s = master.series(extrae::k_omp_parallel);
    if (!s) return regions;
    RegionEdges edges;
    for (std::size_t i = 0; i < s->time.size(); ++i)
        if (const auto region = edges.event(s->time[i], s->value[i])) regions.push_back(*region);
    if (const auto open = edges.open()) regions.emplace_back(*open, trace_end);
    return regions;
}

bool inside(Time t, const Intervals& intervals) {
    const auto it = std::upper_bound(intervals.begin(), intervals.end(),
                                     std::pair{t, std::numeric_limits<Time>::max()});
    return it != intervals.begin() && t < std::prev(it)->second;
}

bool waits_for_work(std::uint8_t state) {
    using namespace extrae;
    return state == k_state_idle || state == k_state_not_created ||
           state == k_state_synchronization || state == k_state_fork_join || state == k_no_state;
}

namespace {

/// The first index in the sorted `begins` at or after `t`.
template <class C> std::size_t first_at_or_after(const C& begins, Time t) {
    return static_cast<std::size_t>(std::lower_bound(begins.begin(), begins.end(), t) -
                                    begins.begin());
}

} // namespace

Time barrier_arrival(const ThreadTimeline& thread, std::pair<Time, Time> region) {
    const auto [begin, end] = region;
    Time arrival = begin;
    // States: the last active one that overlaps the region (the one covering `begin` included).
    std::size_t s = first_at_or_after(thread.state_begin, end);
    while (s > 0) {
        --s;
        const Time state_end = std::min(thread.state_end(s), end);
        if (state_end <= begin) break;
        if (!waits_for_work(thread.state_value[s])) {
            arrival = state_end;
            break;
        }
    }
    // MPI calls that begin in the region count until they end (at most the region's end).
    const std::size_t c = first_at_or_after(thread.call_begin, end);
    if (c > 0 && thread.call_begin[c - 1] >= begin)
        arrival = std::max(arrival, std::min(thread.call_end[c - 1], end));
    return arrival;
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/thread_breakdown.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <tuple>

namespace popsim::metrics {

namespace {

namespace ex = replay::extrae;

constexpr std::uint32_t k_stack_types[] = {ex::k_omp_parallel, ex::k_omp_barrier,
                                           ex::k_omp_outlined_function, ex::k_omp_task_function};

/// Time covered by both [begin, end) and the sorted, disjoint `intervals`, starting the search at
/// `cursor` (calls come in time order).
Time overlap(Time begin, Time end, const std::vector<std::pair<Time, Time>>& intervals,
             std::size_t& cursor) {
    while (cursor < intervals.size() && intervals[cursor].second <= begin) ++cursor;
    Time total = 0;
    for (std::size_t i = cursor; i < intervals.size() && intervals[i].first < end; ++i)
        total += std::min(end, intervals[i].second) - std::max(begin, intervals[i].first);
    return total;
}

} // namespace

Intervals openmp_intervals(const replay::ThreadTimeline& t, Time trace_end) {
    struct Change {
        Time time;
        int order; // the type's place in k_stack_types, then the series order: ties keep line order
        std::size_t index;
        bool push;
    };
    std::vector<Change> changes;
    for (int k = 0; k < 4; ++k) {
        const auto* s = t.series(k_stack_types[k]);
        if (!s) continue;
        for (std::size_t i = 0; i < s->time.size(); ++i)
            changes.push_back({s->time[i], k, i, s->value[i] != 0});
    }
    std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
        return std::tie(a.time, a.order, a.index) < std::tie(b.time, b.order, b.index);
    });
    std::vector<std::pair<Time, Time>> out;
    int depth = 0;
    Time open = 0;
    for (const auto& c : changes) {
        const int before = depth;
        depth = c.push ? depth + 1 : std::max(0, depth - 1);
        if (before == 0 && depth > 0) open = c.time;
        if (before > 0 && depth == 0 && c.time > open) out.emplace_back(open, c.time);
    }
    if (depth > 0 && trace_end > open) out.emplace_back(open, trace_end);
    return out;
}

std::uint8_t openmp_stack_order(std::uint32_t type) {
    return static_cast<std::uint8_t>(
        std::find(std::begin(k_stack_types), std::end(k_stack_types), type) -
        std::begin(k_stack_types));
}

bool is_openmp_stack_type(std::uint32_t type) {
    return openmp_stack_order(type) < std::size(k_stack_types);
}

bool is_active_state(std::uint8_t state) {
    return state != ex::k_state_idle && state != ex::k_state_tracing_disabled &&
           state != replay::k_no_state;
}

std::vector<ThreadBreakdown> thread_breakdowns(const replay::Trace& trace) {
    std::vector<ThreadBreakdown> out;
    out.reserve(trace.threads.size());
    for (const auto& t : trace.threads) {
        ThreadBreakdown b;
        const auto omp = openmp_intervals(t, trace.end_time());
        for (const auto& [begin, end] : omp) b.omp_region += end - begin;
        std::size_t cursor = 0;
        for (std::size_t i = 0; i < t.state_count(); ++i) {
            const Time begin = t.state_begin[i], end = t.state_end(i);
            const auto state = t.state_value[i];
            if (is_active_state(state)) b.active += end - begin;
            if (state != ex::k_state_running) continue;
            b.useful += end - begin;
            b.useful_in_omp += overlap(begin, end, omp, cursor);
        }
        for (std::size_t c = 0; c < t.call_id.size(); ++c) {
            const Time d = t.call_end[c] - t.call_begin[c];
            b.mpi += d;
            if (!inside(t.call_begin[c], omp)) b.mpi_outside_omp += d;
        }
        b.instructions = t.useful_instructions;
        b.cycles = t.useful_cycles;
        out.push_back(b);
    }
    return out;
}

} // namespace popsim::metrics

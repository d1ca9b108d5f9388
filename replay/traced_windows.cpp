// SPDX-License-Identifier: BSD-3-Clause
#include "replay/traced_windows.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>

namespace popsim::replay {

namespace {

/// [begin, end) of each state `state` of the thread, merged when adjacent.
Intervals state_spans(const ThreadTimeline& tl, std::uint8_t state) {
    Intervals out;
    for (std::size_t i = 0; i < tl.state_count(); ++i) {
        if (tl.state_value[i] != state) continue;
        const Time b = tl.state_begin[i], e = tl.state_end(i);
        if (!out.empty() && out.back().second == b)
            out.back().second = e;
        else
            out.emplace_back(b, e);
    }
    return out;
}

/// Where the thread is not traced: tracing disabled, no state, not created yet, or past its
/// last state.
Intervals inactive_spans(const ThreadTimeline& tl, Time trace_end) {
    Intervals out;
    auto add = [&](Time b, Time e) {
        if (b >= e) return;
        if (!out.empty() && out.back().second >= b)
            out.back().second = std::max(out.back().second, e);
        else
            out.emplace_back(b, e);
    };
    if (tl.state_count() == 0) return {{0, trace_end}};
    add(0, tl.state_begin[0]);
    for (std::size_t i = 0; i < tl.state_count(); ++i) {
        const auto v = tl.state_value[i];
        if (v == extrae::k_state_tracing_disabled || v == k_no_state ||
            v == extrae::k_state_not_created)
            add(tl.state_begin[i], tl.state_end(i));
    }
    add(tl.states_end, trace_end);
    return out;
}

} // namespace

Intervals intersect(const Intervals& a, const Intervals& b) {
    Intervals out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const Time lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
        if (lo < hi) out.emplace_back(lo, hi);
        (a[i].second < b[j].second ? i : j)++;
    }
    return out;
}

Time total_length(const Intervals& intervals) {
    Time total = 0;
    for (const auto& [begin, end] : intervals) total += end - begin;
    return total;
}

Intervals untraced_spans(const Trace& trace, WarningLog* warnings) {
    const auto n = trace.threads.size();
    std::vector<Intervals> disabled(n);
    oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t t) {
        disabled[t] = state_spans(trace.threads[t], extrae::k_state_tracing_disabled);
    });
    if (std::all_of(disabled.begin(), disabled.end(), [](const auto& d) { return d.empty(); }))
        return {};
    Intervals common{{0, trace.end_time()}};
    for (const auto& tl : trace.threads)
        common = intersect(common, inactive_spans(tl, trace.end_time()));
    Intervals out; // the common spans in which some thread has tracing disabled
    for (const auto& span : common) {
        const bool any_disabled = std::any_of(disabled.begin(), disabled.end(), [&](const auto& d) {
            return overlap(d, span.first, span.second) > 0;
        });
        if (any_disabled) out.push_back(span);
    }
    for (std::size_t t = 0; warnings && t < n; ++t) {
        for (const auto& [b, e] : disabled[t]) {
            if (overlap(out, b, e) == e - b) continue;
            warnings->add("partly-disabled",
                          "threads have tracing disabled while others are traced: their calls "
                          "there are missing and the replay counts that time as computation",
                          fmt::format("thread {} from {} to {}", to_string(trace.threads[t].name),
                                      seconds(b), seconds(e)));
        }
    }
    return out;
}

Time traced_time(const Trace& trace, const Intervals& untraced) {
    return trace.end_time() - total_length(untraced);
}

Intervals traced_windows(const Trace& trace, const Intervals& untraced) {
    Intervals out;
    Time from = 0;
    for (const auto& [b, e] : untraced) {
        if (b > from) out.emplace_back(from, b);
        from = e;
    }
    if (trace.end_time() > from) out.emplace_back(from, trace.end_time());
    return out;
}

Time overlap(const Intervals& intervals, Time begin, Time end) {
    Time total = 0;
    auto it = std::upper_bound(intervals.begin(), intervals.end(), begin,
                               [](Time t, const auto& span) { return t < span.second; });
    for (; it != intervals.end() && it->first < end; ++it)
        total += std::min(end, it->second) - std::max(begin, it->first);
    return total;
}
} // namespace popsim::replay

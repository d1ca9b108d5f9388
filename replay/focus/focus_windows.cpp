// SPDX-License-Identifier: BSD-3-Clause
#include "replay/focus/focus_windows.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <limits>

namespace popsim::replay {

namespace {

Intervals call_spans(const ThreadTimeline& t, const EventSelector& region) {
    Intervals spans;
    for (std::size_t c = 0; c < t.call_id.size(); ++c) {
        const auto call = mpi_call_by_id(t.call_id[c]);
        const bool selected = region.values.empty() ? call && call->event_type == region.type
                                                    : region.selects(t.call_id[c]);
        if (selected && t.call_end[c] > t.call_begin[c])
            spans.emplace_back(t.call_begin[c], t.call_end[c]);
    }
    return spans;
}

Intervals event_spans(const ThreadTimeline& t, const EventSelector& region, Time trace_end) {
    Intervals spans;
    const EventSeries* series = t.series(region.type);
    if (!series) return spans;
    bool inside = false; // every selected value begins a span, even the same one again (markers)
    Time begin = 0;
    for (std::size_t i = 0; i < series->time.size(); ++i) {
        const Time time = series->time[i];
        const std::uint64_t value = series->value[i];
        if (inside) {
            if (time > begin) spans.emplace_back(begin, time);
            inside = false;
        }
        if (region.selects(value)) {
            inside = true;
            begin = time;
        }
    }
    if (inside && trace_end > begin) spans.emplace_back(begin, trace_end);
    return spans;
}

} // namespace

std::vector<Intervals> region_spans(const Trace& trace, const EventSelector& region) {
    std::vector<Intervals> out;
    out.reserve(trace.threads.size());
    for (const auto& t : trace.threads) {
        out.push_back(extrae::is_mpi_call_type(region.type)
                          ? call_spans(t, region)
                          : event_spans(t, region, trace.end_time()));
    }
    return out;
}

RegionInstances region_instances(const Trace& trace, const EventSelector& region) {
    RegionInstances r;
    r.fewest = std::numeric_limits<std::uint64_t>::max();
    for (const auto& spans : region_spans(trace, region)) {
        if (spans.empty()) continue;
        ++r.threads_inside;
        r.fewest = std::min<std::uint64_t>(r.fewest, spans.size());
        r.most = std::max<std::uint64_t>(r.most, spans.size());
        if (r.windows.size() < spans.size()) r.windows.resize(spans.size(), {.from = -1, .to = 0});
        for (std::size_t k = 0; k < spans.size(); ++k) {
            auto& w = r.windows[k];
            w.from = w.from < 0 ? spans[k].first : std::min(w.from, spans[k].first);
            w.to = std::max(w.to, spans[k].second);
        }
    }
    if (r.threads_inside == 0) r.fewest = 0;
    return r;
}

std::vector<TimeWindow> phase_windows(const Trace& trace, const EventSelector& boundary) {
    std::vector<TimeWindow> phases;
    Time begin = 0;
    for (const auto& instance : region_instances(trace, boundary).windows) {
        if (instance.from > begin) phases.push_back({.from = begin, .to = instance.from});
        begin = std::max(begin, instance.from);
    }
    if (trace.end_time() > begin) phases.push_back({.from = begin, .to = trace.end_time()});
    return phases;
}

} // namespace popsim::replay

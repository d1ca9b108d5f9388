// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/code_speedup.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <stdexcept>

namespace popsim::replay {

namespace {

/// Where thread `t` is inside `region`: events of its type nest (a non-zero value opens, 0 closes
/// the innermost open one); the thread is inside while a selected value is open (with_callees) or
/// is the innermost open one (own); to `end` when left inside.
Intervals nested_spans(const ThreadTimeline& t, const EventSelector& region, Time end,
                       RegionScope scope) {
    Intervals spans;
    const EventSeries* series = t.series(region.type);
    if (!series) return spans;
    std::vector<bool> open; // whether each open value is selected
    std::size_t selected = 0;
    bool inside = false;
    Time begin = 0;
    for (std::size_t i = 0; i < series->time.size(); ++i) {
        const Time time = series->time[i];
        const std::uint64_t value = series->value[i];
        if (value != 0) {
            open.push_back(region.selects(value));
            selected += open.back();
        } else if (!open.empty()) {
            selected -= open.back();
            open.pop_back();
        }
        const bool now =
            scope == RegionScope::with_callees ? selected > 0 : !open.empty() && open.back();
        if (now == inside) continue;
        if (now)
            begin = time;
        else if (time > begin)
            spans.emplace_back(begin, time);
        inside = now;
    }
    if (inside && end > begin) spans.emplace_back(begin, end);
    return spans;
}

/// Where thread `t` computes towards a call made from a selected call site: a call site event (a
/// point on a call's entry) owns the time since the one before it, the first one since 0.
Intervals call_site_spans(const ThreadTimeline& t, const EventSelector& site) {
    Intervals spans;
    const EventSeries* series = t.series(site.type);
    if (!series) return spans;
    for (std::size_t i = 0; i < series->time.size(); ++i) {
        const Time begin = i == 0 ? 0 : series->time[i - 1], end = series->time[i];
        if (!site.selects(series->value[i]) || end <= begin) continue;
        if (!spans.empty() && spans.back().second == begin)
            spans.back().second = end;
        else
            spans.emplace_back(begin, end);
    }
    return spans;
}

} // namespace

std::vector<Time> burst_traced_ends(const Trace& trace, const ReplayProgram& program) {
    std::vector<Time> ends(program.burst_durations.size(), 0);
    for (ReplayThread th = 0; th < program.thread_count(); ++th) {
        const auto& t = trace.threads[program.trace_thread[th]];
        // Back from the thread's end: each burst ends where the next call begins, or where the
        // bursts after it began.
        Time anchor = std::max(t.states_end, t.last_record);
        for (auto op = program.thread_end_op(th); op-- > program.thread_first_op[th];) {
            const std::uint32_t call = program.op_call[op];
            if (call != k_none) {
                anchor = t.call_begin[call];
            } else if (program.op_kind[op] == OpKind::burst) {
                ends[program.op_ref[op]] = anchor;
                anchor -= program.burst_duration(op);
            }
        }
    }
    return ends;
}

CodeSpeedups::CodeSpeedups(const Trace& trace, const ReplayProgram& program,
                           std::span<const EventSelector> regions, RegionScope scope)
    : program_(program), burst_end_(burst_traced_ends(trace, program)) {
    if (regions.size() > 64) throw std::invalid_argument("more than 64 regions sped up at once");
    for (const auto& region : regions) {
        auto& spans = spans_.emplace_back();
        for (const auto& t : trace.threads)
            spans.push_back(extrae::is_call_site_type(region.type)
                                ? call_site_spans(t, region)
                                : nested_spans(t, region, trace.end_time(), scope));
    }
}

bool CodeSpeedups::entered(std::size_t region) const {
    return std::ranges::any_of(spans_[region], [](const Intervals& s) { return !s.empty(); });
}

double CodeSpeedups::sped_up(ThreadIndex thread, Time begin, Time end,
                             std::span<const double> factors) const {
    // The edges of the selected regions' spans within [begin, end), each flipping one region.
    struct Edge {
        Time at;
        std::uint32_t region;
    };
    std::vector<Edge> edges;
    for (std::uint32_t k = 0; k < spans_.size(); ++k) {
        const auto& spans = spans_[k][thread];
        auto it = std::upper_bound(spans.begin(), spans.end(), begin,
                                   [](Time t, const auto& span) { return t < span.second; });
        for (; it != spans.end() && it->first < end; ++it) {
            edges.push_back({std::max(it->first, begin), k});
            edges.push_back({std::min(it->second, end), k});
        }
    }
    if (edges.empty()) return static_cast<double>(end - begin);
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
    double total = 0;
    Time at = begin;
    std::uint64_t inside = 0; // the regions [at, next edge) lies in
    auto piece = [&](Time until) {
        if (until <= at) return;
        double factor = 0; // inside at least one region
        for (std::uint32_t k = 0; k < spans_.size(); ++k)
            if (inside >> k & 1) factor = std::max(factor, factors[k]);
        const auto length = static_cast<double>(until - at);
        total += inside == 0 ? length : length / factor;
        at = until;
    };
    for (const auto& e : edges) {
        piece(e.at);
        inside ^= std::uint64_t{1} << e.region;
    }
    piece(end);
    return total;
}

ProgramArray<double> CodeSpeedups::burst_durations(const ProgramArray<Time>& durations,
                                                   std::span<const double> factors) const {
    ProgramArray<double> out(durations.size());
    for (ReplayThread th = 0; th < program_.thread_count(); ++th) {
        for (OpIndex op = program_.thread_first_op[th]; op < program_.thread_end_op(th); ++op) {
            if (program_.op_kind[op] != OpKind::burst) continue;
            const auto burst = program_.op_ref[op];
            const Time end = burst_end_[burst];
            out[burst] = sped_up(program_.trace_thread[th], end - durations[burst], end, factors);
        }
    }
    return out;
}

} // namespace popsim::replay

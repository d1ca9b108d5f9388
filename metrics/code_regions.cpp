// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/code_regions.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/code_speedup.hpp"

#include <algorithm>

namespace popsim::metrics {

namespace {

bool has_events(const replay::Trace& trace, std::uint32_t type) {
    return std::any_of(trace.threads.begin(), trace.threads.end(), [&](const auto& t) {
        const auto* s = t.series(type);
        return s && !s->time.empty();
    });
}

} // namespace

std::uint32_t default_region_type(const replay::Trace& trace) {
    for (const auto type : {replay::extrae::k_user_function, replay::extrae::k_caller})
        if (has_events(trace, type)) return type;
    return 0;
}

CodeRegions::CodeRegions(const replay::Trace& trace, const replay::ReplayProgram& program,
                         std::uint32_t type)
    : program_(program), type_(type), changes_(program.thread_count()),
      call_(program.thread_count()) {
    if (type == 0) return; // everything is outside regions: nothing to place
    traced_end_ = replay::burst_traced_ends(trace, program);
    const bool intervals = !replay::extrae::is_call_site_type(type);
    for (replay::ReplayThread th = 0; th < program.thread_count(); ++th) {
        const auto& t = trace.threads[program.trace_thread[th]];
        const auto* series = t.series(type);
        auto& changes = changes_[th];
        if (series && intervals) {
            std::vector<std::uint64_t> open; // the stack of entered regions
            for (std::size_t k = 0; k < series->time.size(); ++k) {
                if (series->value[k] != 0)
                    open.push_back(series->value[k]);
                else if (!open.empty())
                    open.pop_back();
                changes.push_back({series->time[k], open.empty() ? 0 : open.back()});
            }
        } else if (series && !series->time.empty()) {
            // Each point owns the time since the one before it.
            changes.push_back({std::numeric_limits<Time>::min(), series->value[0]});
            for (std::size_t k = 1; k < series->time.size(); ++k)
                changes.push_back({series->time[k - 1], series->value[k]});
            changes.push_back({series->time.back(), 0});
        }
        auto& calls = call_[th];
        calls.resize(t.call_begin.size(), 0);
        for (std::size_t c = 0; c < calls.size(); ++c) {
            const Time entry = t.call_begin[c];
            if (intervals) {
                auto it = std::upper_bound(changes.begin(), changes.end(), entry,
                                           [](Time x, const Change& ch) { return x < ch.at; });
                calls[c] = it == changes.begin() ? 0 : (it - 1)->region;
            } else if (series) { // the first point at or after the entry
                const auto it = std::lower_bound(series->time.begin(), series->time.end(), entry);
                calls[c] = it == series->time.end()
                               ? 0
                               : series->value[static_cast<std::size_t>(it - series->time.begin())];
            }
        }
    }
}

std::uint64_t CodeRegions::at_call(replay::ReplayThread th, std::uint32_t call) const {
    return call < call_[th].size() ? call_[th][call] : 0;
}

} // namespace popsim::metrics

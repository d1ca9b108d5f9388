// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/trace_summary.hpp"

#include "replay/extrae_events.hpp"
#include "replay/trace_error.hpp"
#include "replay/traced_windows.hpp"

#include <algorithm>
#include <numeric>

namespace popsim::metrics {

Time time_in_state(const replay::ThreadTimeline& t, std::uint8_t state) {
    Time total = 0;
    for (std::size_t i = 0; i < t.state_count(); ++i)
        if (t.state_value[i] == state) total += t.state_end(i) - t.state_begin[i];
    return total;
}

double TraceSummary::useful_average() const {
    return useful.empty() ? 0.0 : useful_total() / static_cast<double>(useful.size());
}
Time TraceSummary::useful_max() const {
    return useful.empty() ? 0 : *std::max_element(useful.begin(), useful.end());
}
double TraceSummary::useful_total() const {
    // Millions of threads of hours each pass 2^63 ns; a double keeps the sum's magnitude.
    return std::accumulate(useful.begin(), useful.end(), 0.0,
                           [](double sum, Time t) { return sum + static_cast<double>(t); });
}

TraceSummary summarize(const replay::Trace& trace, bool whole_trace) {
    return summarize(trace, whole_trace ? replay::Intervals{} : replay::untraced_spans(trace));
}

TraceSummary summarize(const replay::Trace& trace, const replay::Intervals& untraced) {
    std::vector<Time> useful;
    for (const auto& t : trace.threads)
        useful.push_back(time_in_state(t, replay::extrae::k_state_running));
    auto s = summarize(trace, untraced, std::move(useful));
    s.startup = startup_shutdown(trace, s.windows);
    return s;
}

TraceSummary summarize(const replay::Trace& trace, const replay::Intervals& untraced,
                       std::vector<Time> useful) {
    TraceSummary s;
    s.path = trace.path;
    s.processes = trace.task_count();
    s.threads = trace.thread_count();
    s.windows = replay::traced_windows(trace, untraced);
    s.runtime = replay::traced_time(trace, untraced);
    s.task_first_thread = trace.first_threads();
    s.useful = std::move(useful);
    for (const auto& t : trace.threads) {
        if (__builtin_add_overflow(s.instructions, t.useful_instructions, &s.instructions) ||
            __builtin_add_overflow(s.cycles, t.useful_cycles, &s.cycles)) {
            throw replay::TraceError(trace.path, 0,
                                     "the threads' useful instructions or cycles add up past 2^64");
        }
        s.has_counters = s.has_counters || t.has_counters;
    }
    return s;
}

namespace {

void add_each(std::vector<Time>& sums, const std::vector<Time>& values) {
    sums.resize(std::max(sums.size(), values.size()), 0);
    for (std::size_t i = 0; i < values.size(); ++i) sums[i] = add_times(sums[i], values[i]);
}

} // namespace

TraceSummary concatenate(const std::vector<TraceSummary>& parts, replay::Intervals windows) {
    if (parts.empty()) return {};
    TraceSummary all = parts.front();
    all.windows = std::move(windows);
    all.runtime = 0;
    all.useful.assign(all.useful.size(), 0);
    all.instructions = all.cycles = 0;
    all.has_counters = false;
    all.startup = {};
    bool ideal = true;
    IdealRun sum;
    for (const auto& p : parts) {
        all.runtime = add_times(all.runtime, p.runtime);
        add_each(all.useful, p.useful);
        all.instructions += p.instructions;
        all.cycles += p.cycles;
        all.has_counters = all.has_counters || p.has_counters;
        all.startup.traced = add_times(all.startup.traced, p.startup.traced);
        all.startup.ideal = add_times(all.startup.ideal, p.startup.ideal);
        add_each(all.startup.task_startup, p.startup.task_startup);
        add_each(all.startup.task_shutdown, p.startup.task_shutdown);
        add_each(all.startup.task_in_init_finalize, p.startup.task_in_init_finalize);
        ideal = ideal && p.ideal.has_value();
        if (!p.ideal) continue;
        sum.runtime = add_times(sum.runtime, p.ideal->runtime);
        add_each(sum.task_useful, p.ideal->task_useful);
        add_each(sum.task_end, p.ideal->task_end);
        add_each(sum.task_mpi_outside_omp, p.ideal->task_mpi_outside_omp);
    }
    all.ideal.reset();
    if (ideal) {
        sum.max_useful = sum.task_useful.empty()
                             ? 0
                             : *std::max_element(sum.task_useful.begin(), sum.task_useful.end());
        all.ideal = std::move(sum);
    }
    return all;
}

} // namespace popsim::metrics

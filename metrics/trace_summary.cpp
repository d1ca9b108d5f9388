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
    TraceSummary s;
    s.path = trace.path;
    s.processes = trace.task_count();
    s.threads = trace.thread_count();
    s.windows = replay::traced_windows(trace, untraced);
    s.runtime = replay::traced_time(trace, untraced);
    s.task_first_thread = trace.first_threads();
    for (const auto& t : trace.threads) {
        s.useful.push_back(time_in_state(t, replay::extrae::k_state_running));
        if (__builtin_add_overflow(s.instructions, t.useful_instructions, &s.instructions) ||
            __builtin_add_overflow(s.cycles, t.useful_cycles, &s.cycles)) {
            throw replay::TraceError(trace.path, 0,
                                     "the threads' useful instructions or cycles add up past 2^64");
        }
        s.has_counters = s.has_counters || t.has_counters;
    }
    return s;
}

} // namespace popsim::metrics

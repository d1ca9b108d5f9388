#include "metrics/trace_summary.hpp"

#include "replay/extrae_events.hpp"
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
    return useful.empty()
               ? 0.0
               : static_cast<double>(useful_total()) / static_cast<double>(useful.size());
}
Time TraceSummary::useful_max() const {
    return useful.empty() ? 0 : *std::max_element(useful.begin(), useful.end());
}
Time TraceSummary::useful_total() const {
    return std::accumulate(useful.begin(), useful.end(), Time{0});
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
        s.instructions += t.useful_instructions;
        s.cycles += t.useful_cycles;
        s.has_counters = s.has_counters || t.has_counters;
    }
    return s;
}

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/focus/trace_window.hpp"

#include "replay/extrae_events.hpp"
#include "replay/focus/record_window.hpp"
#include "replay/input/communication_repair.hpp"
#include "replay/input/trace_builder.hpp"
#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace popsim::replay {

std::vector<std::uint32_t> focus_event_types(std::vector<std::uint32_t> tracked) {
    for (std::uint32_t counter : {extrae::k_papi_total_instructions, extrae::k_papi_total_cycles})
        if (std::find(tracked.begin(), tracked.end(), counter) == tracked.end())
            tracked.push_back(counter);
    return tracked;
}

namespace {

/// One thread's records, regenerated from the trace model in time order: the records a cut at
/// `from` needs to know what is in effect there, or those after it up to `to`.
class ThreadRecords {
  public:
    ThreadRecords(const ThreadTimeline& t, RecordOwner owner) : t_(t), owner_(owner) {}

    void before(TimeWindow w, RecordWindow& out) {
        const std::size_t s = first_state_after(w.from);
        if (s > 0 && t_.state_value[s - 1] != k_no_state) out.state(state(s - 1));
        const std::size_t c = first_call_after(w.from);
        if (c > 0 && t_.call_end[c - 1] > w.from) add_entry(c - 1, 0);
        for (const auto& series : t_.tracked_events) {
            if (extrae::is_counter_type(series.type)) continue;
            const auto at = std::upper_bound(series.time.begin(), series.time.end(), w.from);
            if (at == series.time.begin()) continue;
            const auto i = static_cast<std::size_t>(at - series.time.begin()) - 1;
            pairs_.push_back({series.time[i], {series.type, series.value[i]}, 0});
        }
        flush_events(out, w.from + 1);
    }

    void inside(TimeWindow w, RecordWindow& out) {
        std::size_t c = first_call_after(w.from);
        if (c > 0 && t_.call_end[c - 1] > w.from) // the exit of the call open at `from`
            pairs_.push_back({t_.call_end[c - 1], {call_type(c - 1), 0}, 0});
        // A call of no length leaves on a line after its entry's, as Extrae writes it (a line's
        // exits are read before its entries), where the next call at that time enters: a run of
        // such calls at one time takes a line each.
        std::uint32_t line = 0;
        Time run = -1; // the time of the run of calls of no length
        for (; c < t_.call_id.size() && t_.call_begin[c] < w.to; ++c) {
            const Time begin = t_.call_begin[c], exit = t_.call_end[c];
            if (begin != run) line = 0;
            add_entry(c, line);
            if (exit == begin) {
                run = begin;
                ++line;
            }
            pairs_.push_back({exit, {call_type(c), 0}, exit == begin ? line : 0});
        }
        for (const auto& series : t_.tracked_events) {
            auto i = static_cast<std::size_t>(
                std::upper_bound(series.time.begin(), series.time.end(), w.from) -
                series.time.begin());
            for (; i < series.time.size() && series.time[i] <= w.to; ++i)
                pairs_.push_back({series.time[i], {series.type, series.value[i]}, 0});
        }
        sort_pairs();
        // States and events merged by time, a state before the events at its start.
        std::size_t s = first_state_after(w.from);
        std::size_t e = 0;
        while (e < pairs_.size()) {
            const Time time = pairs_[e].time;
            for (; s < t_.state_count() && t_.state_begin[s] <= time && t_.state_begin[s] < w.to;
                 ++s)
                if (t_.state_value[s] != k_no_state) out.state(state(s));
            e = put_line(out, e);
        }
        for (; s < t_.state_count() && t_.state_begin[s] < w.to; ++s)
            if (t_.state_value[s] != k_no_state) out.state(state(s));
        pairs_.clear();
    }

  private:
    std::size_t first_state_after(Time t) const {
        return static_cast<std::size_t>(
            std::upper_bound(t_.state_begin.begin(), t_.state_begin.end(), t) -
            t_.state_begin.begin());
    }
    std::size_t first_call_after(Time t) const {
        return static_cast<std::size_t>(
            std::upper_bound(t_.call_begin.begin(), t_.call_begin.end(), t) -
            t_.call_begin.begin());
    }
    StateRecord state(std::size_t i) const {
        return {owner_, t_.state_begin[i], t_.state_end(i), t_.state_value[i]};
    }
    std::uint32_t call_type(std::size_t c) const {
        const auto call = mpi_call_by_id(t_.call_id[c]);
        return call ? call->event_type : extrae::k_mpi_other;
    }
    /// The call's entry and, on the same line (the `line`-th at its time), its collective
    /// attributes.
    void add_entry(std::size_t c, std::uint32_t line) {
        const Time begin = t_.call_begin[c];
        pairs_.push_back({begin, {call_type(c), t_.call_id[c]}, line});
        const auto* attrs = t_.attributes_of(c);
        if (!attrs) return;
        pairs_.push_back({begin, {extrae::k_collective_send_size, attrs->send_bytes}, line});
        pairs_.push_back({begin, {extrae::k_collective_recv_size, attrs->recv_bytes}, line});
        pairs_.push_back({begin, {extrae::k_collective_root, attrs->is_root ? 1u : 0u}, line});
        pairs_.push_back({begin, {extrae::k_collective_communicator, attrs->communicator}, line});
    }
    /// Writes the gathered events before `until`, one line per time.
    void flush_events(RecordWindow& out, Time until) {
        sort_pairs();
        for (std::size_t e = 0; e < pairs_.size() && pairs_[e].time < until;) e = put_line(out, e);
        pairs_.clear();
    }
    void sort_pairs() {
        std::stable_sort(pairs_.begin(), pairs_.end(), [](const TimedPair& a, const TimedPair& b) {
            return a.line() < b.line();
        });
    }
    /// Writes the line that begins at pairs_[e]; returns the index after it.
    std::size_t put_line(RecordWindow& out, std::size_t e) {
        const auto line = pairs_[e].line();
        line_.clear();
        for (; e < pairs_.size() && pairs_[e].line() == line; ++e) line_.push_back(pairs_[e].pair);
        out.event(owner_, line.first, line_);
        return e;
    }

    const ThreadTimeline& t_;
    RecordOwner owner_;
    struct TimedPair {
        Time time;
        EventPair pair;
        std::uint32_t line_at_time; // 0: the first line at its time, 1: the next, ...
        std::pair<Time, std::uint32_t> line() const { return {time, line_at_time}; }
    };
    std::vector<TimedPair> pairs_;
    std::vector<EventPair> line_;
};

/// Each thread as the window's header numbers it: its one application is the first.
std::vector<RecordOwner> window_owners(const Trace& trace) {
    std::vector<RecordOwner> owners;
    for (const auto& t : trace.threads)
        owners.push_back({.application = 1, .task = t.name.task, .thread = t.name.thread});
    return owners;
}

} // namespace

TraceWindows::TraceWindows(const Trace& trace) : trace_(trace), owners_(window_owners(trace)) {
    for (const auto& t : trace.threads)
        for (const auto& series : t.tracked_events)
            if (std::find(tracked_.begin(), tracked_.end(), series.type) == tracked_.end())
                tracked_.push_back(series.type);
    messages_by_send_.resize(trace.comms.size());
    std::iota(messages_by_send_.begin(), messages_by_send_.end(), std::size_t{0});
    std::stable_sort(messages_by_send_.begin(), messages_by_send_.end(),
                     [&](std::size_t a, std::size_t b) {
                         return trace.comms.logical_send[a] < trace.comms.logical_send[b];
                     });
    index_collectives();
}

// Per task and communicator, when each collective call ended: a window's count of those before
// it is a binary search.
void TraceWindows::index_collectives() {
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>, std::vector<Time>> ends;
    for (const auto& t : trace_.threads) {
        for (std::size_t c = 0; c < t.call_id.size(); ++c) {
            const CallClass cls = call_class(t.call_id[c]);
            if (!numbered_as_collective(cls)) continue;
            const auto* attrs = cls == CallClass::init ? nullptr : t.attributes_of(c);
            const std::uint64_t comm = attrs ? attrs->communicator : k_default_communicator;
            ends[{t.name.application, t.name.task, comm}].push_back(t.call_end[c]);
        }
    }
    for (auto& [key, times] : ends) {
        std::sort(times.begin(), times.end()); // several threads of a task may call them
        const auto [application, task, communicator] = key;
        collective_ends_.push_back({{application, task, communicator, 0}, std::move(times)});
    }
}

std::vector<CollectivesBeforeCut> TraceWindows::collectives_before(Time from) const {
    CollectiveCounts calls;
    calls.add(trace_.collectives_before_cut);
    for (const auto& [key, ends] : collective_ends_) {
        const auto before = static_cast<std::uint64_t>(
            std::upper_bound(ends.begin(), ends.end(), from) - ends.begin());
        if (before > 0) calls.add(key.application, key.task, key.communicator, before);
    }
    return calls.list();
}

Trace TraceWindows::window(TimeWindow window) const {
    Trace out;
    out.path = trace_.path;
    out.header = trace_.header; // the analysed application only
    out.header.end_time = window.length();
    out.application = trace_.application;
    // The names of states, types and threads; the .pcf's values served to find the window.
    out.labels.states = trace_.labels.states;
    out.labels.event_types = trace_.labels.event_types;
    out.labels.thread_names = trace_.labels.thread_names;
    out.window_end = true;
    TraceBuilder builder(out, tracked_, false);
    BuilderInput input(builder);
    RecordWindow cut(out.header, window, input);
    std::vector<ThreadRecords> threads;
    threads.reserve(trace_.threads.size());
    for (ThreadIndex t = 0; t < trace_.thread_count(); ++t)
        threads.emplace_back(trace_.threads[t], owners_[t]);
    for (auto& t : threads) t.before(window, cut);
    for (auto& t : threads) t.inside(window, cut);
    // The messages sent in the window, in the trace's order (the others are not kept).
    const auto& c = trace_.comms;
    auto send_at = [&](std::size_t m) { return c.logical_send[m]; };
    const auto first =
        std::partition_point(messages_by_send_.begin(), messages_by_send_.end(),
                             [&](std::size_t m) { return send_at(m) < window.from; });
    const auto last = std::partition_point(first, messages_by_send_.end(),
                                           [&](std::size_t m) { return send_at(m) <= window.to; });
    std::vector<std::size_t> sent(first, last);
    std::sort(sent.begin(), sent.end());
    for (const std::size_t i : sent) {
        cut.comm({.sender = owners_[c.sender[i]],
                  .logical_send = c.logical_send[i],
                  .physical_send = c.logical_send[i], // not kept by the model
                  .receiver = owners_[c.receiver[i]],
                  .logical_recv = c.logical_recv[i],
                  .physical_recv = c.physical_recv[i],
                  .size = c.bytes[i],
                  .tag = c.tag[i]});
    }
    cut.finish();
    builder.finish(0);
    for (ThreadIndex t = 0; t < out.threads.size(); ++t)
        out.threads[t].name.application = trace_.application;
    out.cut_at_end = true;
    out.collectives_before_cut = collectives_before(window.from);
    drop_duplicate_records(out);
    out.repairs = repair_communications(out);
    return out;
}

std::vector<CollectivesBeforeCut> collectives_before(const Trace& trace, Time from) {
    return TraceWindows(trace).collectives_before(from);
}

Trace window_of(const Trace& trace, TimeWindow window) {
    return TraceWindows(trace).window(window);
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/focus/record_window.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace popsim::replay {

RecordWindow::RecordWindow(const ParaverHeader& header, TimeWindow window, RecordSink& sink)
    : window_(window), sink_(sink), numbering_(header) {
    threads_.resize(header.total_threads());
}

RecordWindow::ThreadEffects& RecordWindow::thread(const RecordOwner& owner) {
    const auto number = numbering_.find(owner.application, owner.task, owner.thread);
    if (!number) throw std::out_of_range("the record's thread is not in the header");
    ThreadEffects& t = threads_[*number];
    t.owner = owner;
    return t;
}

void RecordWindow::check_before_start(const char* what, Time time) const {
    if (!started_) return;
    throw UnsortedRecords(fmt::format(
        "a {} at {} ns, at or before the window's start ({} ns), comes after records past the "
        "start: the trace is not sorted by time across threads",
        what, time, window_.from));
}

void RecordWindow::state(const StateRecord& r) {
    ThreadEffects& t = thread(r.owner);
    const auto part = window_.clip(r.begin, r.end);
    if (r.begin <= window_.from) {
        if (!part) return; // over before the window
        check_before_start("state", r.begin);
        t.opening = r;
        t.running_before_start = r.state == extrae::k_state_running && r.begin < window_.from;
        t.opening->begin = window_.rebase(part->first);
        t.opening->end = window_.rebase(part->second);
        return;
    }
    start();
    if (!part) return;
    StateRecord clipped = r;
    clipped.begin = window_.rebase(part->first);
    clipped.end = window_.rebase(part->second);
    sink_.state(clipped);
}

void RecordWindow::event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) {
    ThreadEffects& t = thread(owner);
    if (time <= window_.from) {
        check_before_start("event", time);
        apply(t, time, pairs);
        return;
    }
    start();
    if (time > window_.to) return;
    kept_.clear();
    for (const auto& p : pairs) {
        if (!extrae::is_counter_type(p.type)) {
            if (window_.keeps_event(time)) kept_.push_back(p);
            continue;
        }
        if (!window_.keeps_counter_read(time)) continue;
        auto& read = t.counters_read;
        const bool first = std::find(read.begin(), read.end(), p.type) == read.end();
        if (first) read.push_back(p.type);
        kept_.push_back({p.type, first && t.running_before_start ? 0 : p.value});
    }
    if (!kept_.empty()) sink_.event(owner, window_.rebase(time), kept_);
    if (window_.keeps_event(time)) apply(t, time, pairs);
}

void RecordWindow::comm(const CommRecord& r) {
    if (!window_.keeps_message(r.logical_send, r.logical_recv, r.physical_recv)) return;
    CommRecord kept = r;
    for (Time* time :
         {&kept.logical_send, &kept.physical_send, &kept.logical_recv, &kept.physical_recv})
        *time = window_.rebase(std::clamp(*time, window_.from, window_.to));
    sink_.comm(kept);
}

// Within one record, as the trace builder reads it: exits, then entries, then the entry's
// attributes.
void RecordWindow::apply(ThreadEffects& t, Time time, std::span<const EventPair> pairs) {
    for (const auto& p : pairs) {
        if (!extrae::is_mpi_call_type(p.type) || p.value != 0) continue;
        if (time <= window_.from && !t.call_entry.empty()) count_collective_before(t);
        t.call_entry.clear();
    }
    for (const auto& p : pairs) {
        if (extrae::is_mpi_call_type(p.type) && p.value != 0) {
            t.call_entry.assign(1, p);
            t.call_entry_time = time;
        }
    }
    for (const auto& p : pairs) {
        if (extrae::is_mpi_call_type(p.type) || extrae::is_counter_type(p.type)) continue;
        if (extrae::is_collective_attribute(p.type)) {
            if (!t.call_entry.empty() && t.call_entry_time == time) t.call_entry.push_back(p);
            continue;
        }
        auto set = std::find_if(t.set_values.begin(), t.set_values.end(),
                                [&](const EventPair& s) { return s.type == p.type; });
        if (p.value == 0) {
            if (set != t.set_values.end()) t.set_values.erase(set);
        } else if (set != t.set_values.end()) {
            set->value = p.value;
        } else {
            t.set_values.push_back(p);
        }
    }
}

// As the replay numbers them (TraceWindows::collectives_before counts the same from the model):
// collectives and MPI_Init, on the communicator their entry names, else the default one.
void RecordWindow::count_collective_before(const ThreadEffects& t) {
    const CallClass cls = call_class(static_cast<std::uint16_t>(t.call_entry.front().value));
    if (!numbered_as_collective(cls)) return;
    std::uint64_t comm = k_default_communicator;
    if (cls != CallClass::init) {
        for (const auto& p : t.call_entry)
            if (p.type == extrae::k_collective_communicator) comm = p.value;
    }
    before_.add(t.owner->application, t.owner->task, comm);
}

std::vector<CollectivesBeforeCut> RecordWindow::collectives_before() const {
    return before_.list();
}

void RecordWindow::start() {
    if (std::exchange(started_, true)) return;
    for (auto& t : threads_) {
        if (!t.owner) continue;
        if (t.opening) sink_.state(*t.opening);
        kept_ = t.call_entry;
        kept_.insert(kept_.end(), t.set_values.begin(), t.set_values.end());
        if (!kept_.empty()) sink_.event(*t.owner, 0, kept_);
    }
}

void RecordWindow::finish() {
    start();
    for (auto& t : threads_) {
        if (!t.owner) continue;
        kept_.clear();
        if (!t.call_entry.empty()) kept_.push_back({t.call_entry.front().type, 0});
        for (const auto& set : t.set_values) kept_.push_back({set.type, 0});
        if (!kept_.empty()) sink_.event(*t.owner, window_.length(), kept_);
    }
}

} // namespace popsim::replay

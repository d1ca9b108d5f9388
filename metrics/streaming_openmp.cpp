// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/streaming_openmp.hpp"

#include "replay/extrae_events.hpp"
#include "replay/streaming/streaming_replay.hpp"

#include <algorithm>

namespace popsim::metrics {

namespace ex = replay::extrae;

void StreamingOpenMp::RunningClock::add(Time begin, Time end) {
    total += end - begin;
    last_begin = begin;
    last_end = end;
}

Time StreamingOpenMp::RunningClock::before(Time t) const {
    // Only the latest Running state can reach past `t`: the earlier ones end before it begins.
    return total - std::max<Time>(0, last_end - std::max(last_begin, t));
}

StreamingOpenMp::StreamingOpenMp(HybridRun& run)
    : run_(run), threads_(run.total_threads), processes_(run.processes) {
    for (std::uint32_t p = 0; p < run.processes; ++p)
        processes_[p].useful_at_entry.resize(run.threads_end(p) - run.master[p]);
}

void StreamingOpenMp::refuse_earlier(Time time) const {
    if (time < watermark_)
        throw replay::StreamingUnsupported("OpenMP records are not in time order");
}

void StreamingOpenMp::reached(Time time) {
    watermark_ = std::max(watermark_, time);
}

void StreamingOpenMp::entered(replay::ThreadIndex t, Time) {
    threads_[t].in_call = true;
    if (threads_[t].stack) threads_[t].stack->closed_in_call.clear();
}

void StreamingOpenMp::state(replay::ThreadIndex t, Time begin, Time end, std::uint8_t value) {
    // Only Running counts; the other states may come late (a gap comes with the next state).
    if (value != ex::k_state_running) return;
    refuse_earlier(begin);
    settle(t, begin);
    threads_[t].running.add(begin, end);
}

void StreamingOpenMp::call(replay::ThreadIndex t, Time begin, Time end) {
    if (!threads_[t].stack) {
        threads_[t].in_call = false;
        threads_[t].mpi_outside_omp += end - begin;
        return;
    }
    settle(t, end); // the call comes with its exit record, still in it
    threads_[t].in_call = false;
    auto& th = *threads_[t].stack;
    if (begin >= th.instant && !th.changes.empty()) {
        th.calls_at_instant.emplace_back(begin, end); // the stack at its entry is not known yet
        return;
    }
    decide_call(t, begin, end);
    th.closed_in_call.clear();
}

void StreamingOpenMp::decide_call(replay::ThreadIndex t, Time begin, Time end) {
    const auto& th = *threads_[t].stack;
    bool inside = th.depth > 0 && th.open <= begin;
    for (const auto& [b, e] : th.closed_in_call) inside = inside || (b <= begin && begin < e);
    if (!inside) threads_[t].mpi_outside_omp += end - begin;
}

void StreamingOpenMp::event(replay::ThreadIndex t, Time time, std::uint32_t type,
                            std::uint64_t value) {
    if (!is_openmp_stack_type(type)) return;
    refuse_earlier(time);
    if (!threads_[t].stack) threads_[t].stack = std::make_unique<Thread>();
    settle(t, time);
    auto& th = *threads_[t].stack;
    th.instant = time;
    th.changes.push_back({openmp_stack_order(type), value != 0});
    const std::uint32_t p = run_.process_of[t];
    if (t == run_.master[p]) region_event(p, time, type, value);
}

/// A record of thread `t` at `time` comes: the stack's changes before `time` are all in.
void StreamingOpenMp::settle(replay::ThreadIndex t, Time time) {
    if (!threads_[t].stack) return;
    const auto& th = *threads_[t].stack;
    if (time <= th.instant || th.changes.empty()) return;
    apply_changes(t);
}

void StreamingOpenMp::apply_changes(replay::ThreadIndex t) {
    auto& th = *threads_[t].stack;
    auto& b = run_.threads[t];
    const auto& running = threads_[t].running;
    std::stable_sort(th.changes.begin(), th.changes.end(),
                     [](const StackChange& x, const StackChange& y) { return x.order < y.order; });
    for (const auto& c : th.changes) {
        const int before = th.depth;
        th.depth = c.push ? th.depth + 1 : std::max(0, th.depth - 1);
        if (before == 0 && th.depth > 0) {
            th.open = th.instant;
            th.useful_at_open = running.before(th.instant);
        } else if (before > 0 && th.depth == 0) {
            b.omp_region += th.instant - th.open;
            b.useful_in_omp += running.before(th.instant) - th.useful_at_open;
            if (threads_[t].in_call) th.closed_in_call.emplace_back(th.open, th.instant);
        }
    }
    th.changes.clear();
    for (const auto& [begin, end] : th.calls_at_instant) decide_call(t, begin, end);
    if (!th.calls_at_instant.empty()) th.closed_in_call.clear();
    th.calls_at_instant.clear();
}

void StreamingOpenMp::region_event(std::uint32_t p, Time time, std::uint32_t type,
                                   std::uint64_t value) {
    auto& process = processes_[p];
    const auto first_at = [&](Time& at, std::uint64_t& first) {
        if (value == 0 || at == time) return;
        at = time;
        first = value;
    };
    if (type == ex::k_omp_outlined_function && value != 0) {
        first_at(process.outlined_time, process.outlined_value);
        for (const auto& u : process.unkeyed) run_.add_region(p, value, u.length, u.useful);
        process.unkeyed.clear();
        if (process.edges.open() && !process.key) process.key = value;
    }
    if (type != ex::k_omp_parallel) return;
    first_at(process.parallel_time, process.parallel_value);
    const bool was_open = process.edges.open().has_value();
    if (const auto region = process.edges.event(time, value)) {
        close_region(p, region->first, region->second);
    } else if (!was_open && process.edges.open()) {
        const std::uint32_t first = run_.master[p];
        for (std::size_t k = 0; k < process.useful_at_entry.size(); ++k)
            process.useful_at_entry[k] = threads_[first + k].running.before(time);
        process.fallback_key = process.parallel_value;
        process.key.reset();
        if (process.outlined_time == time) process.key = process.outlined_value;
    }
}

void StreamingOpenMp::close_region(std::uint32_t p, Time begin, Time end) {
    auto& process = processes_[p];
    const std::uint32_t first = run_.master[p];
    std::vector<Time> useful(process.useful_at_entry.size());
    for (std::size_t k = 0; k < useful.size(); ++k)
        useful[k] = threads_[first + k].running.before(end) - process.useful_at_entry[k];
    if (process.key)
        run_.add_region(p, *process.key, end - begin, useful);
    else
        process.unkeyed.push_back({*process.fallback_key, end - begin, std::move(useful)});
}

void StreamingOpenMp::finish(Time trace_end) {
    for (replay::ThreadIndex t = 0; t < threads_.size(); ++t) {
        run_.threads[t].mpi_outside_omp += threads_[t].mpi_outside_omp;
        if (!threads_[t].stack) continue;
        auto& th = *threads_[t].stack;
        if (!th.changes.empty()) apply_changes(t);
        if (th.depth > 0 && trace_end > th.open) {
            run_.threads[t].omp_region += trace_end - th.open;
            run_.threads[t].useful_in_omp +=
                threads_[t].running.before(trace_end) - th.useful_at_open;
        }
    }
    for (std::uint32_t p = 0; p < processes_.size(); ++p) {
        auto& process = processes_[p];
        if (const auto open = process.edges.open()) close_region(p, *open, trace_end);
        for (const auto& u : process.unkeyed)
            run_.add_region(p, u.fallback_key, u.length, u.useful);
    }
}

} // namespace popsim::metrics

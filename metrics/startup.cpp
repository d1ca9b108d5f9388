// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/startup.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/traced_windows.hpp"

#include <algorithm>
#include <utility>

namespace popsim::metrics {

namespace {

/// `intervals` sorted and merged where they touch or overlap.
replay::Intervals merged(replay::Intervals intervals) {
    std::sort(intervals.begin(), intervals.end());
    replay::Intervals out;
    for (const auto& [begin, end] : intervals) {
        if (begin >= end) continue;
        if (!out.empty() && begin <= out.back().second)
            out.back().second = std::max(out.back().second, end);
        else
            out.emplace_back(begin, end);
    }
    return out;
}

/// The time every task's set covers; empty without tasks.
replay::Intervals common(const std::vector<replay::Intervals>& per_task) {
    if (per_task.empty()) return {};
    replay::Intervals all = per_task.front();
    for (std::size_t p = 1; p < per_task.size() && !all.empty(); ++p)
        all = replay::intersect(all, per_task[p]);
    return all;
}

bool absent(std::uint8_t state) {
    return state == replay::k_no_state || state == replay::extrae::k_state_not_created;
}

} // namespace

StartupRecorder::StartupRecorder(const replay::Trace& trace)
    : threads_are_tasks_(trace.threads_are_tasks()) {
    const auto first = trace.first_threads();
    tasks_.resize(first.size());
    if (threads_are_tasks_) return;
    task_of_thread_.assign(trace.thread_count(), -1);
    for (std::size_t p = 0; p < first.size(); ++p)
        task_of_thread_[first[p]] = static_cast<std::int32_t>(p);
}

std::int32_t StartupRecorder::task_of(replay::ThreadIndex thread) const {
    return threads_are_tasks_ ? static_cast<std::int32_t>(thread) : task_of_thread_[thread];
}

void StartupRecorder::state(replay::ThreadIndex thread, Time begin, Time end, std::uint8_t value) {
    const auto p = task_of(thread);
    if (p < 0 || absent(value) || begin >= end) return;
    auto& task = tasks_[static_cast<std::size_t>(p)];
    task.first_active = std::min(task.first_active, begin);
    task.last_active = std::max(task.last_active, end);
    if (!task.called && value == replay::extrae::k_state_running)
        task.running_before_call += end - begin;
}

void StartupRecorder::call(replay::ThreadIndex thread, Time begin, Time end, std::uint16_t id) {
    const auto p = task_of(thread);
    if (p < 0) return;
    auto& task = tasks_[static_cast<std::size_t>(p)];
    if (!std::exchange(task.called, true))
        task.init_first = replay::call_class(id) == replay::CallClass::init;
    if (replay::call_class(id) == replay::CallClass::init) task.init.emplace_back(begin, end);
    if (id == replay::k_mpi_finalize) task.finalize.emplace_back(begin, end);
}

StartupShutdown StartupRecorder::finish(const replay::Intervals& windows) const {
    StartupShutdown out;
    // The trace's end (a streamed trace's header may be read after this recorder was made).
    const Time end = windows.empty() ? 0 : windows.back().second;
    std::vector<replay::Intervals> traced, ideal;
    // MPI_Init's barrier ends on the ideal network when the last task enters it: nothing before
    // MPI_Init communicates, so each task enters it when it does in the trace.
    Time barrier = 0;
    bool finalized = false;
    for (const auto& task : tasks_) {
        if (!task.init.empty()) {
            barrier = std::max(barrier, task.init.front().first);
            out.init_end = std::max(out.init_end, task.init.back().second);
        }
        if (!task.finalize.empty()) {
            out.finalize_begin = std::max(out.finalize_begin, task.finalize.front().first);
            finalized = true;
        }
    }
    if (!finalized) out.finalize_begin = end;
    for (const auto& task : tasks_) {
        const Time first = std::min(task.first_active, end);
        const Time last = std::max(task.last_active, first);
        replay::Intervals startup = {{0, first}};
        startup.insert(startup.end(), task.init.begin(), task.init.end());
        replay::Intervals shutdown = task.finalize;
        shutdown.emplace_back(last, end);
        out.task_startup.push_back(
            replay::total_length(replay::intersect(merged(startup), windows)));
        out.task_shutdown.push_back(
            replay::total_length(replay::intersect(merged(shutdown), windows)));
        out.task_useful_before_init.push_back(task.init_first ? task.running_before_call : 0);
        out.task_not_created.push_back(
            replay::total_length(replay::intersect({{0, first}}, windows)));
        replay::Intervals calls = task.init;
        calls.insert(calls.end(), task.finalize.begin(), task.finalize.end());
        out.task_in_init_finalize.push_back(
            replay::total_length(replay::intersect(merged(std::move(calls)), windows)));
        startup.insert(startup.end(), shutdown.begin(), shutdown.end());
        traced.push_back(merged(std::move(startup)));
        replay::Intervals waiting = {{0, first}};
        if (!task.init.empty()) waiting.emplace_back(task.init.front().first, barrier);
        ideal.push_back(merged(std::move(waiting)));
        out.task_ideal_startup.push_back(replay::total_length(ideal.back()));
    }
    out.traced = replay::total_length(replay::intersect(common(traced), windows));
    out.ideal = replay::total_length(common(ideal));
    return out;
}

StartupBursts::StartupBursts(const replay::Trace& trace, const replay::ReplayProgram& program)
    : program_(program), end_(program.thread_count()) {
    for (replay::ReplayThread th = 0; th < program.thread_count(); ++th) {
        auto op = program.thread_first_op[th];
        const auto end = program.thread_end_op(th);
        while (op < end && program.op_kind[op] == replay::OpKind::burst) ++op;
        const auto& calls = trace.threads[program.trace_thread[th]].call_id;
        const auto call = op < end ? program.op_call[op] : replay::k_none;
        const bool init =
            call < calls.size() && replay::call_class(calls[call]) == replay::CallClass::init;
        end_[th] = init ? op : program.thread_first_op[th];
    }
}

bool StartupBursts::contains(replay::OpIndex op) const {
    return op < end_[program_.thread_of(op)];
}

StartupShutdown startup_shutdown(const replay::Trace& trace, const replay::Intervals& windows) {
    StartupRecorder recorder(trace);
    for (const auto t : trace.first_threads()) {
        const auto& th = trace.threads[t];
        // In time order, as a stream gives them: a state before a call that begins with it.
        std::size_t c = 0;
        for (std::size_t i = 0; i < th.state_count(); ++i) {
            for (; c < th.call_id.size() && th.call_begin[c] < th.state_begin[i]; ++c)
                recorder.call(t, th.call_begin[c], th.call_end[c], th.call_id[c]);
            recorder.state(t, th.state_begin[i], th.state_end(i), th.state_value[i]);
        }
        for (; c < th.call_id.size(); ++c)
            recorder.call(t, th.call_begin[c], th.call_end[c], th.call_id[c]);
    }
    return recorder.finish(windows);
}

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/critical_path.hpp"

#include "metrics/dependency_walk.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace popsim::metrics {

Time CriticalPath::imbalance() const {
    if (useful.empty()) return 0;
    const Time total = std::accumulate(useful.begin(), useful.end(), Time{0});
    const Time on_path_startup = std::accumulate(startup.begin(), startup.end(), Time{0});
    return length - on_path_startup - total / static_cast<Time>(useful.size());
}

std::vector<std::pair<std::uint64_t, Time>> CriticalPath::region_imbalance() const {
    if (useful.empty()) return {};
    std::map<std::uint64_t, Time> out;
    for (const auto& [key, t] : per_task_region) out[key.second] += t;
    for (const auto& [region, t] : region_useful)
        out[region] -= t / static_cast<Time>(useful.size());
    std::vector<std::pair<std::uint64_t, Time>> sorted(out.begin(), out.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return sorted;
}

CriticalPath critical_path(const replay::ReplayProgram& program, const replay::ReplayResult& result,
                           const CodeRegions& regions, const StartupBursts& startup) {
    CriticalPath out;
    out.per_task.assign(program.tasks, 0);
    out.startup.assign(program.tasks, 0);
    out.useful.assign(program.tasks, 0);
    // A task's computation is its first thread's: its bursts and its waits for the other threads
    // at parallel regions' joins (they computed meanwhile).
    for (std::uint32_t task = 0; task < program.tasks; ++task) {
        const auto master = program.master_thread(task);
        out.useful[task] = result.threads[master].outside_mpi();
        for (auto op = program.thread_first_op[master]; op < program.thread_end_op(master); ++op) {
            if (program.op_kind[op] != replay::OpKind::burst) continue;
            if (startup.contains(op)) {
                out.useful[task] -= result.op_end[op] - result.op_begin[op];
                continue;
            }
            regions.split_burst(
                op, result.op_begin[op], result.op_end[op], result.op_end[op],
                [&](std::uint64_t region, Time t) { out.region_useful[region] += t; });
        }
    }
    const DependencyWalk walk(program, result);
    walk.back_through_bursts(
        walk.last(), 0,
        [&](replay::OpIndex op, Time begin, Time end) {
            const std::uint32_t task = program.thread_task[program.thread_of(op)];
            out.length += end - begin;
            if (startup.contains(op)) {
                out.startup[task] += end - begin;
                return;
            }
            out.per_task[task] += end - begin;
            regions.split_burst(op, begin, end, result.op_end[op],
                                [&](std::uint64_t region, Time t) {
                                    out.per_task_region[{task, region}] += t;
                                });
        },
        [&] { ++out.jumps; });
    return out;
}

std::vector<PathSpan> critical_path_spans(const replay::ReplayProgram& program,
                                          const replay::ReplayResult& result) {
    std::vector<PathSpan> out;
    const DependencyWalk walk(program, result);
    walk.back(
        walk.last(), 0,
        [&](replay::OpIndex op, Time begin, Time end) {
            out.push_back(
                {program.thread_of(op), begin, end, program.op_kind[op] == replay::OpKind::burst});
        },
        [] {});
    return out;
}

CriticalPath traced_critical_path(const replay::Trace& trace, const replay::ReplayProgram& program,
                                  const CallTimeline& calls, const WaitStates& traced,
                                  const CodeRegions& regions) {
    CriticalPath out;
    out.per_task.assign(program.tasks, 0);
    if (program.thread_count() == 0) return out;
    // Per thread, its wait states in time order (their calls' order) and when each ended.
    std::vector<std::vector<std::size_t>> waits(program.thread_count());
    std::vector<Time> ended(traced.instances.size());
    for (std::size_t k = 0; k < traced.instances.size(); ++k) {
        const auto& w = traced.instances[k];
        waits[w.thread].push_back(k);
        ended[k] = calls.enter[w.late_thread][w.late_call];
    }
    replay::ReplayThread th = 0;
    Time t = 0;
    for (replay::ReplayThread x = 0; x < program.thread_count(); ++x) {
        const Time end = trace.threads[program.trace_thread[x]].last_record;
        if (end > t) std::tie(th, t) = std::pair(x, end);
    }
    out.length = t;
    // A thread's waits are used from its latest down, each once: the walk only goes back.
    std::vector<std::size_t> unused(program.thread_count());
    for (replay::ReplayThread x = 0; x < program.thread_count(); ++x) unused[x] = waits[x].size();
    for (;;) {
        auto& left = unused[th];
        while (left > 0 && ended[waits[th][left - 1]] > t) --left;
        const auto on_path = [&](Time from) { // [from, t) of thread th
            const std::uint32_t task = program.thread_task[th];
            out.per_task[task] += t - from;
            regions.split_traced(th, from, t, [&](std::uint64_t region, Time part) {
                out.per_task_region[{task, region}] += part;
            });
        };
        if (left == 0) {
            on_path(0);
            return out;
        }
        const auto& w = traced.instances[waits[th][--left]];
        const Time at = ended[waits[th][left]];
        on_path(at);
        ++out.jumps;
        std::tie(th, t) = std::pair(w.late_thread, at);
    }
}

} // namespace popsim::metrics

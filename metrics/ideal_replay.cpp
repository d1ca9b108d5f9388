// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/ideal_replay.hpp"

#include "metrics/thread_breakdown.hpp"

#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/program/cycle_breaking.hpp"
#include "replay/program/dependency_graph.hpp"
#include "replay/traced_windows.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <optional>

namespace popsim::metrics {

namespace {

/// Per task, the replayed time of its first thread's MPI operations whose call began outside a
/// parallel region.
std::vector<Time> mpi_outside_omp(const replay::Trace& trace, const replay::ReplayProgram& p,
                                  const replay::ReplayResult& r) {
    std::vector<Time> out(p.tasks, 0);
    for (std::uint32_t task = 0; task < p.tasks; ++task) {
        const auto thread = p.master_thread(task);
        const auto& master = trace.threads[p.trace_thread[thread]];
        const auto regions = parallel_regions(master, trace.end_time());
        for (replay::OpIndex op = p.thread_first_op[thread]; op < p.thread_end_op(thread); ++op) {
            if (p.op_call[op] == replay::k_none ||
                inside(master.call_begin[p.op_call[op]], regions))
                continue; // bursts, fork/join
            out[task] += r.op_end[op] - r.op_begin[op];
        }
    }
    return out;
}

/// Collectives replayed as "every member waits for the last" whose members left, in the trace,
/// before the last one arrived: how many, and the first.
std::pair<std::size_t, std::string> collectives_left_early(const replay::Trace& trace,
                                                           const replay::ReplayProgram& p) {
    std::size_t count = 0;
    std::string first, description;
    for (replay::CollectiveIndex c = 0; c < p.collectives.size(); ++c) {
        if (p.collectives[c].flow != replay::CollectiveFlow::all_members ||
            !replay::left_before_last_arrived(trace, p, c, &description))
            continue;
        if (count++ == 0) first = description;
    }
    return {count, first};
}

bool has_parallel_regions(const replay::Trace& trace) {
    for (const auto& t : trace.threads)
        if (const auto* s = t.series(replay::extrae::k_omp_parallel); s && !s->time.empty())
            return true;
    return false;
}

} // namespace

IdealRun ideal_run(const replay::Trace& trace, const IdealOptions& options,
                   replay::WarningLog* warnings) {
    return ideal_run(trace, replay::build_replay_program(trace, options.program), options,
                     warnings);
}

namespace {

replay::ReplayResult replay_ideal(const replay::ReplayProgram& program, const IdealOptions& options,
                                  bool timeline) {
    if (options.method == ReplayMethod::longest_path)
        return replay::replay_longest_path(program, replay::build_dependency_graph(program));
    replay::network::IdealNetwork ideal;
    return replay::replay_events(program, ideal,
                                 {.timeline = timeline, .on_progress = options.on_progress});
}

} // namespace

IdealRun ideal_run(const replay::Trace& trace, const replay::ReplayProgram& program,
                   const IdealOptions& options, replay::WarningLog* warnings) {
    if (warnings) warnings->merge(program.warnings);
    const bool hybrid = has_parallel_regions(trace); // needs per-operation times to split MPI time
    const replay::ReplayResult result = replay::replay_breaking_cycles(
        replay::left_early_in(trace, program), program,
        [&](const replay::ReplayProgram& p) { return replay_ideal(p, options, hybrid); }, warnings);
    std::vector<replay::ThreadTimes> tasks;
    for (std::uint32_t task = 0; task < program.tasks; ++task)
        tasks.push_back(result.task(program, task));
    IdealRun run = ideal_run_of(tasks, result.runtime);
    if (hybrid) run.task_mpi_outside_omp = mpi_outside_omp(trace, program, result);
    const Time traced = replay::traced_time(trace, program.untraced);
    if (warnings && run.runtime > traced) {
        const auto [early, first] = collectives_left_early(trace, program);
        note_ideal_after_real(run.runtime, traced, early, first, *warnings);
    }
    return run;
}

replay::ReplayResult ideal_replay_again(const replay::Trace& trace,
                                        const replay::ReplayProgram& program,
                                        const replay::EngineOptions& options) {
    return replay::replay_breaking_cycles(
        replay::left_early_in(trace, program), program,
        [&](const replay::ReplayProgram& p) {
            replay::network::IdealNetwork ideal;
            return replay::replay_events(p, ideal, options);
        },
        nullptr);
}

IdealRun ideal_run_of(const std::vector<replay::ThreadTimes>& tasks, Time runtime) {
    IdealRun run;
    run.runtime = runtime;
    for (const auto& t : tasks) {
        run.task_useful.push_back(t.outside_mpi());
        run.task_end.push_back(t.end);
        run.task_mpi_outside_omp.push_back(t.mpi());
        run.max_useful = std::max(run.max_useful, t.outside_mpi());
    }
    return run;
}

void note_ideal_after_real(Time runtime, Time traced, std::size_t early, const std::string& first,
                           replay::WarningLog& warnings) {
    // Messages all run forward once the reader has repaired them, so the cause is in the
    // collectives, or clocks that are out of step across nodes.
    const std::string cause =
        early > 0 ? fmt::format("{} collectives let members leave before the last one "
                                "arrived (the first: {}), which the default replay, where "
                                "every member waits for the last as in Dimemas, cannot "
                                "reproduce; --collectives mpi waits only where data flows",
                                early, first)
                  : "the trace's timestamps contradict its dependencies (clocks of "
                    "different nodes out of step?)";
    warnings.add("ideal-after-real",
                 fmt::format("the ideal-network replay ({} ns) takes longer than the trace "
                             "({} ns), so Transfer efficiency exceeds 100 %: {}",
                             runtime, traced, cause));
}

std::vector<RankBreakdown> rank_breakdown(const TraceSummary& s) {
    std::vector<RankBreakdown> out;
    if (!s.ideal) return out;
    const std::size_t tasks = s.task_first_thread.size();
    auto of_task = [](const std::vector<Time>& v, std::size_t task) {
        return task < v.size() ? v[task] : Time{0};
    };
    // Before MPI_Init returns is start-up: the not-created time and the computation before
    // MPI_Init (the tool's and the runtime's initialisation) leave the useful time, in the trace
    // and in the replay, whose first burst holds both.
    std::vector<Time> early(tasks), ideal_useful(tasks), ideal_startup(tasks);
    for (std::size_t task = 0; task < tasks; ++task) {
        early[task] = std::min(of_task(s.startup.task_useful_before_init, task),
                               s.useful[s.task_first_thread[task]]);
        ideal_useful[task] =
            std::max<Time>(0, s.ideal->task_useful[task] -
                                  of_task(s.startup.task_not_created, task) - early[task]);
        ideal_startup[task] = of_task(s.startup.task_ideal_startup, task) + early[task];
    }
    // What the ideal run after everyone's start-up waits along its critical path.
    const Time run_proper =
        s.ideal->runtime - *std::max_element(ideal_startup.begin(), ideal_startup.end());
    const Time serialization =
        std::max<Time>(0, run_proper - *std::max_element(ideal_useful.begin(), ideal_useful.end()));
    // Shut-down is the time after the last task entered MPI_Finalize: a task that finished before
    // waits for the others, load imbalance (Scalasca's "Wait at Finalize").
    const Time run_end = s.windows.empty() ? s.runtime : s.windows.back().second;
    const Time closing = std::max<Time>(0, run_end - s.startup.finalize_begin);
    for (std::size_t task = 0; task < tasks; ++task) {
        RankBreakdown b;
        b.useful = s.useful[s.task_first_thread[task]] - early[task];
        b.startup = of_task(s.startup.task_startup, task) +
                    std::min(of_task(s.startup.task_shutdown, task), closing) + early[task];
        const Time real_rest = std::max<Time>(0, s.runtime - b.useful - b.startup);
        const Time ideal_rest =
            std::max<Time>(0, s.ideal->runtime - ideal_useful[task] - ideal_startup[task]);
        b.transfer = std::max<Time>(0, real_rest - ideal_rest);
        b.serialization = std::min(serialization, real_rest - b.transfer);
        b.load_imbalance = real_rest - b.transfer - b.serialization;
        out.push_back(b);
    }
    return out;
}

} // namespace popsim::metrics

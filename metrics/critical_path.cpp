#include "metrics/critical_path.hpp"

#include "metrics/dependency_walk.hpp"

#include <numeric>

namespace popsim::metrics {

Time CriticalPath::imbalance() const {
    if (useful.empty()) return 0;
    const Time total = std::accumulate(useful.begin(), useful.end(), Time{0});
    return length - total / static_cast<Time>(useful.size());
}

CriticalPath critical_path(const replay::ReplayProgram& program,
                           const replay::ReplayResult& result) {
    CriticalPath out;
    out.per_task.assign(program.tasks, 0);
    out.useful.assign(program.tasks, 0);
    // A task's computation is its first thread's: its bursts and its waits for the other threads
    // at parallel regions' joins (they computed meanwhile).
    for (std::uint32_t task = 0; task < program.tasks; ++task)
        out.useful[task] = result.threads[program.master_thread(task)].outside_mpi();
    const DependencyWalk walk(program, result);
    walk.back(
        walk.last(), 0,
        [&](std::uint32_t task, Time t) {
            out.per_task[task] += t;
            out.length += t;
        },
        [&] { ++out.jumps; });
    return out;
}

} // namespace popsim::metrics

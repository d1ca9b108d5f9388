#include "metrics/critical_path.hpp"

#include "metrics/dependency_walk.hpp"

#include <numeric>

namespace popsim::metrics {

using replay::ReplayThread;

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
    for (ReplayThread th = 0; th < program.thread_count(); ++th)
        out.useful[program.thread_task[th]] += result.threads[th].useful;
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

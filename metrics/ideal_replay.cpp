#include "metrics/ideal_replay.hpp"

#include "replay/dependency_graph.hpp"
#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"

#include <algorithm>

namespace popsim::metrics {

IdealRun ideal_run(const replay::Trace& trace, const IdealOptions& options, std::vector<std::string>* warnings) {
    const auto program = replay::build_replay_program(trace, options.program);
    if (warnings) warnings->insert(warnings->end(), program.warnings.begin(), program.warnings.end());
    replay::ReplayResult result;
    if (options.method == ReplayMethod::events) {
        replay::network::IdealNetwork ideal;
        result = replay::replay_events(program, ideal, {.timeline = false});
    } else {
        result = replay::replay_longest_path(program, replay::build_dependency_graph(program));
    }
    IdealRun run;
    run.runtime = result.runtime;
    run.max_useful = result.max_useful();
    for (const auto& t : result.tasks) {
        run.task_useful.push_back(t.useful);
        run.task_end.push_back(t.end);
    }
    return run;
}

std::vector<RankBreakdown> rank_breakdown(const TraceSummary& s) {
    std::vector<RankBreakdown> out;
    if (!s.ideal) return out;
    for (std::size_t task = 0; task < s.task_first_thread.size(); ++task) {
        RankBreakdown b;
        b.useful = s.useful[s.task_first_thread[task]];
        const Time ideal_useful = s.ideal->task_useful[task];
        const Time real_mpi = s.runtime - b.useful;
        const Time ideal_mpi = s.ideal->runtime - ideal_useful;
        b.transfer = std::max<Time>(0, real_mpi - ideal_mpi);
        b.serialization = std::max<Time>(0, s.ideal->runtime - s.ideal->max_useful);
        b.load_imbalance = std::max<Time>(0, real_mpi - b.transfer - b.serialization);
        out.push_back(b);
    }
    return out;
}

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The critical path of a replay on the ideal network (docs/metrics.md, "Root causes"): the chain
// of computation and dependencies whose length is the runtime. Found as Scalasca does, backwards
// from the thread that ends last: along its operations, jumping at each wait to the partner it
// waited for (the message's sender, the receive's poster, the collective's last arrival).
//
// Example:
//   auto path = popsim::metrics::critical_path(program, result);
//   path.per_task[3]; // rank 4's computation on the path, in ns
#include "metrics/code_regions.hpp"
#include "metrics/startup.hpp"
#include "metrics/wait_states.hpp"
#include "replay/engine/replay_result.hpp"
#include "replay/program/replay_program.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace popsim::metrics {

struct CriticalPath {
    Time length = 0;            // the sum of the computation on it: the replay's runtime
    std::vector<Time> per_task; // each task's computation on it (its start-up bursts apart)
    std::vector<Time> startup;  // each task's start-up bursts on it (StartupBursts)
    std::vector<Time> useful;   // each task's computation in the replay: its first thread's
                                // bursts and fork/join waits (prv2dim's bursts), start-up apart
    std::uint64_t jumps = 0;    // waits it goes through, from one task to another
    /// The computation on it per (task, code region) (code_regions.hpp; the ideal path's alone).
    std::map<std::pair<std::uint32_t, std::uint64_t>, Time> per_task_region;
    /// The tasks' computation in the replay per code region: their first threads' bursts (the
    /// ideal path's alone).
    std::map<std::uint64_t, Time> region_useful;
    /// Scalasca's critical-path imbalance for the whole program: the path's computation (its
    /// length less the start-up on it) less the tasks' mean computation (the time no balancing of
    /// the same work could save is the mean).
    Time imbalance() const;
    /// The same per code region (Scalasca's critical-path imbalance of a call path): its
    /// computation on the path less the tasks' mean computation in it, largest first. For
    /// programs without OpenMP they add up to imbalance(), to a ns per region.
    std::vector<std::pair<std::uint64_t, Time>> region_imbalance() const;
};

/// `result`: a replay of `program` on the ideal network, with its timeline; `regions`: the code
/// regions its computation is summed in; `startup`: its start-up bursts, kept apart.
CriticalPath critical_path(const replay::ReplayProgram& program, const replay::ReplayResult& result,
                           const CodeRegions& regions, const StartupBursts& startup);

/// A part of a replay thread's timeline on the critical path.
struct PathSpan {
    replay::ReplayThread thread = 0;
    Time begin = 0, end = 0;
    bool computation = true; // a burst; else MPI time: transfer, overhead, a collective's cost
};
/// The critical path of `result`, a replay of `program` on any network with its timeline, as
/// spans of each thread's timeline (in no order). On the ideal network they are computation and
/// add up to the runtime; on others transfers still in flight while the receiver computed lie
/// between threads, on none.
std::vector<PathSpan> critical_path_spans(const replay::ReplayProgram& program,
                                          const replay::ReplayResult& result);

/// The critical path of the traced run, as Scalasca finds it: back from the thread that ends last,
/// through each wait state (`traced`, found in `calls`: wait_states.hpp) to the late partner's
/// entry. Its length is the latest thread end; each task's share is the time the path spends on
/// it (computation and MPI time that is not waiting), also per code region. `useful` is left
/// empty: the imbalance is the ideal path's.
CriticalPath traced_critical_path(const replay::Trace& trace, const replay::ReplayProgram& program,
                                  const CallTimeline& calls, const WaitStates& traced,
                                  const CodeRegions& regions);

} // namespace popsim::metrics

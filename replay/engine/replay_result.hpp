// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a replay produces: per replay thread its simulated end, useful (burst) time, time in OpenMP
// fork/join barriers and MPI time split into waiting for a partner and transfer, plus the
// simulated interval of every operation.
#include "replay/program/replay_program.hpp"
#include "replay/time.hpp"

#include <vector>

namespace popsim::replay {

struct ThreadTimes {
    Time end = 0;       // when the thread finishes its last operation
    Time useful = 0;    // sum of its replayed CPU bursts
    Time fork_join = 0; // in OpenMP fork/join barriers, waiting for the task's other threads
    Time waiting = 0;   // blocked in MPI for a partner (dependencies)
    Time transfer = 0;  // blocked in MPI while its data crosses the network
    Time cpu_wait = 0;  // ready for a burst while its node's CPUs ran other threads
    Time mpi() const { return end - useful - fork_join - cpu_wait; }
    Time outside_mpi() const { return useful + fork_join; } // prv2dim's "burst" time of a task
};

struct ReplayResult {
    Time runtime = 0; // the latest thread end
    std::vector<ThreadTimes> threads;
    std::vector<Time> op_begin; // when the task reached each operation
    std::vector<Time> op_end;   // when it left it
    std::uint64_t events = 0;   // events the engine processed (0 for the longest-path pass)

    /// The largest time outside MPI of a task's first thread (Dimemas' useful time of a task).
    Time max_useful(const ReplayProgram& program) const;
    const ThreadTimes& task(const ReplayProgram& program, std::uint32_t t) const {
        return threads[program.master_thread(t)];
    }
};

} // namespace popsim::replay

#pragma once
// What a replay produces: per task its simulated end, useful (burst) time and MPI time split into
// waiting for a partner and transfer, plus the simulated interval of every operation.
#include "replay/replay_program.hpp"
#include "replay/time.hpp"

#include <vector>

namespace popsim::replay {

struct TaskTimes {
    Time end = 0;      // when the task finishes its last operation
    Time useful = 0;   // sum of its replayed CPU bursts
    Time waiting = 0;  // blocked in MPI for a partner (dependencies)
    Time transfer = 0; // blocked in MPI while its data crosses the network
    Time mpi() const { return end - useful; }
};

struct ReplayResult {
    Time runtime = 0; // the latest task end
    std::vector<TaskTimes> tasks;
    std::vector<Time> op_begin; // when the task reached each operation
    std::vector<Time> op_end;   // when it left it
    std::uint64_t events = 0;   // events the engine processed (0 for the longest-path pass)

    Time max_useful() const;
};

} // namespace popsim::replay

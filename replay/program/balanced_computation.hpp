// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Balanced computation (docs/network-model.md, "Balanced computation"): what the run would take if
// every thread computed the same between two synchronising operations. A thread's segment is its
// computation since its previous collective (an MPI collective, or an OpenMP fork or join among a
// task's threads); the segments that end in one collective are its members' work there, and each
// member that computes in it gets an equal share of their sum. The threads' computation after
// their last collective is shared in the same way, and the segments that end in MPI_Init's barrier
// (start-up) are left as they are.
//
// Example:
//   const auto durations = popsim::replay::balanced_bursts(program, exact, // burst durations, ns
//                                                          [](OpIndex) { return false; });
//   popsim::replay::replay_events(program, model, {.burst_durations = &durations});
#include "replay/program/replay_program.hpp"

#include <functional>

namespace popsim::replay {

/// `durations` (per burst, as ReplayProgram::burst_durations) with each segment's computation
/// replaced by its share; `ends_startup(op)`: whether collective member `op` is the barrier ending
/// MPI_Init. Within a segment, the bursts keep their proportions. Durations are in ns with their
/// fractions (EngineOptions::burst_durations). `part`: per burst, the part of its duration to
/// balance (one region's computation, the rest staying as it is), or nullptr for all of it.
ProgramArray<double> balanced_bursts(const ReplayProgram& program,
                                     const ProgramArray<double>& durations,
                                     const std::function<bool(OpIndex)>& ends_startup,
                                     const ProgramArray<double>* part = nullptr);

} // namespace popsim::replay

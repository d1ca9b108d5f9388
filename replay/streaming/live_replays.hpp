// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Replays on several networks that run while the streaming pass writes their program
// (docs/replay.md, "Replaying the networks while the program is written"): after each block of
// the trace, every replay goes as far as the program written allows, side by side, and what
// every replay has passed is forgotten. So `whatif` holds the program's width, not its length.
//
// Example:
//   LiveReplays live(tasks, {&ideal, &dimemas}, {.timeline = false});
//   ... the streaming pass writes live.program() and calls live.advance() after each block ...
//   std::vector<ReplayResult> results = live.finish(); // as replay_events on each network
#include "replay/engine/engine.hpp"
#include "replay/engine/written_program.hpp"

#include <vector>

namespace popsim::replay {

class LiveReplays {
  public:
    /// Whether a replay on `model` of `tasks` one-thread tasks can run live: not when its nodes'
    /// CPUs are shared, whose scheduler steps threads the program may not have reached yet.
    static bool replays_live(const network::NetworkModel& model, std::uint32_t tasks);

    /// The models must outlive it. `advance_every`: operations written between two advances
    /// (0: 2^16, and 8 per task with more than 8,192 tasks).
    LiveReplays(std::uint32_t tasks, const std::vector<network::NetworkModel*>& models,
                const EngineOptions& options, std::uint64_t advance_every = 0);

    engine::WrittenProgram& program() { return program_; }
    /// Every replay as far as the program written allows, in parallel, then forgets what all
    /// have passed; once enough is written since the last time (a pass over every thread
    /// of every replay, and a parallel loop's start, cost more than a few operations' replay).
    void advance();
    /// Once the program is complete: every replay to its end, their results in the models'
    /// order. Throws ReplayDeadlock.
    std::vector<ReplayResult> finish();

  private:
    engine::WrittenProgram program_;
    std::vector<IncrementalReplay> replays_;
    std::uint64_t advanced_at_ = 0; // program_.written() then
    std::uint64_t every_;           // operations written between advances
};

} // namespace popsim::replay

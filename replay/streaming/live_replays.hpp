// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Replays on several networks that run while the streaming pass writes their program
// (docs/replay.md, "Replaying the networks while the program is written"): once enough is
// written, what is written goes to the replays, which go as far as it allows, side by side and
// beside the writer, and what every replay has passed is forgotten. So `whatif` holds the
// program's width, not its length, and its reader does not wait for the replays.
//
// Example:
//   LiveReplays live(tasks, {&ideal, &dimemas}, {.timeline = false});
//   ... the recorder writes live.program() and calls live.advance() after each call written ...
//   std::vector<ReplayResult> results = live.finish(); // as replay_events on each network
#include "replay/cache_line.hpp"
#include "replay/engine/engine.hpp"
#include "replay/engine/write_batch.hpp"
#include "replay/engine/written_program.hpp"

#include <oneapi/tbb/task_group.h>
#include <vector>

namespace popsim::replay {

class LiveReplays {
  public:
    /// Whether a replay on `model` of `tasks` one-thread tasks can run live: not when its nodes'
    /// CPUs are shared, whose scheduler steps threads the program may not have reached yet.
    static bool replays_live(const network::NetworkModel& model, std::uint32_t tasks);

    /// The models must outlive it. `advance_every`: operations written between two hand-overs
    /// (0: 2^16, and 8 per task with more than 8,192 tasks; 1: after every call written).
    LiveReplays(std::uint32_t tasks, const std::vector<network::NetworkModel*>& models,
                const EngineOptions& options, std::uint64_t advance_every = 0);
    /// Waits for the replays' work under way (the writer may have stopped on an error).
    ~LiveReplays();
    LiveReplays(const LiveReplays&) = delete;
    LiveReplays& operator=(const LiveReplays&) = delete;

    /// Where the program is written.
    engine::WriteBatch& program() { return batch_; }
    /// Once enough is written since the last hand-over (a pass over every thread of every
    /// replay, and starting them, cost more than a few operations' replay), hands the batch
    /// over: waits for the replays' work under way, if any, and starts it again in the
    /// background on the batch: forget what every replay has passed, write the batch into their
    /// program, every replay as far as the program allows, in parallel. May be called after any
    /// call written. Rethrows what the replays threw.
    void advance();
    /// Once the program is complete: every replay to its end, their results in the models'
    /// order. Throws ReplayDeadlock.
    std::vector<ReplayResult> finish();

  private:
    /// Forgets what every replay has passed, then writes `batch` into the program (while no
    /// replay runs).
    void take(engine::WriteBatch& batch);

    // What the replays read, written and forgotten only by their work (or while none runs).
    engine::WrittenProgram program_;
    // Written by the streaming replay's stage while the replays read the program: other lines.
    alignas(k_cache_line) engine::WriteBatch batch_;  // written since the last hand-over
    alignas(k_cache_line) engine::WriteBatch handed_; // the batch the work under way takes first
    std::vector<IncrementalReplay> replays_;
    std::uint64_t every_;          // operations written between hand-overs
    oneapi::tbb::task_group work_; // the replays' work under way
};

} // namespace popsim::replay

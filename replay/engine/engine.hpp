// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The discrete-event replay engine: walks every task's operations in simulated time on a network
// model. Deterministic (events ordered by time then scheduling order).
//
// Example:
//   auto program = popsim::replay::build_replay_program(trace);
//   popsim::replay::network::IdealNetwork ideal;
//   popsim::replay::ReplayResult r = popsim::replay::replay_events(program, ideal);
//   r.runtime;  // the runtime on the ideal network, ns
#include "replay/engine/replay_result.hpp"
#include "replay/network/network_model.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace popsim::replay {

struct EngineOptions {
    /// Keep every operation's simulated interval (ReplayResult::op_begin/op_end), e.g. to write the
    /// simulated trace; per-task times are always kept.
    bool timeline = true;
    /// Called now and then with the number of operations finished since the last call (for
    /// progress bars: a program has ReplayProgram::op_count() of them); may be empty.
    std::function<void(std::uint64_t)> on_progress = {};
    /// Per burst (as ReplayProgram::burst_durations), the durations to replay instead of the
    /// program's, in ns with their fractions: a code what-if's, so that several replay one
    /// program side by side.
    const ProgramArray<double>* burst_durations = nullptr;
};

/// Replays `program` on `model`. Throws ReplayDeadlock when tasks wait on each other forever
/// (the trace's dependencies form a cycle), naming the blocked tasks and calls.
ReplayResult replay_events(const ReplayProgram& program, network::NetworkModel& model,
                           const EngineOptions& options = {});

namespace engine {
class WrittenProgram;
}

/// A replay of a program while it is written (engine/written_program.hpp): it goes as far as
/// the program written allows each time it is asked, and its result is replay_events' on the
/// whole program. The program must outlive it; the engine keeps no timeline.
class IncrementalReplay {
  public:
    IncrementalReplay(const engine::WrittenProgram& program, network::NetworkModel& model,
                      const EngineOptions& options = {});
    ~IncrementalReplay();
    IncrementalReplay(IncrementalReplay&&) noexcept;
    IncrementalReplay& operator=(IncrementalReplay&&) noexcept;

    /// Replays while the program written has what it needs; true once nothing is left to do.
    bool advance();
    /// After advance() returned true with the program complete. Throws ReplayDeadlock.
    ReplayResult finish();
    /// Where thread t is: the operations before it are replayed.
    OpIndex position(ReplayThread t) const;
    /// The messages below it are over.
    MessageIndex first_message_under_way() const;
    /// The collectives below it are over.
    CollectiveIndex first_collective_under_way() const;

    struct Impl;

  private:
    std::unique_ptr<Impl> impl_;
};

class ReplayDeadlock : public std::runtime_error {
  public:
    ReplayDeadlock(const std::string& what, std::vector<CollectiveIndex> collectives,
                   std::vector<MessageIndex> rendezvous)
        : std::runtime_error(what), blocked_collectives(std::move(collectives)),
          blocked_rendezvous(std::move(rendezvous)) {}
    /// The (MPI) collectives some blocked task waits in.
    std::vector<CollectiveIndex> blocked_collectives;
    /// The messages of the blocking rendezvous sends some task waits in.
    std::vector<MessageIndex> blocked_rendezvous;
    /// The same deadlock, its message prefixed with the trace's path.
    ReplayDeadlock in(const std::string& path) const {
        return ReplayDeadlock(path + ": " + what(), blocked_collectives, blocked_rendezvous);
    }
};

/// Describes where each task is blocked (`position`: its current operation, `reached_at`: since
/// when, per task), for deadlock reports.
std::string describe_blocked_tasks(const ReplayProgram& program,
                                   const std::vector<OpIndex>& position,
                                   const std::vector<Time>& reached_at);

/// The deadlock of tasks blocked at `position` (per replay thread), as thrown by both replays.
ReplayDeadlock deadlock(const ReplayProgram& program, const std::vector<OpIndex>& position,
                        const std::vector<Time>& reached_at);

} // namespace popsim::replay

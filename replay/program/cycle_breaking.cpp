// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/cycle_breaking.hpp"

#include <fmt/format.h>
#include <optional>

namespace popsim::replay {

LeftEarly left_early_in(const Trace& trace, const ReplayProgram& program) {
    return [&trace, &program](CollectiveIndex c, std::string* description) {
        return left_before_last_arrived(trace, program, c, description);
    };
}

ReplayResult replay_breaking_cycles(const LeftEarly& left_early, const ReplayProgram& program,
                                    const std::function<ReplayResult(const ReplayProgram&)>& replay,
                                    WarningLog* warnings) {
    std::optional<ReplayProgram> relaxed;
    const ReplayProgram* current = &program;
    for (;;) {
        try {
            return replay(*current);
        } catch (const ReplayDeadlock& e) {
            std::vector<std::pair<CollectiveIndex, std::string>> to_relax;
            std::string description;
            for (const auto c : e.blocked_collectives) {
                const auto& coll = current->collectives[c];
                // (The relaxed program differs from `program` in its flows alone.)
                if (left_early && coll.flow == CollectiveFlow::all_members &&
                    data_flow(coll) != CollectiveFlow::all_members && left_early(c, &description))
                    to_relax.emplace_back(c, description);
            }
            if (to_relax.empty() && e.blocked_rendezvous.empty()) throw;
            if (!relaxed) current = &relaxed.emplace(program);
            if (to_relax.empty()) {
                for (const auto m : e.blocked_rendezvous) {
                    relaxed->messages[m].rendezvous = false;
                    if (!warnings) continue;
                    const auto& msg = relaxed->messages[m];
                    warnings->add("rendezvous-replayed-eager",
                                  "blocking sends of at least the eager limit close a dependency "
                                  "cycle (the program relied on MPI buffering them); they replay "
                                  "as eager sends",
                                  fmt::format("task {} to task {}, {} bytes (record {})",
                                              relaxed->thread_task[msg.sender] + 1,
                                              relaxed->thread_task[msg.receiver] + 1, msg.bytes,
                                              msg.record + 1));
                }
                continue;
            }
            for (const auto& [c, text] : to_relax) {
                relaxed->collectives[c].flow = data_flow(relaxed->collectives[c]);
                if (warnings) {
                    warnings->add("collectives-replayed-as-data-flows",
                                  "collectives close a dependency cycle when every member waits "
                                  "for the last, as Dimemas replays them (their members left "
                                  "early in the trace); they replay as their data flows instead "
                                  "(--collectives mpi does so for all)",
                                  text);
                }
            }
        }
    }
}

} // namespace popsim::replay

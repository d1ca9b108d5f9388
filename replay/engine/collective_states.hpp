// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the event engine knows of each collective while it is under way: from when it is made
// known (engine.cpp, know_collective) until its last member has left it. Kept for a window of
// collective numbers, the oldest still under way to the newest known, so that a replay of a
// program written while the trace is read (engine/written_program.hpp) holds the collectives
// of a few steps, not of the whole run.
#include "replay/engine/state_window.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/time.hpp"

#include <cstdint>

namespace popsim::replay::engine {

struct CollectiveState {
    static constexpr Time k_unset = -1;
    Time latest = 0;                      // the latest arrival (or a member's data at its root)
    Time root_arrival = k_unset;          // rooted data-flow collectives: when the root arrived
    std::uint32_t arrived = 0;            // members arrived
    std::uint32_t left = 0;               // members that left it
    std::uint32_t undelivered = 0;        // asynchronous networks: members' data on its way
    std::uint32_t members = 0;            // its member count, once known
    std::uint32_t resuming_last = k_none; // the task that resumes last (engine.cpp, ResumingLast)
    bool known = false;
    static constexpr const char* k_name = "collective";
};

class CollectiveStates : public StateWindow<CollectiveState> {
  public:
    /// Forgets the collectives over at the window's front (every member left). Called between
    /// events, never while a handler may still read a state.
    void trim() {
        forget_front_while([](const CollectiveState& s) { return s.known && s.left == s.members; });
    }
};

} // namespace popsim::replay::engine

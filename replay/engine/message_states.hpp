// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the event engine knows of each message while it is under way: from the first of its three
// operations (send, receive post, receive wait) to begin until the last has ended, in any order (a
// receive re-paired by Extrae may be posted after its wait). Kept for a window of message numbers,
// the oldest still under way to the newest touched, not for every message: an array of every
// message held 34 MB per replay of the 2 M messages of the 1.1 GB bench traces, and `whatif`
// replays two networks side by side. In a program where a message's send, post or wait never ends
// (a replay that stops short, or a Dimemas trace without a post) the window keeps every later
// message, as the arrays did (24 bytes a message instead of 17).
#include "replay/engine/state_window.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/time.hpp"

#include <cstdint>

namespace popsim::replay::engine {

struct MessageState {
    static constexpr Time k_unset = -1;
    Time transfer_start = k_unset;   // when its data started moving
    Time arrival = k_unset;          // when its data arrived
    bool issued : 1 = false;         // the sender reached the send
    bool posted : 1 = false;         // the receiver posted the receive
    bool sender_blocked : 1 = false; // a rendezvous sender waits for the post
    std::uint8_t ends_left : 2 = 3;  // of its send, post and wait
    static constexpr const char* k_name = "message";
};

class MessageStates : public StateWindow<MessageState> {
  public:
    /// The send, the post or the wait of message `m` is over: once all are, its state is
    /// forgotten.
    void ended(MessageIndex m) {
        --(*this)[m].ends_left;
        forget_front_while([](const MessageState& s) { return s.ends_left == 0; });
    }
};

} // namespace popsim::replay::engine

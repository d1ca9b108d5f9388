// SPDX-License-Identifier: BSD-3-Clause
#include "replay/engine/message_states.hpp"

#include <doctest/doctest.h>
#include <stdexcept>

using popsim::replay::engine::MessageStates;

TEST_CASE("a message's state lasts until its send, post and wait all ended, in any order") {
    MessageStates states;
    states[2].arrival = 7; // touching message 2 opens the window from message 0
    states[0].issued = true;
    for (int k = 0; k < 3; ++k) states.ended(1); // message 1 is over, but 0 is not: both kept
    CHECK(states.at(0).issued);
    CHECK(states.at(1).ends_left == 0);
    states.ended(0);            // its wait
    states.ended(0);            // its send
    CHECK(states.at(0).issued); // its post still to come
    states.ended(0);
    CHECK_THROWS_AS(states.at(0), std::logic_error); // 0 and 1 forgotten
    CHECK_THROWS_AS(states.at(1), std::logic_error);
    CHECK(states.at(2).arrival == 7);
    CHECK_THROWS_AS(states[1], std::logic_error);
    CHECK_THROWS_AS(states.at(3), std::logic_error); // never touched
}

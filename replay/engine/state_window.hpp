// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The engine's states of numbered things under way (messages, collectives), kept for a window
// of their numbers, the oldest still under way to the newest touched, not for all of them: the
// replay holds what is under way, not what the program holds (message_states.hpp,
// collective_states.hpp).
#include "replay/ring.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace popsim::replay::engine {

/// `State::k_name` names what it is the state of, for errors.
template <class State> class StateWindow {
  public:
    /// State `i`, made when first asked for; not once forgotten.
    State& operator[](std::uint32_t i) {
        if (i < first_) fail("asked for after it ended");
        while (i - first_ >= window_.size()) window_.emplace_back();
        return window_[i - first_];
    }
    /// State `i`, which must be under way.
    const State& at(std::uint32_t i) const {
        if (i < first_ || i - first_ >= window_.size()) fail("asked for while it is not under way");
        return window_[i - first_];
    }
    /// The lowest number whose state may still be asked for.
    std::uint32_t first() const { return first_; }

  protected:
    /// Forgets the states at the window's front while `over` says so.
    template <class Over> void forget_front_while(Over over) {
        for (; !window_.empty() && over(window_.front()); ++first_) window_.pop_front();
    }

  private:
    /// Out of line, so that the engine's every access stays small enough to inline.
    [[noreturn, gnu::cold, gnu::noinline]] static void fail(const char* what) {
        throw std::logic_error(std::string("the state of a ") + State::k_name + " " + what);
    }

    Ring<State> window_;
    std::uint32_t first_ = 0; // the number of window_.front()
};

} // namespace popsim::replay::engine

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The future-event list, ordered by (time, sequence number), so events at the same time run in
// the order they were scheduled and every replay is deterministic.
// Events for the current time (on the ideal network most of them: a message arrives the moment
// it is sent, a collective ends at its last arrival) wait in a FIFO; later ones in a 4-ary heap
// (Boost.Heap), whose four children of a node lie side by side: 3-8 % faster than a binary heap
// on the Dimemas network (bench/replay_bench.cpp).
// Cost: O(1) for current-time events, O(log n) for the others; 24 bytes per pending event.
#include "replay/time.hpp"

#include <boost/heap/d_ary_heap.hpp>
#include <compare>
#include <cstdint>
#include <vector>

namespace popsim::replay::engine {

struct Event {
    Time time = 0;
    std::uint64_t seq = 0;
    std::uint32_t thread = 0;                       // the replay thread to run
    auto operator<=>(const Event&) const = default; // member order is the order
};
static_assert(sizeof(Event) <= 24);

class EventQueue {
  public:
    void push(Time time, std::uint32_t thread) {
        const Event e{time, next_seq_++, thread};
        if (time == now_)
            current_.push_back(e); // after every queued event of this time: the FIFO keeps order
        else
            later_.push(e);
    }
    bool empty() const { return next_current_ == current_.size() && later_.empty(); }
    /// The earliest event, left in the queue.
    const Event& top() const { return fifo_first() ? current_[next_current_] : later_.top(); }
    /// The earliest event; events are never pushed before the time of the last one popped.
    Event pop() {
        if (fifo_first()) return current_[next_current_++];
        const Event e = later_.top();
        later_.pop();
        if (e.time != now_) { // the FIFO is empty: its events came before any later one
            now_ = e.time;
            current_.clear();
            next_current_ = 0;
        }
        return e;
    }

  private:
    /// Whether the earliest event is the FIFO's (a heap event of the current time pushed before
    /// that time was reached goes first).
    bool fifo_first() const {
        return next_current_ < current_.size() &&
               (later_.empty() || current_[next_current_] < later_.top());
    }

    Time now_ = 0;
    std::vector<Event> current_; // events at now_, in sequence order, from next_current_ on
    std::size_t next_current_ = 0;
    // boost::heap keeps the greatest on top: std::greater makes it the earliest.
    boost::heap::d_ary_heap<Event, boost::heap::arity<4>, boost::heap::compare<std::greater<>>>
        later_;
    std::uint64_t next_seq_ = 0;
};

} // namespace popsim::replay::engine

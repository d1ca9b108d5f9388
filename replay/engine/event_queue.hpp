#pragma once
// The future-event list: a binary heap ordered by (time, sequence number), so events at the same
// time run in the order they were scheduled and every replay is deterministic.
// Cost: O(log n) insert and remove, 24 bytes per pending event.
#include "replay/time.hpp"

#include <compare>
#include <cstdint>
#include <queue>
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
    void push(Time time, std::uint32_t thread) { heap_.push(Event{time, next_seq_++, thread}); }
    bool empty() const { return heap_.empty(); }
    Event pop() {
        Event e = heap_.top();
        heap_.pop();
        return e;
    }

  private:
    std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
    std::uint64_t next_seq_ = 0;
};

} // namespace popsim::replay::engine

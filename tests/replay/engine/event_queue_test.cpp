// SPDX-License-Identifier: BSD-3-Clause
// The event queue pops by (time, scheduling order), whichever of its two stores holds an event.
#include "replay/engine/event_queue.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <random>
#include <vector>

using popsim::replay::engine::EventQueue;

namespace {
std::vector<std::uint32_t> pop_all(EventQueue& q) {
    std::vector<std::uint32_t> threads;
    while (!q.empty()) threads.push_back(q.pop().thread);
    return threads;
}
} // namespace

TEST_CASE("events at the start time run in the order they were scheduled") {
    EventQueue q;
    for (std::uint32_t t = 0; t < 4; ++t) q.push(0, t);
    CHECK(pop_all(q) == std::vector<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("an event scheduled for a time before that time is reached runs first at that time") {
    EventQueue q;
    q.push(0, 0);
    q.push(10, 1); // scheduled before time 10 is reached
    CHECK(q.pop().thread == 0);
    q.push(5, 2);
    CHECK(q.pop().thread == 2); // time 5
    q.push(5, 3);               // the current time: after everything else at 5, before 10
    q.push(10, 4);              // at 10, after event 1 that was scheduled earlier
    CHECK(q.pop().thread == 3);
    const auto at_ten = q.pop();
    CHECK(at_ten.time == 10);
    CHECK(at_ten.thread == 1);
    q.push(10, 5); // the current time again: after 4, scheduled before it
    CHECK(pop_all(q) == std::vector<std::uint32_t>{4, 5});
}

TEST_CASE("events interleave by time whatever the order they were pushed in") {
    EventQueue q;
    q.push(0, 9);
    CHECK(q.pop().thread == 9);
    for (std::uint32_t t = 0; t < 6; ++t) q.push(static_cast<popsim::Time>((t * 7) % 5), t);
    // times: 0 -> 0, 1 -> 2, 2 -> 4, 3 -> 1, 4 -> 3, 5 -> 0
    CHECK(pop_all(q) == std::vector<std::uint32_t>{0, 5, 3, 1, 4, 2});
}

TEST_CASE("pushes and pops mixed at random give the order of (time, scheduling order)") {
    // The reference: every pending event with its scheduling number, the least popped each time.
    struct Pending {
        popsim::Time time;
        std::uint64_t seq;
        std::uint32_t thread;
    };
    EventQueue q;
    std::vector<Pending> reference;
    std::mt19937_64 random(36);
    std::uint64_t seq = 0;
    popsim::Time now = 0;
    // 20,000 rounds of pushes (two thirds) and pops, then pops until the queue is empty.
    for (int round = 0; round < 20000 || !reference.empty(); ++round) {
        if (round < 20000 && (reference.empty() || random() % 3 != 0)) {
            // Times from now on, near (many equal) and far (up to 2^40 ahead: any of a time's
            // low 40 bits may differ, and 20,000 of them stay far from 2^63).
            const popsim::Time ahead = static_cast<popsim::Time>(
                random() % 2 == 0 ? random() % 4 : random() >> (random() % 40 + 24));
            const auto thread = static_cast<std::uint32_t>(round);
            q.push(now + ahead, thread);
            reference.push_back({now + ahead, seq++, thread});
            continue;
        }
        const auto least =
            std::min_element(reference.begin(), reference.end(), [](auto& a, auto& b) {
                return a.time != b.time ? a.time < b.time : a.seq < b.seq;
            });
        REQUIRE(q.top().thread == least->thread);
        const auto e = q.pop();
        CHECK(e.time == least->time);
        CHECK(e.thread == least->thread);
        now = e.time;
        reference.erase(least);
    }
    CHECK(q.empty());
}

// SPDX-License-Identifier: BSD-3-Clause
// The links of one kind in Dimemas' network: counts, holders in the order they took them, queues.
#include "replay/network/link_table.hpp"

#include <doctest/doctest.h>
#include <vector>

using popsim::replay::network::LinkTable;
using Queue = LinkTable::Queue;

namespace {
std::vector<std::uint32_t> holders_of(LinkTable& links, std::uint32_t owner) {
    const auto h = links.holders(owner);
    return {h.begin(), h.end()};
}
} // namespace

TEST_CASE("link table: an owner's links are taken until none is free, holders in order") {
    LinkTable links(3);
    CHECK(links.take(7, 10));
    CHECK(links.take(7, 11));
    CHECK(links.take(7, 12));
    CHECK_FALSE(links.take(7, 13));
    CHECK(links.take(2, 20)); // another owner's are its own
    CHECK(holders_of(links, 7) == std::vector<std::uint32_t>{10, 11, 12});
    links.give_back(7, 11);
    CHECK(holders_of(links, 7) == std::vector<std::uint32_t>{10, 12});
    CHECK(links.take(7, 13));
    CHECK(holders_of(links, 7) == std::vector<std::uint32_t>{10, 12, 13});
    CHECK(holders_of(links, 2) == std::vector<std::uint32_t>{20});
    CHECK(holders_of(links, 100'000).empty()); // made as first used
}

TEST_CASE("link table: unlimited links are always free and keep no holders") {
    LinkTable links(0);
    for (std::uint32_t t = 0; t < 100; ++t) CHECK(links.take(5, t));
    links.give_back(5, 3);
    CHECK(links.holders(5).empty());
}

TEST_CASE("link table: each queue is first come, first served, the two kept apart") {
    LinkTable links(1);
    std::uint32_t next = 99;
    CHECK_FALSE(links.pop_waiting(4, Queue::first, next));
    links.waiting(4).push_back(1);
    links.waiting(4, Queue::receiving).push_back(2);
    links.waiting(4).push_back(3);
    links.waiting(9).push_back(4); // made after owner 4's: 4's queues stay where they were
    links.waiting(4).push_front(5);
    CHECK(links.pop_waiting(4, Queue::first, next));
    CHECK(next == 5);
    CHECK(links.pop_waiting(4, Queue::first, next));
    CHECK(next == 1);
    CHECK(links.pop_waiting(4, Queue::first, next));
    CHECK(next == 3);
    CHECK_FALSE(links.pop_waiting(4, Queue::first, next));
    CHECK(links.pop_waiting(4, Queue::receiving, next));
    CHECK(next == 2);
    CHECK(links.pop_waiting(9, Queue::first, next));
    CHECK(next == 4);
}

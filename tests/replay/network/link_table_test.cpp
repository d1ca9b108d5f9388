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
    links.wait_last(4, Queue::first, 1);
    links.wait_last(4, Queue::receiving, 2);
    links.wait_last(4, Queue::first, 3);
    links.wait_last(9, Queue::first, 4);
    links.wait_first(4, Queue::first, 5);
    const auto drain = [&](std::uint32_t owner, Queue queue) {
        std::vector<std::uint32_t> order;
        while (links.pop_waiting(owner, queue, next)) order.push_back(next);
        return order;
    };
    CHECK(drain(4, Queue::first) == std::vector<std::uint32_t>{5, 1, 3});
    CHECK(drain(4, Queue::receiving) == std::vector<std::uint32_t>{2});
    CHECK(drain(9, Queue::first) == std::vector<std::uint32_t>{4});
    links.wait_last(4, Queue::first, 1); // emptied queues take transfers again
    CHECK(drain(4, Queue::first) == std::vector<std::uint32_t>{1});
}

TEST_CASE("link table: a transfer leaves its queue from anywhere, the others keep their order") {
    LinkTable links(1);
    for (const std::uint32_t t : {10, 11, 12, 13}) links.wait_last(0, Queue::first, t);
    links.stop_waiting(0, Queue::first, 10); // the first
    links.stop_waiting(0, Queue::first, 12); // one inside
    links.stop_waiting(0, Queue::first, 13); // the last
    links.wait_last(0, Queue::first, 14);
    std::vector<std::uint32_t> order;
    for (std::uint32_t next = 0; links.pop_waiting(0, Queue::first, next);) order.push_back(next);
    CHECK(order == std::vector<std::uint32_t>{11, 14});
}

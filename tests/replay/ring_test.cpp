// SPDX-License-Identifier: BSD-3-Clause
#include "replay/ring.hpp"

#include <doctest/doctest.h>
#include <vector>

using popsim::replay::Ring;

TEST_CASE("a ring inserts anywhere, growing when full, also when its elements wrap around") {
    Ring<int> ring;
    for (int v : {1, 2, 3, 4}) ring.push_back(v); // full at its first capacity, 4
    ring.pop_front();
    ring.push_back(5);    // wraps around the end of its block
    ring.insert_at(1, 9); // full: grows first
    ring.insert_at(0, 0);
    ring.insert_at(ring.size(), 6);
    CHECK(std::vector<int>(ring.begin(), ring.end()) == std::vector<int>{0, 2, 9, 3, 4, 5, 6});
}

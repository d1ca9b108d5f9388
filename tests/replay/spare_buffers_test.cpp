// SPDX-License-Identifier: BSD-3-Clause
// Spare buffers come back the most recently given first.
#include "replay/spare_buffers.hpp"

#include <doctest/doctest.h>
#include <memory>

using popsim::replay::SpareBuffers;

TEST_CASE("spare buffers are handed out the last given back first, then none") {
    SpareBuffers<std::unique_ptr<int>> spares;
    std::unique_ptr<int> buffer;
    CHECK_FALSE(spares.try_pop(buffer));
    spares.push(std::make_unique<int>(1));
    spares.push(std::make_unique<int>(2));
    REQUIRE(spares.try_pop(buffer));
    CHECK(*buffer == 2);
    spares.push(std::make_unique<int>(3));
    REQUIRE(spares.try_pop(buffer));
    CHECK(*buffer == 3);
    REQUIRE(spares.try_pop(buffer));
    CHECK(*buffer == 1);
    CHECK_FALSE(spares.try_pop(buffer));
}

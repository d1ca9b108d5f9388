// SPDX-License-Identifier: BSD-3-Clause
#include "replay/column.hpp"

#include <cstdint>
#include <doctest/doctest.h>

using popsim::replay::Column;

namespace {

std::uint64_t value_at(std::size_t i) {
    return i * 7 + 3;
}

/// A column past the growing chunks (64 << 0 .. 64 << 10 elements, 131008 in all) into several
/// chunks of 65536 elements.
Column<std::uint64_t> filled_column(std::size_t n) {
    Column<std::uint64_t> c;
    for (std::size_t i = 0; i < n; ++i) c.push_back(value_at(i));
    return c;
}

} // namespace

TEST_CASE("a column reads back what was pushed, in every chunk") {
    const std::size_t n = 131008 + 3 * 65536 + 5;
    const auto c = filled_column(n);
    REQUIRE(c.size() == n);
    for (std::size_t i :
         {0ul, 63ul, 64ul, 191ul, 192ul, 131007ul, 131008ul, 196543ul, 196544ul, n - 1})
        CHECK(c[i] == value_at(i));
    std::size_t i = 0, wrong = 0;
    for (const auto v : c) wrong += v != value_at(i++);
    CHECK(i == n);
    CHECK(wrong == 0);
}

TEST_CASE("a column reader gives the column's values however it moves between chunks") {
    const std::size_t n = 131008 + 2 * 65536 + 17;
    const auto c = filled_column(n);
    Column<std::uint64_t>::Reader reader(c);
    // Forward across every chunk boundary, back across them, and jumps far in both directions.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += reader[i] != value_at(i);
    for (std::size_t i = n; i-- > 0;) wrong += reader[i] != value_at(i);
    CHECK(wrong == 0);
    for (std::size_t i : {n - 1, 0ul, 131008ul, 131007ul, 64ul, 63ul, 196544ul, 100ul, n - 2})
        CHECK(reader[i] == value_at(i));
}

TEST_CASE("a column with small chunks is drained in order, each chunk given back once") {
    // Chunks of 8, 16, 32, then 32 elements: 8 + 16 + 32 + 32 + 32 + 5 = 125.
    Column<std::uint64_t, 3, 5> c;
    const std::size_t n = 125;
    for (std::size_t i = 0; i < n; ++i) c.push_back(value_at(i));
    for (std::size_t i : {0ul, 7ul, 8ul, 23ul, 24ul, 55ul, 56ul, 87ul, 88ul, 124ul})
        CHECK(c[i] == value_at(i));
    std::size_t visited = 0, wrong = 0, freed = 0, gives = 0;
    c.drain(
        [&](std::size_t i, std::uint64_t v) {
            wrong += i != visited || v != value_at(i);
            ++visited;
        },
        [&](std::size_t bytes) {
            freed += bytes;
            ++gives;
        });
    CHECK(visited == n);
    CHECK(wrong == 0);
    CHECK(gives == 6);
    CHECK(freed == (8 + 16 + 32 * 4) * sizeof(std::uint64_t));
    CHECK(c.empty());
    c.push_back(7); // usable again
    CHECK(c[0] == 7);
}

TEST_CASE("a column moved from is empty and grows again on its own chunks") {
    Column<std::uint64_t, 3, 5> from;
    for (std::size_t i = 0; i < 20; ++i) from.push_back(value_at(i)); // into the second chunk
    Column<std::uint64_t, 3, 5> to(std::move(from));
    CHECK(from.empty());
    from.push_back(1); // must not write into the chunk `to` took
    to.push_back(value_at(20));
    CHECK(from.size() == 1);
    CHECK(from[0] == 1);
    REQUIRE(to.size() == 21);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < 21; ++i) wrong += to[i] != value_at(i);
    CHECK(wrong == 0);
    to = std::move(from);
    CHECK(to.size() == 1);
    CHECK(to[0] == 1);
    CHECK(from.empty());
}

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/field_scanner.hpp"

#include <doctest/doctest.h>

using popsim::replay::ParseError;
using popsim::replay::detail::FieldScanner;

TEST_CASE("field scanner: 64-bit fields up to their largest value, leading zeros, and overflow") {
    FieldScanner in("18446744073709551615:0000000000000000000000042:9:1844674407370955161",
                    "test record");
    CHECK(in.next_uint("max") == 18'446'744'073'709'551'615ULL); // 2^64 - 1: 20 digits
    CHECK(in.next_uint("zeros") == 42);                          // 25 digits, most of them zeros
    CHECK(in.next_uint("one digit") == 9);
    CHECK(in.next_uint("19 digits") == 1'844'674'407'370'955'161ULL);
    CHECK(in.at_end());

    FieldScanner over("18446744073709551616", "test record"); // 2^64
    CHECK_THROWS_WITH_AS(over.next_uint("value"),
                         "test record field 1 (value) does not fit in 64 bits", ParseError);
    FieldScanner far_over("99999999999999999999999", "test record");
    CHECK_THROWS_AS(far_over.next_uint("value"), ParseError);
}

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/field_scanner.hpp"

#include <charconv>
#include <doctest/doctest.h>
#include <optional>
#include <random>
#include <string>

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

namespace {

/// What a field must read as, worked out with the standard library alone: the text up to the
/// next ':' (or the end) is a number when it is all digits and std::from_chars takes it whole.
std::optional<std::uint64_t> expected_field(std::string_view rest) {
    const std::string_view field = rest.substr(0, rest.find(':'));
    if (field.empty() || field.find_first_not_of("0123456789") != std::string_view::npos) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (error != std::errc() || end != field.data() + field.size()) return std::nullopt;
    return value;
}

} // namespace

TEST_CASE("field scanner: random fields of 0 to 24 digits read as std::from_chars reads them") {
    // Lengths on both sides of 19 digits (the most read unchecked) and of 64 bits; the characters
    // next to '0' and '9' and bytes above 0x7F end a field where no digit may be read.
    constexpr std::string_view k_not_digits = "/:;\xFA\xFF\x80 -";
    std::mt19937_64 random(37);
    for (int record = 0; record < 20000; ++record) {
        std::string text;
        const int fields = 1 + static_cast<int>(random() % 6);
        for (int f = 0; f < fields; ++f) {
            if (f > 0) text += ':';
            const int digits = static_cast<int>(random() % 25);
            for (int d = 0; d < digits; ++d) text += static_cast<char>('0' + random() % 10);
            if (random() % 8 == 0) text += k_not_digits[random() % k_not_digits.size()];
        }
        FieldScanner in(text, "test record");
        std::size_t at = 0;
        for (int f = 0; f < fields && at <= text.size(); ++f) {
            const std::optional<std::uint64_t> expected = expected_field(text.substr(at));
            INFO("record '", text, "', field ", f + 1);
            if (!expected) {
                CHECK_THROWS_AS(in.next_uint("value"), ParseError);
                break;
            }
            CHECK(in.next_uint("value") == *expected);
            const std::size_t colon = text.find(':', at);
            at = colon == std::string::npos ? text.size() : colon + 1;
            CHECK(in.at_end() == (at >= text.size()));
        }
    }
}

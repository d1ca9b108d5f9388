// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fast scanner over ':'-separated decimal fields, the building block of every Paraver line
// parser. No sscanf or streams: the reader's throughput depends on this loop.
#include "replay/input/parse_error.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <string_view>

namespace popsim::replay::detail {

class FieldScanner {
  public:
    FieldScanner(std::string_view text, const char* record_kind)
        : text_(text), kind_(record_kind) {}

    bool at_end() const { return pos_ >= text_.size(); }
    unsigned field_number() const { return field_; }

    /// Reads the next unsigned decimal field and the separator after it.
    std::uint64_t next_uint(const char* what) {
        ++field_;
        // The position in a local: stored back each digit, as a member must be (the text's
        // characters may alias it), it cost a third of the parsing's instructions.
        const char* const text = text_.data();
        const std::size_t size = text_.size(), start = pos_;
        std::size_t pos = start;
        std::uint64_t value = 0;
        // 19 digits cannot overflow 64 bits: only the digits after them are checked, out of the
        // way (the fields of a trace are read at hundreds of MB/s).
        const std::size_t unchecked_end = std::min(size, start + 19);
        for (; pos < unchecked_end; ++pos) {
            const std::uint64_t digit = static_cast<unsigned char>(text[pos]) - '0';
            if (digit > 9) break;
            value = value * 10 + digit;
        }
        if (pos == start + 19 && pos < size) [[unlikely]]
            value = more_digits(pos, value, what);
        if (pos == start || (pos < size && text[pos] != ':')) bad_field(start, what);
        pos_ = pos < size ? pos + 1 : pos; // past the ':'
        return value;
    }

    /// Skips a field whatever it holds (e.g. a signed "-1").
    void skip_field() {
        ++field_;
        const std::size_t colon = text_.find(':', pos_);
        pos_ = colon == std::string_view::npos ? text_.size() : colon + 1;
    }

    std::uint32_t next_u32(const char* what) {
        const std::uint64_t v = next_uint(what);
        if (v > std::numeric_limits<std::uint32_t>::max()) {
            throw ParseError(
                fmt::format("{} field {} ({}) is too large: {}", kind_, field_, what, v));
        }
        return static_cast<std::uint32_t>(v);
    }

    /// The digits after the first 19 of a field (leading zeros, or one too many), each checked
    /// for overflow; `pos` moves past them.
    std::uint64_t more_digits(std::size_t& pos, std::uint64_t value, const char* what) const {
        for (; pos < text_.size(); ++pos) {
            const unsigned digit = static_cast<unsigned char>(text_[pos]) - '0';
            if (digit > 9) break;
            if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
                throw ParseError(
                    fmt::format("{} field {} ({}) does not fit in 64 bits", kind_, field_, what));
            }
            value = value * 10 + digit;
        }
        return value;
    }

    [[noreturn]] void bad_field(std::size_t start, const char* what) const {
        std::size_t end = text_.find(':', start);
        if (end == std::string_view::npos) end = text_.size();
        if (start >= text_.size()) {
            throw ParseError(fmt::format("{} has {} fields, field {} ({}) is missing", kind_,
                                         field_ - 1, field_, what));
        }
        throw ParseError(fmt::format("{} field {} ({}) is not an unsigned integer: '{}'", kind_,
                                     field_, what,
                                     text_.substr(start, std::min<std::size_t>(end - start, 40))));
    }

  private:
    std::string_view text_;
    const char* kind_;
    std::size_t pos_ = 0;
    unsigned field_ = 0;
};

} // namespace popsim::replay::detail

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The lines of a Paraver file (plain or gzipped), one at a time, for the passes that need every
// record in file order and little memory (popsim cut, popsim events).
#include "replay/input/byte_source.hpp"
#include "replay/input/paraver_header.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace popsim::replay {

/// The longest line popsim reads: 64 MiB (the header of a trace of 4 million tasks is 40 MB). A
/// longer one (NUL bytes, binary data) is not Paraver text: it is refused, not held in memory.
inline constexpr std::size_t k_max_line_bytes = std::size_t{64} << 20;
inline constexpr const char* k_line_too_long =
    "a line longer than 64 MiB (no line end in it): not Paraver text";

/// The lines of a (possibly gzipped) file, without their line ends.
class LineReader {
  public:
    explicit LineReader(const std::string& path) : source_(path) {}

    /// The next line, without its line end (valid until the next call); false at the end.
    bool next(std::string_view& line);
    /// The number of the line `next` returned last (1-based).
    std::uint64_t number() const { return number_; }

  private:
    static constexpr std::size_t k_block = 1 << 20;
    ByteSource source_;
    std::string buffer_;
    std::size_t start_ = 0;
    std::size_t scanned_ = 0; // buffer_ holds no line end from start_ to here
    bool done_ = false;
    std::uint64_t number_ = 0;
};

/// Reads and parses the file's header line (after an optional `new format` line); throws
/// ParseError for a missing or malformed one (`in.number()` is its line).
ParaverHeader read_header_line(LineReader& in);

} // namespace popsim::replay

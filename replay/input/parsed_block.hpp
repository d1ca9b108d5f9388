// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A Paraver body's text in blocks of whole lines, and each block's records parsed (in parallel, by
// the reader's pipeline or by another process: replay/input/divided_read.hpp), ready to apply in
// file order. Internal to the Paraver reader.
#include "replay/input/paraver_records.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace popsim::replay {

/// Complete lines of the file. (Their line numbers are counted as they are parsed, in parallel,
/// and given in the ordered stage.)
struct TextBlock {
    std::string text;
    std::optional<std::string> read_error; // the stream broke after this text
    bool ends_mid_line = false;            // the file's last line, without its newline, ends it
    std::uint64_t file_bytes = 0;          // of the file (compressed, for gzip) read up to here
};

/// The records of one block, parsed, in line order, ready to apply.
struct ParsedBlock {
    enum class Kind : std::uint8_t { state, event, comm };
    struct Ref {
        Kind kind;
        std::uint32_t line_offset;
        std::uint32_t index;
    };
    struct EventHead {
        RecordOwner owner;
        Time time;
        std::uint32_t first_pair;
        std::uint32_t pair_count;
    };
    std::uint64_t file_bytes = 0; // TextBlock::file_bytes
    std::vector<Ref> order;
    std::vector<StateRecord> states;
    std::vector<EventHead> events;
    std::vector<EventPair> pairs;
    std::vector<CommRecord> comms;
    std::uint64_t lines = 0; // whole lines: the block's are from its first to first + lines - 1
    std::uint64_t skipped = 0;
    std::uint64_t bytes = 0;
    bool ends_unfinished = false; // the file's last line, without its newline, follows (not parsed)
    std::optional<std::pair<std::uint32_t, std::string>> error; // line offset in the block, cause

    /// Empty, its buffers kept for the next block.
    void clear() {
        order.clear();
        states.clear();
        events.clear();
        pairs.clear();
        comms.clear();
        lines = skipped = bytes = file_bytes = 0;
        ends_unfinished = false;
        error.reset();
    }
    /// The thread that record `ref` belongs to (a communication's: its sender).
    const RecordOwner& owner(const Ref& ref) const;
};

/// Parses the block's lines into `out` (its buffers used again). A line that does not parse ends
/// the block with its error (ParsedBlock::error), as does the block's read error.
void parse_block(const TextBlock& block, Time ns_per_unit, ParsedBlock& out);

/// The parsed block as bytes, for another process of the same program (the same struct layouts:
/// one build on one kind of machine), and back. from_bytes throws std::runtime_error for bytes
/// to_bytes did not write.
std::string to_bytes(const ParsedBlock& block);
void from_bytes(std::string_view bytes, ParsedBlock& out);

} // namespace popsim::replay

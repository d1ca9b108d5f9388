// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/parsed_block.hpp"

#include "replay/input/parse_error.hpp"

#include <cstring>
#include <fmt/format.h>
#include <stdexcept>
#include <type_traits>

namespace popsim::replay {

namespace {

/// The record kind before a line's first ':' ("1", "2", "3", "4"), or the whole first field.
std::string_view record_kind(std::string_view line) {
    return line.substr(0, line.find(':'));
}

/// A field as an error message can show it: control bytes (a NUL of a binary file) as \xNN, with
/// a word on what they suggest.
std::string shown(std::string_view field) {
    std::string out;
    bool control = false;
    for (const char c : field) {
        const auto byte = static_cast<unsigned char>(c);
        control = control || byte < 0x20 || byte == 0x7f;
        out += byte < 0x20 || byte == 0x7f ? fmt::format("\\x{:02x}", byte) : std::string(1, c);
    }
    return control ? "'" + out + "' (control bytes: binary data, not text?)" : "'" + out + "'";
}

/// The kind digit of a line (not empty) whose first field is one character, else '\0': as
/// record_kind, without searching the line for its ':'.
char one_character_kind(std::string_view line) {
    return line.size() == 1 || line[1] == ':' ? line[0] : '\0';
}

/// Notes the record of `kind` just parsed into the block's arrays, at `index`.
void add_ref(ParsedBlock& out, ParsedBlock::Kind kind, std::uint32_t offset, std::size_t index) {
    ParsedBlock::Ref& ref = out.order.emplace_back();
    ref.kind = kind;
    ref.line_offset = offset;
    ref.index = static_cast<std::uint32_t>(index);
}

void parse_line(std::string_view line, std::uint32_t offset, Time ns_per_unit, ParsedBlock& out) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') return;
    const char kind = one_character_kind(line);
    if (line.back() == ':' && kind >= '1' && kind <= '3') {
        throw ParseError("the line ends with ':': a field is missing, or there is one too many");
    }
    switch (kind) {
    // Each record is parsed straight into its array (parse_state_record says why) and noted
    // in the order only once parsed: a line that fails to parse leaves no reference behind.
    case '1':
        parse_state_record(line, ns_per_unit, out.states.emplace_back());
        add_ref(out, ParsedBlock::Kind::state, offset, out.states.size() - 1);
        return;
    case '2': {
        const auto first_pair = out.pairs.size();
        ParsedBlock::EventHead& head = out.events.emplace_back();
        parse_event_record(line, ns_per_unit, head.owner, head.time, out.pairs);
        head.first_pair = static_cast<std::uint32_t>(first_pair);
        head.pair_count = static_cast<std::uint32_t>(out.pairs.size() - first_pair);
        add_ref(out, ParsedBlock::Kind::event, offset, out.events.size() - 1);
        return;
    }
    case '3':
        parse_comm_record(line, ns_per_unit, out.comms.emplace_back());
        add_ref(out, ParsedBlock::Kind::comm, offset, out.comms.size() - 1);
        return;
    case '4':
        ++out.skipped; // global communications: popsim has no use for them
        return;
    default:
        if (line[0] == 'c' || line[0] == 'C' || line[0] == 'i' || line[0] == 'I') {
            throw ParseError(
                "communicator line after the first record; they belong right after the header");
        }
        throw ParseError(fmt::format("unknown record kind {} (expected 1, 2, 3 or 4)",
                                     shown(record_kind(line).substr(0, 20))));
    }
}

} // namespace

const RecordOwner& ParsedBlock::owner(const Ref& ref) const {
    switch (ref.kind) {
    case Kind::state:
        return states[ref.index].owner;
    case Kind::event:
        return events[ref.index].owner;
    case Kind::comm:
        break;
    }
    return comms[ref.index].sender;
}

void parse_block(const TextBlock& block, Time ns_per_unit, ParsedBlock& out) {
    out.clear();
    out.file_bytes = block.file_bytes;
    out.bytes = block.text.size();
    std::string_view text = block.text;
    std::uint32_t offset = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        if (nl == std::string_view::npos && block.ends_mid_line) {
            out.ends_unfinished = true;
            break;
        }
        try {
            parse_line(line, offset, ns_per_unit, out);
        } catch (const ParseError& e) {
            out.error.emplace(offset, e.what());
            return;
        }
        ++offset;
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    }
    out.lines = offset;
    if (block.read_error) out.error.emplace(offset, *block.read_error);
}

namespace {

/// What precedes a parsed block's arrays in its bytes.
struct BlockHead {
    std::uint64_t file_bytes, lines, skipped, bytes;
    std::uint64_t order, states, events, pairs, comms, error_bytes;
    std::uint32_t error_offset;
    std::uint8_t ends_unfinished, has_error;
};

template <class T> void put(std::string& out, const std::vector<T>& items) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!items.empty()) // an empty vector's data() may be null, which memcpy must not see
        out.append(reinterpret_cast<const char*>(items.data()), items.size() * sizeof(T));
}

template <class T> void take(std::string_view& in, std::uint64_t count, std::vector<T>& items) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (count > in.size() / sizeof(T))
        throw std::runtime_error("a parsed block's bytes end inside its records");
    items.resize(count);
    if (count > 0) std::memcpy(items.data(), in.data(), count * sizeof(T));
    in.remove_prefix(count * sizeof(T));
}

} // namespace

std::string to_bytes(const ParsedBlock& block) {
    BlockHead head{};
    head.file_bytes = block.file_bytes;
    head.lines = block.lines;
    head.skipped = block.skipped;
    head.bytes = block.bytes;
    head.order = block.order.size();
    head.states = block.states.size();
    head.events = block.events.size();
    head.pairs = block.pairs.size();
    head.comms = block.comms.size();
    head.ends_unfinished = block.ends_unfinished ? 1 : 0;
    if (block.error) {
        head.has_error = 1;
        head.error_offset = block.error->first;
        head.error_bytes = block.error->second.size();
    }
    std::string out(reinterpret_cast<const char*>(&head), sizeof head);
    put(out, block.order);
    put(out, block.states);
    put(out, block.events);
    put(out, block.pairs);
    put(out, block.comms);
    if (block.error) out += block.error->second;
    return out;
}

void from_bytes(std::string_view bytes, ParsedBlock& out) {
    out.clear();
    BlockHead head{};
    if (bytes.size() < sizeof head)
        throw std::runtime_error("a parsed block's bytes are cut short");
    std::memcpy(&head, bytes.data(), sizeof head);
    bytes.remove_prefix(sizeof head);
    out.file_bytes = head.file_bytes;
    out.lines = head.lines;
    out.skipped = head.skipped;
    out.bytes = head.bytes;
    out.ends_unfinished = head.ends_unfinished != 0;
    take(bytes, head.order, out.order);
    take(bytes, head.states, out.states);
    take(bytes, head.events, out.events);
    take(bytes, head.pairs, out.pairs);
    take(bytes, head.comms, out.comms);
    if (bytes.size() != (head.has_error ? head.error_bytes : 0))
        throw std::runtime_error("a parsed block's bytes do not end with its error");
    if (head.has_error) out.error.emplace(head.error_offset, std::string(bytes));
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/divided_read.hpp"

#include "replay/input/line_reader.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace popsim::replay {

namespace {

constexpr std::size_t k_chunk = 1 << 20;       // read at once to the end of the file
constexpr std::size_t k_line_search = 4 << 10; // read at once while looking for a line end

/// Where the first line that begins at or after `offset` begins (the end of the file if none).
std::uint64_t next_line_start(BodyText& text, std::uint64_t offset, std::uint64_t body_begin) {
    if (offset <= body_begin) return body_begin;
    std::string probe;
    for (std::uint64_t at = offset - 1;; at += probe.size()) { // the byte before may end a line
        probe.clear();
        if (text.read_at(at, k_line_search, probe) == 0) return at;
        if (const auto nl = probe.find('\n'); nl != std::string::npos) return at + nl + 1;
    }
}

} // namespace

void read_body_range(BodyText& body, const BodyRange& range, TextBlock& out) {
    out.text.clear();
    out.read_error.reset();
    out.ends_mid_line = false;
    try {
        const std::uint64_t from = next_line_start(body, range.begin, range.body_begin);
        const bool bounded = range.end != BodyRange::k_to_the_end;
        out.file_bytes = from;
        if (bounded && from >= range.end) return;
        const std::size_t wanted = bounded ? static_cast<std::size_t>(range.end - from) : k_chunk;
        bool at_end = body.read_at(from, wanted, out.text) < wanted;
        std::size_t line_start = out.text.rfind('\n') + 1; // npos + 1 = 0
        // On to the end of the range's last line, or of the file for the last range.
        while (!at_end && !(bounded && out.text.back() == '\n')) {
            const std::size_t searched = out.text.size();
            const std::size_t more = bounded ? k_line_search : k_chunk;
            at_end = body.read_at(from + searched, more, out.text) < more;
            const std::string_view added = std::string_view(out.text).substr(searched);
            if (bounded) {
                if (const auto nl = added.find('\n'); nl != std::string_view::npos) {
                    out.text.resize(searched + nl + 1);
                    break;
                }
            } else if (const auto nl = added.rfind('\n'); nl != std::string_view::npos) {
                line_start = searched + nl + 1;
            }
            if (out.text.size() - line_start > k_max_line_bytes) { // as the reader's blocks
                out.text.resize(line_start);
                out.read_error = k_line_too_long;
                break;
            }
        }
        out.file_bytes = body.file_offset(from + out.text.size());
        out.ends_mid_line =
            at_end && !out.read_error && !out.text.empty() && out.text.back() != '\n';
    } catch (const TraceError& e) { // reported at the line it broke, as the lone reader does
        out.text.resize(out.text.rfind('\n') + 1); // npos + 1 = 0
        out.read_error = e.file() == body.path() ? e.cause() : e.what();
    }
}

DividedBody::DividedBody(const std::string& path, ReadHelpers* helpers, std::uint64_t body_begin,
                         Time ns_per_unit, std::size_t block_bytes)
    : helpers_(helpers), text_(path), block_bytes_(std::max<std::uint64_t>(block_bytes, 1)),
      parts_(std::uint64_t{helpers ? helpers->count() : 0} + 1), owed_(parts_ - 1, 0) {
    first_.body_begin = first_.begin = body_begin;
    first_.ns_per_unit = ns_per_unit;
    first_.text_size = text_.size();
    if (text_.size() > body_begin)
        ranges_ = (text_.size() - body_begin + block_bytes_ - 1) / block_bytes_;
    text_.check_members_before(body_begin); // the text before is the reader's own
}

DividedBody::~DividedBody() {
    for (std::uint32_t h = 0; h < owed_.size(); ++h)
        for (; owed_[h] > 0; --owed_[h]) helpers_->answer(h);
}

BodyRange DividedBody::range(std::uint64_t j) const {
    BodyRange r = first_;
    r.begin = first_.body_begin + j * block_bytes_;
    r.end = j + 1 == ranges_ ? BodyRange::k_to_the_end : r.begin + block_bytes_;
    return r;
}

bool DividedBody::next(std::optional<BodyRange>& range_here, ParsedBlock& parsed) {
    range_here.reset();
    if (next_ == ranges_) return false;
    const std::uint64_t j = next_++;
    // Two asks ahead for each helper: it parses the next while this one travels.
    constexpr std::uint64_t k_asks_ahead = 2;
    for (; parts_ > 1 && asked_ < std::min(ranges_, j + k_asks_ahead * parts_); ++asked_) {
        if (part(asked_) == 0) continue;
        helpers_->ask(part(asked_) - 1, range(asked_));
        ++owed_[part(asked_) - 1];
    }
    if (part(j) == 0) {
        range_here = range(j);
        return true;
    }
    --owed_[part(j) - 1];
    from_bytes(helpers_->answer(part(j) - 1), parsed);
    return true;
}

void help_read_paraver(const std::string& path, ReadRequests& requests) {
    std::optional<BodyText> body;
    std::string open_error;
    try {
        body.emplace(path);
    } catch (const TraceError& e) {
        open_error = fmt::format("another process of the MPI run cannot read {}", e.what());
    }
    std::vector<TextBlock> text;
    std::vector<ParsedBlock> parsed;
    for (auto asks = requests.next(); !asks.empty(); asks = requests.next()) {
        text.resize(asks.size());
        parsed.resize(asks.size());
        // One range after the other here (a member's text is decompressed once for the ranges
        // that share it); their parsing side by side.
        for (std::size_t i = 0; i < asks.size(); ++i) {
            if (body && body->size() == asks[i].text_size) {
                read_body_range(*body, asks[i], text[i]);
            } else {
                text[i].text.clear();
                text[i].read_error =
                    body ? fmt::format("another process of the MPI run sees another file at {} "
                                       "({} bytes of text, not {})",
                                       path, body->size(), asks[i].text_size)
                         : open_error;
            }
        }
        oneapi::tbb::parallel_for(std::size_t{0}, asks.size(), [&](std::size_t i) {
            // Every ask is answered, with its error if need be: the reader waits for each.
            try {
                parse_block(text[i], asks[i].ns_per_unit, parsed[i]);
            } catch (const std::exception& e) { // out of memory
                parsed[i].clear();
                parsed[i].error.emplace(
                    0, fmt::format("another process of the MPI run: {}", e.what()));
            }
        });
        for (const auto& block : parsed) requests.answer(to_bytes(block));
    }
}

void help_read(const std::string& path, ReadRequests& requests) {
    if (is_otf2_anchor(path))
        help_read_otf2(path, requests);
    else
        help_read_paraver(path, requests);
}

} // namespace popsim::replay

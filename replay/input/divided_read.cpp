// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/divided_read.hpp"

#include "replay/input/line_reader.hpp"
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

constexpr std::size_t k_chunk = 1 << 20; // read at once while looking for a line end

/// Appends up to `bytes` bytes of the file from `offset` to `out`; returns how many (fewer only
/// at the end of the file). Throws the system's cause of a read error.
std::size_t append_at(int fd, std::uint64_t offset, std::size_t bytes, std::string& out) {
    const std::size_t had = out.size();
    out.resize(had + bytes);
    std::size_t got = 0;
    while (got < bytes) {
        const ssize_t n =
            pread(fd, out.data() + had + got, bytes - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out.resize(had + got);
            throw std::system_error(errno, std::generic_category());
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    out.resize(had + got);
    return got;
}

/// Where the first line that begins at or after `offset` begins (the end of the file if none).
std::uint64_t next_line_start(int fd, std::uint64_t offset, std::uint64_t body_begin) {
    if (offset <= body_begin) return body_begin;
    std::string probe;
    for (std::uint64_t at = offset - 1;; at += probe.size()) { // the byte before may end a line
        probe.clear();
        if (append_at(fd, at, k_chunk, probe) == 0) return at;
        if (const auto nl = probe.find('\n'); nl != std::string::npos) return at + nl + 1;
    }
}

} // namespace

void read_body_range(int fd, const BodyRange& range, TextBlock& out) {
    out.text.clear();
    out.read_error.reset();
    out.ends_mid_line = false;
    try {
        const std::uint64_t from = next_line_start(fd, range.begin, range.body_begin);
        const bool bounded = range.end != BodyRange::k_to_the_end;
        out.file_bytes = from;
        if (bounded && from >= range.end) return;
        const std::size_t wanted = bounded ? static_cast<std::size_t>(range.end - from) : k_chunk;
        bool at_end = append_at(fd, from, wanted, out.text) < wanted;
        std::size_t line_start = out.text.rfind('\n') + 1; // npos + 1 = 0
        // On to the end of the range's last line, or of the file for the last range.
        while (!at_end && !(bounded && out.text.back() == '\n')) {
            const std::size_t searched = out.text.size();
            at_end = append_at(fd, from + searched, k_chunk, out.text) < k_chunk;
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
        out.file_bytes = from + out.text.size();
        out.ends_mid_line =
            at_end && !out.read_error && !out.text.empty() && out.text.back() != '\n';
    } catch (const std::system_error& e) {
        out.read_error = std::strerror(e.code().value());
    }
}

DividedBody::DividedBody(const std::string& path, ReadHelpers& helpers, std::uint64_t body_begin,
                         Time ns_per_unit, std::size_t block_bytes)
    : helpers_(helpers), block_bytes_(std::max<std::uint64_t>(block_bytes, 1)),
      parts_(std::uint64_t{helpers.count()} + 1), owed_(helpers.count(), 0) {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat status {};
    if (fd_ < 0 || fstat(fd_, &status) != 0)
        throw TraceError(path, 0, fmt::format("cannot open again: {}", std::strerror(errno)));
    first_.body_begin = first_.begin = body_begin;
    first_.ns_per_unit = ns_per_unit;
    const auto size = static_cast<std::uint64_t>(status.st_size);
    if (size > body_begin) ranges_ = (size - body_begin + block_bytes_ - 1) / block_bytes_;
}

DividedBody::~DividedBody() {
    for (std::uint32_t h = 0; h < owed_.size(); ++h)
        for (; owed_[h] > 0; --owed_[h]) helpers_.answer(h);
    if (fd_ >= 0) close(fd_);
}

bool DividedBody::can_divide(const std::string& path) {
    struct stat status {};
    return stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

BodyRange DividedBody::range(std::uint64_t j) const {
    BodyRange r = first_;
    r.begin = first_.body_begin + j * block_bytes_;
    r.end = j + 1 == ranges_ ? BodyRange::k_to_the_end : r.begin + block_bytes_;
    return r;
}

bool DividedBody::next(TextBlock& text, ParsedBlock& parsed, bool& parsed_by_helper) {
    if (next_ == ranges_) return false;
    const std::uint64_t j = next_++;
    // Two asks ahead for each helper: it parses the next while this one travels.
    constexpr std::uint64_t k_asks_ahead = 2;
    for (; asked_ < std::min(ranges_, j + k_asks_ahead * parts_); ++asked_) {
        if (part(asked_) == 0) continue;
        helpers_.ask(part(asked_) - 1, range(asked_));
        ++owed_[part(asked_) - 1];
    }
    parsed_by_helper = part(j) != 0;
    if (!parsed_by_helper) {
        read_body_range(fd_, range(j), text);
        return true;
    }
    --owed_[part(j) - 1];
    from_bytes(helpers_.answer(part(j) - 1), parsed);
    return true;
}

void help_read_paraver(const std::string& path, ReadRequests& requests) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const std::string open_error =
        fd < 0 ? fmt::format("another process of the MPI run cannot open {}: {}", path,
                             std::strerror(errno))
               : std::string();
    std::vector<TextBlock> text;
    std::vector<ParsedBlock> parsed;
    for (auto asks = requests.next(); !asks.empty(); asks = requests.next()) {
        text.resize(asks.size());
        parsed.resize(asks.size());
        oneapi::tbb::parallel_for(std::size_t{0}, asks.size(), [&](std::size_t i) {
            // Every ask is answered, with its error if need be: the reader waits for each.
            try {
                if (fd < 0) {
                    text[i].text.clear();
                    text[i].read_error = open_error;
                } else {
                    read_body_range(fd, asks[i], text[i]);
                }
                parse_block(text[i], asks[i].ns_per_unit, parsed[i]);
            } catch (const std::exception& e) { // out of memory
                parsed[i].clear();
                parsed[i].error.emplace(
                    0, fmt::format("another process of the MPI run: {}", e.what()));
            }
        });
        for (const auto& block : parsed) requests.answer(to_bytes(block));
    }
    if (fd >= 0) close(fd);
}

} // namespace popsim::replay

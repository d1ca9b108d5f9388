// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/spill_file.hpp"

#include "replay/output/output_file.hpp"
#include "replay/read_at.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

namespace popsim::replay {

namespace {

/// The memory all streams' blocks take together, being filled or read by one reader each: large
/// blocks for few streams (fewer system calls), small ones for thousands.
constexpr std::size_t k_block_budget = std::size_t{8} << 20;
constexpr std::size_t k_smallest_block = std::size_t{4} << 10;
constexpr std::size_t k_largest_block = std::size_t{256} << 10;

/// An unnamed file in `directory`: made and unlinked at once. -1 when it cannot be made.
int unnamed_file(const std::string& directory) {
    std::string name = (std::filesystem::path(directory) / "popsim-spill-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd >= 0) ::unlink(name.c_str());
    return fd;
}

/// The output's folder, unless the output is no regular file (/dev/stdout, a FIFO).
std::string folder_of(const std::string& output) {
    std::error_code ec;
    const auto status = std::filesystem::status(output, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        return {};
    const auto folder = std::filesystem::path(output).parent_path();
    return folder.empty() ? std::string(".") : folder.string();
}

} // namespace

SpillFile::SpillFile(const std::string& output, std::size_t streams, std::size_t item_bytes)
    : output_(output), item_bytes_(item_bytes), streams_(streams) {
    const std::size_t per_stream = std::clamp(k_block_budget / std::max<std::size_t>(streams, 1),
                                              k_smallest_block, k_largest_block);
    block_bytes_ = std::max(item_bytes, per_stream / item_bytes * item_bytes);
    directory_ = folder_of(output);
    if (!directory_.empty()) fd_ = unnamed_file(directory_);
    if (fd_ < 0) {
        std::error_code ec;
        const auto temporary = std::filesystem::temp_directory_path(ec);
        if (!ec) {
            directory_ = temporary.string();
            fd_ = unnamed_file(directory_);
        }
    }
    if (fd_ < 0) fail("cannot write");
}

SpillFile::~SpillFile() {
    if (fd_ >= 0) ::close(fd_);
}

void SpillFile::fail(const char* what) const {
    throw OutputError(fmt::format("{}: {}: {} (a temporary file in {})", output_, what,
                                  std::strerror(errno), directory_));
}

void SpillFile::append(std::size_t stream, const void* item) {
    Stream& s = streams_[stream];
    if (s.pending.empty()) s.pending.reserve(block_bytes_);
    const auto* bytes = static_cast<const std::byte*>(item);
    s.pending.insert(s.pending.end(), bytes, bytes + item_bytes_);
    if (s.pending.size() >= block_bytes_) write_block(s);
}

void SpillFile::write_block(Stream& s) {
    std::size_t done = 0;
    while (done < s.pending.size()) {
        const ssize_t n = ::pwrite(fd_, s.pending.data() + done, s.pending.size() - done,
                                   static_cast<off_t>(end_ + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("write failed");
        done += static_cast<std::size_t>(n);
    }
    s.blocks.push_back({end_, static_cast<std::uint32_t>(done)});
    end_ += done;
    s.pending.clear();
}

void SpillFile::finish_writing() {
    for (auto& s : streams_) {
        if (!s.pending.empty()) write_block(s);
        std::vector<std::byte>().swap(s.pending);
    }
}

void SpillFile::read_block(const Block& block, std::vector<std::byte>& into) const {
    into.resize(block.bytes);
    const auto got = read_at(fd_, into.data(), block.bytes, block.offset);
    if (got && *got < block.bytes) errno = EIO; // shorter than written: someone truncated it
    if (!got || *got < block.bytes) fail("cannot read back");
}

SpillFile::Reader::Reader(const SpillFile& file, std::size_t stream)
    : file_(&file), stream_(stream) {}

bool SpillFile::Reader::next(void* item) {
    const auto& blocks = file_->streams_[stream_].blocks;
    if (at_ == items_.size()) {
        if (block_ == blocks.size()) {
            std::vector<std::byte>().swap(items_); // read to its end: its memory goes back
            at_ = 0;
            return false;
        }
        file_->read_block(blocks[block_++], items_);
        at_ = 0;
    }
    std::memcpy(item, items_.data() + at_, file_->item_bytes_);
    at_ += file_->item_bytes_;
    return true;
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// gztool's index of a gzip file: restart points along its compressed data, written once by
// `gztool -i run.prv.gz` (Debian's gztool; it writes run.prv.gzi), from which the text at any
// offset is decompressed without decompressing what comes before (docs/architecture.md, "Many
// processes"). Each point is where a deflate block begins: its offset in the text and in the file
// (the bits of the byte before it that belong to the block) and the 32 KiB of text before it,
// which deflate may refer back to. The format is gztool's ("Index file format" in its README):
// big-endian numbers; version 0 ("gzipindx") or 1 ("gzipindX", with line counts, ignored here).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace popsim::replay {

struct RestartPoint {
    std::uint64_t text = 0;       // its offset in the text
    std::uint64_t compressed = 0; // its first whole byte of compressed data in the file
    std::uint32_t bits = 0;       // bits of the byte before it that belong to it (0-7)
    std::uint64_t window_at = 0;  // where its window is in the index (zlib-compressed)
    std::uint32_t window_bytes = 0;
};

struct GztoolIndex {
    std::string path; // of the index
    std::vector<RestartPoint> points;
    std::uint64_t text_size = 0;
};

/// Where gztool writes the index of the gzip file at `path`: `run.prv.gz` -> `run.prv.gzi`.
std::string gztool_index_path(const std::string& path);

/// Whether the file at `path` begins as gztool's indexes do.
bool is_gztool_index(const std::string& path);

/// Reads the index at `index_path` of a gzip file of `file_size` bytes; throws TraceError naming
/// the index for one that is incomplete (gztool stopped, or its file was still growing) or does
/// not fit such a file.
GztoolIndex read_gztool_index(const std::string& index_path, std::uint64_t file_size);

/// The text of the gzip file `trace` from restart point `point` of its `index` on: decompression
/// started there with the point's window, then on through the members that follow, as gzip reads
/// them.
class RestartedText {
  public:
    /// Throws TraceError naming the index or the trace when they cannot be read.
    RestartedText(const std::string& trace, const GztoolIndex& index, const RestartPoint& point);
    ~RestartedText();
    RestartedText(const RestartedText&) = delete;
    RestartedText& operator=(const RestartedText&) = delete;

    /// Fills `out` as far as possible; returns how many bytes, 0 at the end of the text. Throws
    /// TraceError for compressed data that does not decompress (a file the index was not made
    /// from).
    std::size_t read(std::span<char> out);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace popsim::replay

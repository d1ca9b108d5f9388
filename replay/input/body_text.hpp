// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A trace file's text read at any offset, for a body divided among processes (divided_read.hpp):
// a plain .prv, or a .prv.gz with an index beside it:
// - written by bgzip (htslib's BGZF: gzip members of at most 64 KiB), with the index of its
//   members, `run.prv.gz.gzi` (`bgzip -i` writes it as it compresses, `bgzip -r run.prv.gz` for a
//   file bgzip wrote). The index holds, after its count, the compressed and uncompressed offsets
//   of each member after the first (little-endian 64-bit numbers,
//   http://www.htslib.org/doc/bgzip.html#GZI_FORMAT); reading from an offset decompresses from
//   the member that holds it;
// - any gzip file (Extrae's), with gztool's index of restart points, `run.prv.gzi`
//   (gztool_index.hpp: `gztool -i run.prv.gz` writes it, one pass over the file); reading from
//   an offset decompresses from the restart point before it.
#include "replay/input/byte_source.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace popsim::replay {

/// Where bgzip writes the index of its members: `run.prv.gz` -> `run.prv.gz.gzi`.
std::string bgzip_index_path(const std::string& path);

class BodyText {
  public:
    /// Throws TraceError if the file cannot be opened, or is gzipped without an index it can use
    /// (BodyText::readable says why).
    explicit BodyText(const std::string& path);
    ~BodyText();
    BodyText(BodyText&&) noexcept;
    BodyText(const BodyText&) = delete;
    BodyText& operator=(const BodyText&) = delete;

    /// Another reader of the same file, for another thread: it shares the file's descriptor or
    /// index (read once), not the reading.
    BodyText another() const;

    /// Whether the file at `path` can be read at any offset: a regular file, plain, or gzipped
    /// with an index beside it that is not older than it. If not, `why_not` says so.
    static bool readable(const std::string& path, std::string* why_not = nullptr);
    /// Whether the gzip file at `path` is read from the restart points of gztool's index: a lone
    /// reader reads it as one stream instead (a range far from a point decompresses the text
    /// before it too, and one thread decompresses faster than the analysis goes).
    static bool restarts_from_points(const std::string& path);

    /// Appends up to `bytes` bytes of the text from `offset` to `out`; returns how many (fewer
    /// only at its end). Throws TraceError for a read error, a corrupt member or an index that
    /// does not fit the file.
    std::size_t read_at(std::uint64_t offset, std::size_t bytes, std::string& out);
    const std::string& path() const;
    /// The text's size (uncompressed).
    std::uint64_t size() const;
    /// Checks bgzip's index against the members that begin before `offset` (text read as a
    /// stream, not from the index), as each reader checks the members it decompresses; throws
    /// TraceError when the index misplaces one.
    void check_members_before(std::uint64_t offset);
    /// Where the text at `offset` is in the file (compressed bytes, for progress bars).
    std::uint64_t file_offset(std::uint64_t offset) const;
    /// How a gzipped file's data ends (ByteSource::ending: cut short, or followed by garbage).
    ByteSource::Ending ending() const;

  private:
    struct Impl;
    explicit BodyText(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace popsim::replay

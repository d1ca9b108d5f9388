// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Streams the bytes of a plain or gzip-compressed file in chunks: a multi-GB .prv.gz is never
// decompressed into memory. Gzip is detected from the magic bytes, not the file name.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace popsim::replay {

class ByteSource {
  public:
    /// Throws TraceError if the file cannot be opened.
    explicit ByteSource(std::string path);
    /// The data of the file's bytes from `from` on (whole gzip members, for a divided read:
    /// replay/input/body_text.hpp), compressed or not as their first bytes say.
    ByteSource(std::string path, std::uint64_t from);
    ~ByteSource();
    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;

    /// Fills `out` as far as possible; returns the number of bytes written, 0 at the end of the
    /// data. Throws TraceError (line 0) on a corrupt gzip stream or a read error, once the data
    /// before it has been returned. A gzip stream that stops early ends the data (ending()).
    std::size_t read(std::span<char> out);

    /// How a gzip file's data ended, as gzip(1) says it: whole, cut short (the file ends inside
    /// a member: what was decompressed is returned, as a truncated trace), or followed by bytes
    /// that are not another member (ignored, as gzip ignores "trailing garbage").
    enum class Ending : std::uint8_t { whole, truncated, trailing_garbage };
    Ending ending() const;

    /// Called with each gzip member's text size once it is decompressed to its end (bgzip's
    /// index is checked against it: body_text.cpp); a TraceError it throws is read()'s own.
    using MemberEnd = std::function<void(std::uint64_t text_bytes)>;
    void on_member_end(MemberEnd callback);

    bool compressed() const;
    /// The bytes read from the file so far: compressed ones for a gzip file (progress against
    /// the file's size).
    std::uint64_t file_bytes_read() const;
    const std::string& path() const { return path_; }

  private:
    class Impl;
    std::string path_;
    std::unique_ptr<Impl> impl_;
};

} // namespace popsim::replay

#pragma once
// Streams the bytes of a plain or gzip-compressed file in chunks: a multi-GB .prv.gz is never
// decompressed into memory. Gzip is detected from the magic bytes, not the file name.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace popsim::replay {

class ByteSource {
  public:
    /// Throws TraceError if the file cannot be opened.
    explicit ByteSource(std::string path);
    ~ByteSource();
    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;

    /// Fills `out` as far as possible; returns the number of bytes written, 0 at the end of the
    /// data. Throws TraceError (line 0) on a truncated or corrupt gzip stream or a read error.
    std::size_t read(std::span<char> out);

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

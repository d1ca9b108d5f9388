// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Files popsim writes, whole or not at all: the bytes go to "PATH.partial", which commit()
// flushes, closes and renames to PATH. A full disk, an error or an interruption before commit()
// never leaves a truncated file under the real name (a killed process leaves only the .partial).
// A symbolic link is followed: the file it leads to is replaced, the link stays. A path that
// leads into the process's descriptors (/dev/stdout, /proc/self/fd/1) or to no regular file (a
// device, a FIFO) is written directly. A path ending in
// ".gz" is written gzip-compressed, whatever writes it.
#include "replay/output/gzip_compressor.hpp"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace popsim::replay {

/// An output that cannot be written (exit status 3, where input errors are 2).
class OutputError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class OutputFile {
  public:
    /// Opens PATH.partial; throws OutputError "PATH: cannot write: cause".
    explicit OutputFile(std::string path);
    /// Removes the partial file unless committed.
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(std::string_view bytes);
    /// Flushes, closes and renames the file into place; throws OutputError on any failure.
    void commit();
    const std::string& path() const { return path_; }

  private:
    [[noreturn]] void fail(const char* what) const;
    void write_bytes(std::string_view bytes);
    std::string path_;
    std::string target_; // the file renamed into place; empty: path_ is written in place
    std::string partial_;
    std::FILE* file_ = nullptr;
    std::unique_ptr<GzipCompressor> gzip_; // for a path ending in ".gz"
};

/// Writes `text` as the whole of `path` through an OutputFile.
void write_whole_file(const std::string& path, std::string_view text);

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

namespace popsim::replay {

namespace {
/// A path that exists and is no regular file (/dev/stdout, a FIFO) is written in place: renaming
/// over it would replace the device.
bool write_in_place(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    return !ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
}
} // namespace

OutputFile::OutputFile(std::string path)
    : path_(std::move(path)), partial_(write_in_place(path_) ? path_ : path_ + ".partial") {
    file_ = std::fopen(partial_.c_str(), "wb");
    if (!file_) fail("cannot write");
    if (path_.ends_with(".gz"))
        gzip_ = std::make_unique<GzipCompressor>([this](std::string_view c) { write_bytes(c); });
}

OutputFile::~OutputFile() {
    if (!file_) return;
    std::fclose(file_);
    if (partial_ != path_) std::remove(partial_.c_str());
}

void OutputFile::fail(const char* what) const {
    throw OutputError(fmt::format("{}: {}: {}", path_, what, std::strerror(errno)));
}

void OutputFile::write(std::string_view bytes) {
    if (gzip_)
        gzip_->compress(bytes);
    else
        write_bytes(bytes);
}

void OutputFile::write_bytes(std::string_view bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail("write failed");
}

void OutputFile::commit() {
    if (gzip_) gzip_->finish();
    const bool flushed = std::fflush(file_) == 0;
    const int saved = errno;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!flushed || !closed) {
        if (!flushed) errno = saved;
        const int cause = errno;
        if (partial_ != path_) std::remove(partial_.c_str());
        errno = cause;
        fail("write failed");
    }
    if (partial_ != path_ && std::rename(partial_.c_str(), path_.c_str()) != 0) {
        const int cause = errno;
        std::remove(partial_.c_str());
        errno = cause;
        fail("cannot write");
    }
}

void write_whole_file(const std::string& path, std::string_view text) {
    OutputFile out(path);
    out.write(text);
    out.commit();
}

} // namespace popsim::replay

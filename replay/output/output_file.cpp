// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

namespace popsim::replay {

namespace {

/// A path into the process's own descriptors (/dev/stdout, /proc/self/fd/1): whatever they lead
/// to, they are written through, never replaced.
bool names_a_descriptor(const std::filesystem::path& path) {
    const std::string p = std::filesystem::absolute(path).lexically_normal().string();
    for (const char* prefix : {"/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/"})
        if (p.starts_with(prefix)) return true;
    return false;
}

/// Where the bytes of `path` go: the file its symbolic links lead to, replaced by a rename, or
/// (empty) the path itself written in place, when it leads into a descriptor or to something that
/// is no regular file (a device, a FIFO): renaming over those would replace the link or device.
std::string renamed_target(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    fs::path target = path;
    for (int link = 0; link < 40; ++link) { // as many as the kernel follows
        if (names_a_descriptor(target)) return {};
        if (!fs::is_symlink(fs::symlink_status(target, error))) break;
        const fs::path next = fs::read_symlink(target, error);
        if (error) break;
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    const auto status = fs::status(target, error);
    if (!error && fs::exists(status) && !fs::is_regular_file(status)) return {};
    return target.string();
}

} // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)), target_(renamed_target(path_)) {
    partial_ = target_.empty() ? path_ : target_ + ".partial";
    file_ = std::fopen(partial_.c_str(), "wb");
    if (!file_) fail("cannot write");
    if (path_.ends_with(".gz"))
        gzip_ = std::make_unique<GzipCompressor>([this](std::string_view c) { write_bytes(c); });
}

OutputFile::~OutputFile() {
    if (!file_) return;
    std::fclose(file_);
    if (!target_.empty()) std::remove(partial_.c_str());
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
        if (!target_.empty()) std::remove(partial_.c_str());
        errno = cause;
        fail("write failed");
    }
    if (!target_.empty() && std::rename(partial_.c_str(), target_.c_str()) != 0) {
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

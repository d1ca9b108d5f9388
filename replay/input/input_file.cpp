// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/input_file.hpp"

#include "replay/trace_error.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>

namespace popsim::replay {

bool readable_input_file(const std::string& path, std::uintmax_t max_bytes) {
    namespace fs = std::filesystem;
    std::error_code error;
    const auto status = fs::status(path, error);
    if (status.type() == fs::file_type::not_found) return false;
    if (error) throw TraceError(path, 0, "cannot open: " + error.message());
    if (!fs::is_regular_file(status))
        throw TraceError(path, 0,
                         fs::is_directory(status)
                             ? "a folder, where a file is expected"
                             : "not a regular file (a FIFO or a device): it cannot be read whole");
    const auto size = fs::file_size(path, error);
    if (error) throw TraceError(path, 0, "cannot open: " + error.message());
    if (size > max_bytes)
        throw TraceError(path, 0,
                         fmt::format("{} bytes, more than popsim reads of such a file ({} MiB)",
                                     size, max_bytes >> 20));
    return true;
}

std::optional<FileStamp> file_stamp(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return FileStamp{static_cast<std::uintmax_t>(st.st_size), modified_ns(st),
                     static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

std::int64_t modified_ns(const struct stat& status) {
    return std::int64_t{status.st_mtim.tv_sec} * 1'000'000'000 + status.st_mtim.tv_nsec;
}

} // namespace popsim::replay

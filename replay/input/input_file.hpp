// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The small files popsim reads whole beside a trace or a network model (.pcf, .row, Dimemas
// configurations and collectives files): only regular files of a bounded size, so that a folder,
// a FIFO or a device (/dev/zero) is refused by name rather than read as empty or forever.
#include <cstdint>
#include <optional>
#include <string>

struct stat;

namespace popsim::replay {

/// 1 GiB: a .pcf naming millions of functions is tens of MB.
inline constexpr std::uintmax_t k_max_input_file_bytes = std::uintmax_t{1} << 30;

/// Whether `path` is there to be read: false when nothing is there; a TraceError naming it when
/// it cannot be examined (a symlink loop, no permission), is not a regular file or holds more than
/// `max_bytes`.
bool readable_input_file(const std::string& path,
                         std::uintmax_t max_bytes = k_max_input_file_bytes);

/// What tells one version of a file from another without reading it: its size and modification
/// time (to the ns), and the file it is (device and inode).
struct FileStamp {
    std::uintmax_t size = 0;
    std::int64_t modified_ns = 0;
    std::uint64_t device = 0, inode = 0;
    bool operator==(const FileStamp&) const = default;
};
/// The stamp of the regular file at `path`; nullopt for anything else (a pipe is read once).
std::optional<FileStamp> file_stamp(const std::string& path);
/// A file's modification time in ns, from what stat() gave.
std::int64_t modified_ns(const struct stat& status);

} // namespace popsim::replay

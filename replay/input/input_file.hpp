#pragma once
// The small files popsim reads whole beside a trace or a network model (.pcf, .row, Dimemas
// configurations and collectives files): only regular files of a bounded size, so that a folder,
// a FIFO or a device (/dev/zero) is refused by name rather than read as empty or forever.
#include <cstdint>
#include <string>

namespace popsim::replay {

/// 1 GiB: a .pcf naming millions of functions is tens of MB.
inline constexpr std::uintmax_t k_max_input_file_bytes = std::uintmax_t{1} << 30;

/// Whether `path` is there to be read: false when nothing is there; a TraceError naming it when
/// it cannot be examined (a symlink loop, no permission), is not a regular file or holds more than
/// `max_bytes`.
bool readable_input_file(const std::string& path,
                         std::uintmax_t max_bytes = k_max_input_file_bytes);

} // namespace popsim::replay

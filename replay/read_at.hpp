// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reads a file at an offset, whole: pread until the bytes asked for, the file's end or an error
// (a signal's interruption retried). Safe from any thread on one descriptor.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace popsim::replay {

/// The bytes read into `into`, fewer than `bytes` only at the file's end; none on an error, with
/// errno saying which.
std::optional<std::size_t> read_at(int fd, void* into, std::size_t bytes, std::uint64_t offset);

} // namespace popsim::replay

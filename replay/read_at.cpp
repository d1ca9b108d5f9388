// SPDX-License-Identifier: BSD-3-Clause
#include "replay/read_at.hpp"

#include <cerrno>
#include <sys/types.h>
#include <unistd.h>

namespace popsim::replay {

std::optional<std::size_t> read_at(int fd, void* into, std::size_t bytes, std::uint64_t offset) {
    auto* out = static_cast<char*>(into);
    std::size_t got = 0;
    while (got < bytes) {
        const ssize_t n = ::pread(fd, out + got, bytes - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return std::nullopt;
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return got;
}

} // namespace popsim::replay

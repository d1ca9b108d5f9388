// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/console/memory_use.hpp"

#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

namespace popsim::pipeline {

std::uint64_t peak_memory_bytes() {
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024; // Linux counts KiB
}

std::uint64_t resident_memory_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

} // namespace popsim::pipeline

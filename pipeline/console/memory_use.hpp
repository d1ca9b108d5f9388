// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How much memory popsim holds: for --json reports (peak_memory_bytes) and the progress bar.
#include <cstdint>

namespace popsim::pipeline {

/// The process's peak resident memory so far (getrusage's maximum resident set size).
std::uint64_t peak_memory_bytes();
/// Its resident memory now (/proc/self/statm; 0 where that is not readable).
std::uint64_t resident_memory_bytes();

} // namespace popsim::pipeline

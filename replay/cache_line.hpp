// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The cache line, for data laid out by it (x86-64's and most ARM cores'; a constant, not
// std::hardware_destructive_interference_size, whose value GCC warns may change between builds).
//
// Two uses: a thread's state that each record touches, packed into one line (alignas), and the
// objects of a pipeline's stages that run side by side (the reader's builder and summaries, the
// streaming replay, the live replays and their networks), each on lines of its own. Without the
// second, a stage that writes its object on every record takes the line from the core that reads
// its neighbour (false sharing): apart, a 4-network `whatif` took a tenth less CPU
// (bench/README.md, session 40).
#include <cstddef>

namespace popsim::replay {

inline constexpr std::size_t k_cache_line = 64;

} // namespace popsim::replay

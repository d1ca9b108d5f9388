// SPDX-License-Identifier: BSD-3-Clause
#include "replay/time.hpp"

#include <fmt/format.h>

namespace popsim {

void time_overflow(double ns, std::string_view what) {
    throw TimeOverflow(fmt::format("{} lasts {:g} ns, past 2^62 ns (146 years), the longest time "
                                   "popsim replays: an input out of range?",
                                   what, ns));
}

Time add_times(Time a, Time b) {
    if (a > k_max_time - b) {
        throw TimeOverflow(fmt::format("the replay passes 2^62 ns (146 years), the longest time "
                                       "popsim replays ({} ns + {} ns): an input out of range?",
                                       a, b));
    }
    return a + b;
}

Time scale_time(Time t, std::uint64_t n) {
    if (n > 0 && static_cast<std::uint64_t>(t) > static_cast<std::uint64_t>(k_max_time) / n) {
        throw TimeOverflow(fmt::format("the replay passes 2^62 ns (146 years), the longest time "
                                       "popsim replays ({} ns times {}): an input out of range?",
                                       t, n));
    }
    return t * static_cast<Time>(n);
}

} // namespace popsim

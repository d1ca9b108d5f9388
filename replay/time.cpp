// SPDX-License-Identifier: BSD-3-Clause
#include "replay/time.hpp"

#include <fmt/format.h>

namespace popsim {

namespace {

/// "2^62 ns (146 years), the longest time popsim replays", for a clock of `ticks_per_ns`.
std::string longest_replay(Time ticks_per_ns) {
    if (ticks_per_ns == 1) return "2^62 ns (146 years), the longest time popsim replays";
    const double days = static_cast<double>(k_max_time / ticks_per_ns) * 1e-9 / 86400;
    return fmt::format("2^62/{} ns ({:.0f} days), the longest time popsim replays where it "
                       "counts fractions of a ns",
                       ticks_per_ns, days);
}

double in_ns(Time ticks, Time ticks_per_ns) {
    return static_cast<double>(ticks) / static_cast<double>(ticks_per_ns);
}

} // namespace

void time_overflow(double ns, std::string_view what, Time ticks_per_ns) {
    throw TimeOverflow(fmt::format("{} lasts {:g} ns, past {}: an input out of range?", what, ns,
                                   longest_replay(ticks_per_ns)));
}

Time add_times(Time a, Time b, Time ticks_per_ns) {
    if (a > k_max_time - b) {
        throw TimeOverflow(fmt::format("the replay passes {} ({:g} ns + {:g} ns): an input out of "
                                       "range?",
                                       longest_replay(ticks_per_ns), in_ns(a, ticks_per_ns),
                                       in_ns(b, ticks_per_ns)));
    }
    return a + b;
}

Time scale_time(Time t, std::uint64_t n, Time ticks_per_ns) {
    if (n > 0 && static_cast<std::uint64_t>(t) > static_cast<std::uint64_t>(k_max_time) / n) {
        throw TimeOverflow(fmt::format("the replay passes {} ({:g} ns times {}): an input out of "
                                       "range?",
                                       longest_replay(ticks_per_ns), in_ns(t, ticks_per_ns), n));
    }
    return t * static_cast<Time>(n);
}

} // namespace popsim

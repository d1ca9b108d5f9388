#include "replay/time.hpp"

#include <cmath>
#include <fmt/format.h>

namespace popsim {

Time to_time(double ns, std::string_view what) {
    if (!(ns >= 0 && ns <= static_cast<double>(k_max_time))) {
        throw TimeOverflow(fmt::format("{} lasts {:g} ns, past 2^62 ns (146 years), the longest "
                                       "time popsim replays: an input out of range?",
                                       what, ns));
    }
    return static_cast<Time>(std::llround(ns));
}

Time add_times(Time a, Time b) {
    if (a > k_max_time - b) {
        throw TimeOverflow(fmt::format("the replay passes 2^62 ns (146 years), the longest time "
                                       "popsim replays ({} ns + {} ns): an input out of range?",
                                       a, b));
    }
    return a + b;
}

} // namespace popsim

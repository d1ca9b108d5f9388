// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Simulated and traced time: integer nanoseconds, never floating point, so replays are exact and
// reproducible. Paraver traces in other units are converted to ns on reading.
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace popsim {

using Time = std::int64_t; // nanoseconds

inline constexpr Time k_ns_per_us = 1'000;
inline constexpr Time k_ns_per_ms = 1'000'000;
inline constexpr Time k_ns_per_s = 1'000'000'000;

/// The longest time popsim takes from its inputs (2^62 ns, 146 years): sums of two such times
/// still fit in Time.
inline constexpr Time k_max_time = Time{1} << 62;

/// A time computed from the inputs passes k_max_time: a bandwidth or CPU ratio near 0, a message
/// of exabytes. No run lasts 146 years; the inputs are out of range, and the replay stops rather
/// than wrap around to a negative time.
class TimeOverflow : public std::overflow_error {
  public:
    using std::overflow_error::overflow_error;
};

/// Throws TimeOverflow: `what` lasts `ns`, past k_max_time ticks of a replay clock counting
/// `ticks_per_ns` per ns (or NaN).
[[noreturn]] void time_overflow(double ns, std::string_view what, Time ticks_per_ns = 1);

/// `ticks` (of a replay clock counting `ticks_per_ns` per ns) rounded to Time; TimeOverflow
/// naming `describe()` when it is not in [0, k_max_time] (or NaN). The description is made only
/// then: a replay converts millions of times.
template <std::invocable Describe>
Time round_ticks(double ticks, Time ticks_per_ns, Describe describe) {
    if (!(ticks >= 0 && ticks <= static_cast<double>(k_max_time)))
        time_overflow(ticks / static_cast<double>(ticks_per_ns), describe(), ticks_per_ns);
    return static_cast<Time>(std::llround(ticks));
}

/// `ns` rounded to Time; TimeOverflow naming `describe()` when it is not in [0, k_max_time].
template <std::invocable Describe> Time to_time(double ns, Describe describe) {
    return round_ticks(ns, 1, describe);
}

/// a + b for a, b in [0, k_max_time] (ticks of a clock counting `ticks_per_ns` per ns);
/// TimeOverflow past k_max_time.
Time add_times(Time a, Time b, Time ticks_per_ns = 1);

/// t * n for t in [0, k_max_time]; TimeOverflow past k_max_time.
Time scale_time(Time t, std::uint64_t n, Time ticks_per_ns = 1);

/// `count` units of `ns_per_unit` ns (a Paraver time in its header's unit) in ns; nullopt when
/// that overflows 64-bit ns. Inline, and a checked multiplication rather than a division by the
/// unit: the reader converts two times per record.
inline std::optional<Time> units_to_ns(std::uint64_t count, Time ns_per_unit) {
    Time ns = 0;
    if (count > static_cast<std::uint64_t>(std::numeric_limits<Time>::max()) ||
        __builtin_mul_overflow(static_cast<Time>(count), ns_per_unit, &ns))
        return std::nullopt;
    return ns;
}

} // namespace popsim

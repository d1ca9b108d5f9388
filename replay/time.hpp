#pragma once
// Simulated and traced time: integer nanoseconds, never floating point, so replays are exact and
// reproducible. Paraver traces in other units are converted to ns on reading.
#include <cstdint>

namespace popsim {

using Time = std::int64_t; // nanoseconds

inline constexpr Time k_ns_per_us = 1'000;
inline constexpr Time k_ns_per_ms = 1'000'000;
inline constexpr Time k_ns_per_s = 1'000'000'000;

/// The longest time popsim takes from its inputs (2^62 ns, 146 years): sums of two such times
/// still fit in Time.
inline constexpr Time k_max_time = Time{1} << 62;

} // namespace popsim

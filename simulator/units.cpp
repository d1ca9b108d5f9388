#include "simulator/units.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>
#include <string>

namespace popsim::simulator {

namespace {

struct Unit {
    std::string_view suffix;
    double factor;
};

/// A non-negative number followed by one of `units` (longest suffixes first) or none (factor 1).
template <std::size_t N> double parse_with_units(std::string_view text, const Unit (&units)[N], const char* what, const char* forms) {
    double factor = 1;
    std::string_view number = text;
    for (const auto& u : units) {
        if (number.size() > u.suffix.size() && number.ends_with(u.suffix)) {
            factor = u.factor;
            number.remove_suffix(u.suffix.size());
            break;
        }
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc{} || end != number.data() + number.size() || value < 0 || !std::isfinite(value)) {
        throw std::invalid_argument(fmt::format("'{}' is not a {} (e.g. {})", text, what, forms));
    }
    return value * factor;
}

} // namespace

Time parse_time(std::string_view text) {
    static constexpr Unit units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    return static_cast<Time>(std::llround(parse_with_units(text, units, "time", "5us, 1.5ms, 2s, 300ns")));
}

double parse_bandwidth_mbps(std::string_view text) {
    if (text == "inf") return 0;
    constexpr double mib = 1024.0 * 1024.0;
    static constexpr Unit units[] = {{"GiB/s", 1024.0}, {"MiB/s", 1.0}, {"KiB/s", 1.0 / 1024},     {"GB/s", 1e9 / mib},
                                     {"MB/s", 1e6 / mib}, {"KB/s", 1e3 / mib}, {"B/s", 1.0 / mib}};
    return parse_with_units(text, units, "bandwidth", "10GB/s, 500MiB/s, inf, or Dimemas MB/s as a number");
}

std::uint64_t parse_bytes(std::string_view text) {
    static constexpr Unit units[] = {{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"KB", 1e3}, {"MB", 1e6},
                                     {"GB", 1e9},     {"k", 1024.0},      {"K", 1024.0},         {"M", 1048576.0}, {"B", 1}};
    return static_cast<std::uint64_t>(std::llround(parse_with_units(text, units, "size", "64KiB, 32k, 1MB, 4096")));
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/options/units.hpp"

#include "replay/units.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace popsim::pipeline {

namespace {

using replay::UnitSuffix;

double quantity_or_throw(std::string_view text, std::span<const UnitSuffix> units, const char* what,
                         const char* forms) {
    const auto v = replay::parse_quantity(text, units);
    if (!v)
        throw std::invalid_argument(fmt::format("'{}' is not a {} (e.g. {})", text, what, forms));
    return *v;
}

} // namespace

/// A bare number other than 0, where a unit is needed: 5 could be ns (popsim's clock) or s (a
/// Dimemas configuration), 100 MB/s of 10^6 or of 2^20 bytes.
bool is_bare_nonzero_number(std::string_view text) {
    const auto v = replay::parse_quantity(text, std::span<const UnitSuffix>{});
    return v && *v != 0;
}

Time parse_time(std::string_view text) {
    if (is_bare_nonzero_number(text)) {
        throw std::invalid_argument(fmt::format("'{}' has no unit: write {}ns, {}us, {}ms or {}s",
                                                text, text, text, text, text));
    }
    const auto t = replay::parse_duration(text);
    if (!t)
        throw std::invalid_argument(
            fmt::format("'{}' is not a time (e.g. 5us, 1.5ms, 2s, 300ns)", text));
    return *t;
}

double parse_bandwidth_mbps(std::string_view text) {
    if (text == "inf") return 0;
    if (is_bare_nonzero_number(text)) {
        throw std::invalid_argument(
            fmt::format("'{}' has no unit: write {}MB/s (10^6 bytes/s) or {}MiB/s (2^20 bytes/s, "
                        "the MB/s of Dimemas configuration files)",
                        text, text, text));
    }
    constexpr double mib = 1024.0 * 1024.0;
    static constexpr UnitSuffix units[] = {
        {"GiB/s", 1024.0},   {"MiB/s", 1.0},      {"KiB/s", 1.0 / 1024}, {"GB/s", 1e9 / mib},
        {"MB/s", 1e6 / mib}, {"KB/s", 1e3 / mib}, {"B/s", 1.0 / mib}};
    return quantity_or_throw(text, units, "bandwidth", "10GB/s, 500MiB/s, inf");
}

std::uint64_t parse_bytes(std::string_view text) {
    static constexpr UnitSuffix units[] = {
        {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"KB", 1e3},      {"MB", 1e6},
        {"GB", 1e9},     {"k", 1024.0},      {"K", 1024.0},         {"M", 1048576.0}, {"B", 1}};
    const double bytes = quantity_or_throw(text, units, "size", "64KiB, 32k, 1MB, 4096");
    constexpr double k_two_to_64 = 18446744073709551616.0;
    if (std::round(bytes) >= k_two_to_64)
        throw std::invalid_argument(fmt::format("'{}' is more than 2^64-1 bytes", text));
    return static_cast<std::uint64_t>(std::round(bytes));
}

namespace {

double positive_ratio(std::string_view text, const char* what, const char* examples) {
    const double ratio = quantity_or_throw(text, std::span<const UnitSuffix>{}, what, examples);
    if (ratio <= 0) throw std::invalid_argument(fmt::format("{} '{}' is not positive", what, text));
    return ratio;
}

} // namespace

double parse_cpu_ratio(std::string_view text) {
    return positive_ratio(text, "CPU ratio", "2 for a CPU twice as fast, 0.5");
}

double parse_speedup(std::string_view text) {
    return positive_ratio(text, "speed-up", "2 for twice as fast, 0.5");
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        out.push_back(text.substr(start, comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

std::string format_duration(Time ns) {
    static constexpr std::pair<double, const char*> k_units[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    if (ns == 0) return "0";
    for (const auto& [scale, unit] : k_units)
        if (static_cast<double>(ns) >= scale)
            return fmt::format("{:g} {}", static_cast<double>(ns) / scale, unit);
    return fmt::format("{} ns", ns);
}

double bandwidth_bytes_per_s(double dimemas_mbps) {
    return dimemas_mbps == 0 ? std::numeric_limits<double>::infinity()
                             : dimemas_mbps * 1024.0 * 1024.0;
}

std::string format_bandwidth(double dimemas_mbps) {
    if (dimemas_mbps == 0) return "inf";
    static constexpr std::pair<double, const char*> k_units[] = {
        {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}, {1, "B/s"}};
    const double bytes = bandwidth_bytes_per_s(dimemas_mbps);
    for (const auto& [scale, unit] : k_units)
        if (bytes >= scale) return fmt::format("{:g} {}", bytes / scale, unit);
    return fmt::format("{:g} B/s", bytes);
}

} // namespace popsim::pipeline

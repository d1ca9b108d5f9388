// SPDX-License-Identifier: BSD-3-Clause
#include "replay/units.hpp"

#include <charconv>
#include <cmath>

namespace popsim::replay {

std::optional<double> parse_quantity(std::string_view text, std::span<const UnitSuffix> units) {
    double factor = 1;
    for (const auto& u : units) {
        if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
            factor = u.factor;
            text.remove_suffix(u.suffix.size());
            break;
        }
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < 0 || !std::isfinite(value))
        return std::nullopt;
    return value * factor;
}

std::optional<Time> parse_duration(std::string_view text) {
    static constexpr UnitSuffix units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    const auto ns = parse_quantity(text, units);
    if (!ns || *ns > static_cast<double>(k_max_time)) return std::nullopt;
    return static_cast<Time>(std::llround(*ns));
}

} // namespace popsim::replay

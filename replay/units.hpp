// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Numbers with unit suffixes, as people write them ("8s", "250ms", "64KiB"): one parser for the
// synthetic-trace language and the command line.
#include "replay/time.hpp"

#include <optional>
#include <span>
#include <string_view>

namespace popsim::replay {

struct UnitSuffix {
    std::string_view suffix;
    double factor;
};

/// A non-negative decimal, optionally followed by one of `units` (tried in order: put longer
/// suffixes first), times that unit's factor; nullopt if the text is not of that form.
std::optional<double> parse_quantity(std::string_view text, std::span<const UnitSuffix> units);

/// "8s", "250ms", "3us", "12ns", or a bare number of ns; nullopt above k_max_time.
std::optional<Time> parse_duration(std::string_view text);

} // namespace popsim::replay

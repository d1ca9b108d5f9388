// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What event types a trace holds and how often, with the .pcf's names: what an analyst looks at
// to pick a region or the event that starts each iteration (`popsim events`).
#include "replay/time.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace popsim::replay {

struct EventTypeCount {
    std::uint32_t type = 0;
    std::uint64_t occurrences = 0; // events with a value other than 0
    Time first = 0;                // of those
    /// Occurrences per value, for the first k_max_values distinct values; hardware counters
    /// (whose values are counts) keep none.
    std::map<std::uint64_t, std::uint64_t> values;
    bool more_values = false; // values past the first k_max_values
    static constexpr std::size_t k_max_values = 256;
};

/// One pass over the trace's records; sorted by type. Throws TraceError naming a bad line.
std::vector<EventTypeCount> event_inventory(const std::string& prv_path);

} // namespace popsim::replay

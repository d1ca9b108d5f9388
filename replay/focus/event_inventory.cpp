// SPDX-License-Identifier: BSD-3-Clause
#include "replay/focus/event_inventory.hpp"

#include "replay/extrae_events.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/input/paraver_header.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/input/parse_error.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <unordered_map>

namespace popsim::replay {

std::vector<EventTypeCount> event_inventory(const std::string& path) {
    LineReader in(path);
    std::string_view line;
    std::unordered_map<std::uint32_t, EventTypeCount> counts;
    try {
        const Time unit = read_header_line(in).ns_per_unit;
        EventRecord event;
        while (in.next(line)) {
            if (!line.starts_with("2:")) continue;
            parse_event_record(line, unit, event);
            for (const auto& p : event.pairs) {
                auto& c = counts[p.type];
                c.type = p.type;
                if (p.value == 0) continue;
                if (c.occurrences++ == 0) c.first = event.time;
                if (extrae::is_counter_type(p.type)) continue;
                if (auto v = c.values.find(p.value); v != c.values.end())
                    ++v->second;
                else if (c.values.size() < EventTypeCount::k_max_values)
                    c.values.emplace(p.value, 1);
                else
                    c.more_values = true;
            }
        }
    } catch (const ParseError& e) {
        throw TraceError(path, in.number(), e.what());
    }
    std::vector<EventTypeCount> out;
    for (auto& [type, c] : counts) out.push_back(std::move(c));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.type < b.type; });
    return out;
}

} // namespace popsim::replay

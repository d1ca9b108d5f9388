// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Parsers for single Paraver body records (state 1, event 2, communication 3), each on the text of
// one line. They check syntax only; the reader checks records against the header.
#include "replay/time.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace popsim::replay {

/// Who wrote a record: CPU (0 = unknown) and the 1-based application, task and thread.
struct RecordOwner {
    std::uint32_t cpu = 0;
    std::uint32_t application = 0;
    std::uint32_t task = 0;
    std::uint32_t thread = 0;
};

struct StateRecord {
    RecordOwner owner;
    Time begin = 0;
    Time end = 0;
    std::uint32_t state = 0;
};

struct EventPair {
    std::uint32_t type = 0;
    std::uint64_t value = 0; // Paraver event values are unsigned 64-bit
};

struct EventRecord {
    RecordOwner owner;
    Time time = 0;
    std::vector<EventPair> pairs; // in line order; a type may repeat
};

struct CommRecord {
    RecordOwner sender;
    Time logical_send = 0;
    Time physical_send = 0;
    RecordOwner receiver;
    Time logical_recv = 0;
    Time physical_recv = 0;
    std::uint64_t size = 0;
    std::uint64_t tag = 0;
};

/// Each parser takes the whole line (starting with its kind digit) and the header's time unit in
/// ns; it throws ParseError naming the bad field.
StateRecord parse_state_record(std::string_view line, Time ns_per_unit);
/// Reuses `out.pairs`' capacity: the hot loop calls it with one record object.
void parse_event_record(std::string_view line, Time ns_per_unit, EventRecord& out);
CommRecord parse_comm_record(std::string_view line, Time ns_per_unit);

} // namespace popsim::replay

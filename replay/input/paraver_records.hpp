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
/// ns; it throws ParseError naming the bad field. They write each field where it goes, as it is
/// read: a record made on the stack and copied into an array stalls the processor, which cannot
/// forward the record's narrow stores to the copy's wide loads (it was the largest cost of
/// parsing, bench/README.md, session 36).
void parse_state_record(std::string_view line, Time ns_per_unit, StateRecord& out);
/// The owner and time into `owner` and `time`; the pairs appended to `pairs`.
void parse_event_record(std::string_view line, Time ns_per_unit, RecordOwner& owner, Time& time,
                        std::vector<EventPair>& pairs);
void parse_comm_record(std::string_view line, Time ns_per_unit, CommRecord& out);

inline StateRecord parse_state_record(std::string_view line, Time ns_per_unit) {
    StateRecord record;
    parse_state_record(line, ns_per_unit, record);
    return record;
}
/// Reuses `out.pairs`' capacity: a loop calls it with one record object.
inline void parse_event_record(std::string_view line, Time ns_per_unit, EventRecord& out) {
    out.pairs.clear();
    parse_event_record(line, ns_per_unit, out.owner, out.time, out.pairs);
}
inline CommRecord parse_comm_record(std::string_view line, Time ns_per_unit) {
    CommRecord record;
    parse_comm_record(line, ns_per_unit, record);
    return record;
}

} // namespace popsim::replay

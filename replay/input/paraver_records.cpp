// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/paraver_records.hpp"

#include "replay/input/field_scanner.hpp"

#include <fmt/format.h>

namespace popsim::replay {

namespace {

using detail::FieldScanner;

void read_owner(FieldScanner& in, RecordOwner& owner) {
    owner.cpu = in.next_u32("cpu");
    owner.application = in.next_u32("application");
    owner.task = in.next_u32("task");
    owner.thread = in.next_u32("thread");
    if (owner.application == 0 || owner.task == 0 || owner.thread == 0) {
        throw ParseError("application, task and thread numbers are 1-based; found 0");
    }
}

Time read_time(FieldScanner& in, Time ns_per_unit, const char* what) {
    const std::uint64_t raw = in.next_uint(what);
    const auto ns = units_to_ns(raw, ns_per_unit);
    if (!ns) throw ParseError(fmt::format("{} {} overflows 64-bit nanoseconds", what, raw));
    return *ns;
}

void expect_end(const FieldScanner& in, const char* kind, unsigned fields) {
    if (!in.at_end()) throw ParseError(fmt::format("{} has more than {} fields", kind, fields));
}

std::string_view strip_cr(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

// Skips the kind digit and its ':'; the caller dispatched on the digit already.
std::string_view body(std::string_view line) {
    return strip_cr(line).substr(line.size() > 1 ? 2 : 1);
}

} // namespace

void parse_state_record(std::string_view line, Time ns_per_unit, StateRecord& out) {
    constexpr const char* k_kind = "state record";
    FieldScanner in(body(line), k_kind);
    read_owner(in, out.owner);
    out.begin = read_time(in, ns_per_unit, "begin time");
    out.end = read_time(in, ns_per_unit, "end time");
    out.state = in.next_u32("state");
    expect_end(in, k_kind, 7);
    if (out.end < out.begin) {
        throw ParseError(
            fmt::format("state record ends before it begins ({} < {})", out.end, out.begin));
    }
}

void parse_event_record(std::string_view line, Time ns_per_unit, RecordOwner& owner, Time& time,
                        std::vector<EventPair>& pairs) {
    constexpr const char* k_kind = "event record";
    FieldScanner in(body(line), k_kind);
    read_owner(in, owner);
    time = read_time(in, ns_per_unit, "time");
    do {
        EventPair& pair = pairs.emplace_back();
        pair.type = in.next_u32("event type");
        pair.value = in.next_uint("event value");
    } while (!in.at_end());
}

void parse_comm_record(std::string_view line, Time ns_per_unit, CommRecord& out) {
    constexpr const char* k_kind = "communication record";
    FieldScanner in(body(line), k_kind);
    read_owner(in, out.sender);
    out.logical_send = read_time(in, ns_per_unit, "logical send time");
    out.physical_send = read_time(in, ns_per_unit, "physical send time");
    read_owner(in, out.receiver);
    out.logical_recv = read_time(in, ns_per_unit, "logical receive time");
    out.physical_recv = read_time(in, ns_per_unit, "physical receive time");
    out.size = in.next_uint("size");
    out.tag = in.next_uint("tag");
    expect_end(in, k_kind, 14);
}

} // namespace popsim::replay

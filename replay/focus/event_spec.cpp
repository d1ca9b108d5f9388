// SPDX-License-Identifier: BSD-3-Clause
#include "replay/focus/event_spec.hpp"

#include "replay/program/mpi_calls.hpp"
#include "replay/text/ignoring_case.hpp"
#include "replay/text/nearest_words.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <optional>
#include <set>

namespace popsim::replay {

bool EventSelector::selects(std::uint64_t value) const {
    return value != 0 &&
           (values.empty() || std::binary_search(values.begin(), values.end(), value));
}

namespace {

template <class Number> std::optional<Number> number(std::string_view s) {
    Number v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

/// A name as the .pcf shows it matches itself, brackets and all ("solve [solve(double*) [clone
/// ._omp_fn.0]]", which as a wildcard pattern would be a character class); else as a pattern.
bool name_matches(const std::string& pattern, const std::string& name) {
    return equal_ignoring_case(pattern, name) ||
           fnmatch(pattern.c_str(), name.c_str(), FNM_CASEFOLD) == 0;
}

std::string type_name(std::uint32_t type, const TraceLabels& labels) {
    for (const auto& [t, name] : labels.event_types)
        if (t == type) return name;
    return fmt::format("event type {}", type);
}

/// The three names of the .pcf closest to `spec` (wildcards dropped), for the error message.
std::vector<std::string> nearest_names(std::string_view spec, const TraceLabels& labels) {
    std::string plain;
    for (char c : spec)
        if (c != '*' && c != '?') plain += c;
    std::vector<std::string> names;
    for (const auto& [type, name] : labels.event_types) names.push_back(name);
    for (const auto& v : labels.event_values) names.push_back(v.name);
    std::sort(names.begin(), names.end()); // ties in the order of the names
    std::vector<std::string> out;
    for (const auto& name : nearest_words(plain, names)) out.push_back(fmt::format("'{}'", name));
    return out;
}

/// What `spec` names: an event type, else values (of `only_type` when given).
EventSelector by_name(const std::string& spec, const TraceLabels& labels,
                      std::optional<std::uint32_t> only_type = std::nullopt) {
    std::vector<std::uint32_t> types;
    for (const auto& [type, name] : labels.event_types) {
        if (!only_type && name_matches(spec, name) &&
            std::find(types.begin(), types.end(), type) == types.end())
            types.push_back(type);
    }
    if (types.size() == 1)
        return {.type = types[0], .values = {}, .description = type_name(types[0], labels)};
    if (types.size() > 1) {
        throw BadEventSpec(fmt::format("'{}' names {} event types ({}): give one, or its number",
                                       spec, types.size(), fmt::join(types, ", ")));
    }
    EventSelector s;
    std::vector<std::string> names;
    std::set<std::uint32_t> value_types;
    for (const auto& v : labels.event_values) {
        if (!name_matches(spec, v.name) || v.value == 0 || (only_type && v.type != *only_type))
            continue;
        value_types.insert(v.type);
        s.type = v.type;
        s.values.push_back(v.value);
        names.push_back(v.name);
    }
    if (value_types.size() > 1) {
        throw BadEventSpec(fmt::format("'{}' names values of {} event types ({}): give "
                                       "TYPE:{} or TYPE:VALUE",
                                       spec, value_types.size(), fmt::join(value_types, ", "),
                                       spec),
                           {value_types.begin(), value_types.end()});
    }
    if (value_types.empty() && only_type) {
        throw BadEventSpec(
            fmt::format("no value of event type {} in the .pcf is named '{}'", *only_type, spec));
    }
    if (value_types.empty()) {
        if (const auto call = mpi_call_by_name(spec)) // traces without a .pcf
            return {.type = call->event_type,
                    .values = {call->id},
                    .description = fmt::format("MPI_{}", call->name)};
        const auto near = nearest_names(spec, labels);
        throw BadEventSpec(
            labels.event_types.empty()
                ? fmt::format("no .pcf names '{}' (there is no .pcf beside the trace): give "
                              "TYPE or TYPE:VALUE",
                              spec)
                : fmt::format("no event type or value of the .pcf is named '{}'{}", spec,
                              near.empty() ? ""
                                           : fmt::format(" (nearest: {})", fmt::join(near, ", "))));
    }
    std::sort(s.values.begin(), s.values.end());
    s.values.erase(std::unique(s.values.begin(), s.values.end()), s.values.end());
    s.description =
        names.size() == 1
            ? fmt::format("{} {} ({}:{})", type_name(s.type, labels), names[0], s.type, s.values[0])
            : fmt::format("{} {} ({} values)", type_name(s.type, labels), spec, s.values.size());
    return s;
}

} // namespace

std::string event_spec_syntax_error(std::string_view spec) {
    if (spec.empty()) return "an empty name: give TYPE, TYPE:VALUE or a name";
    const std::size_t colon = spec.find(':');
    if (colon == std::string_view::npos || !number<std::uint32_t>(spec.substr(0, colon))) return {};
    const auto value_text = spec.substr(colon + 1);
    if (!value_text.empty() && std::isdigit(static_cast<unsigned char>(value_text[0])) == 0)
        return {}; // TYPE:NAME
    const auto value = number<std::uint64_t>(value_text);
    if (!value || *value == 0)
        return fmt::format("'{}': the value after ':' must be a number above 0 (0 ends a region)",
                           spec);
    return {};
}

EventSelector resolve_event_spec(std::string_view spec, const TraceLabels& labels) {
    const std::size_t colon = spec.find(':');
    const auto type = number<std::uint32_t>(spec.substr(0, colon));
    if (type && colon == std::string_view::npos)
        return {.type = *type, .values = {}, .description = type_name(*type, labels)};
    if (type) {
        const auto value_text = spec.substr(colon + 1);
        const auto value = number<std::uint64_t>(value_text);
        if (!value_text.empty() && std::isdigit(static_cast<unsigned char>(value_text[0])) == 0)
            return by_name(std::string(value_text), labels, *type); // TYPE:NAME
        if (const auto error = event_spec_syntax_error(spec); !error.empty())
            throw BadEventSpec(error);
        std::string description = fmt::format("event {}:{}", *type, *value);
        for (const auto& v : labels.event_values) {
            if (v.type == *type && v.value == *value)
                description =
                    fmt::format("{} {} ({}:{})", type_name(*type, labels), v.name, *type, *value);
        }
        return {.type = *type, .values = {*value}, .description = description};
    }
    if (spec.empty()) throw BadEventSpec(event_spec_syntax_error(spec));
    return by_name(std::string(spec), labels);
}

} // namespace popsim::replay

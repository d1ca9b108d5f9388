// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/paraver_labels.hpp"

#include "replay/input/input_file.hpp"
#include "replay/trace_error.hpp"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

namespace popsim::replay {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

template <class Number = std::uint32_t> std::optional<Number> leading_number(std::string_view& s) {
    Number v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    // A number ends at a blank: "5000000x1" is no type 5000000 labelled "x1 ...".
    if (ec != std::errc{} || end == s.data() ||
        (end != s.data() + s.size() && *end != ' ' && *end != '\t'))
        return std::nullopt;
    s = trim(s.substr(static_cast<std::size_t>(end - s.data())));
    return v;
}

bool is_pcf_keyword(std::string_view line) {
    for (std::string_view k : {"DEFAULT_OPTIONS", "DEFAULT_SEMANTIC", "STATES", "STATES_COLOR",
                               "EVENT_TYPE", "VALUES", "GRADIENT_COLOR", "GRADIENT_NAMES"})
        if (line == k) return true;
    return false;
}

/// Reads .pcf text from `in`; `path` names it in errors.
void read_pcf(std::istream& in, const std::string& path, TraceLabels& labels) {
    std::string raw;
    std::string section;
    std::vector<std::uint32_t> block_types; // the EVENT_TYPE block the next VALUES name
    std::uint64_t line_no = 0;
    while (std::getline(in, raw)) {
        ++line_no;
        if (raw.find('\0') != std::string::npos)
            throw TraceError(path, line_no, "binary data (a NUL byte): not a Paraver .pcf");
        std::string_view line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        if (section.empty() && !is_pcf_keyword(line))
            throw TraceError(path, line_no,
                             "not a Paraver .pcf: text before its first section (DEFAULT_OPTIONS, "
                             "STATES, EVENT_TYPE, ...)");
        if (is_pcf_keyword(line)) {
            if (line == "EVENT_TYPE") block_types.clear();
            section = line;
            continue;
        }
        if (section == "STATES") {
            const auto value = leading_number(line);
            if (!value)
                throw TraceError(path, line_no, "STATES line does not start with a state number");
            labels.states.emplace_back(*value, std::string(line));
        } else if (section == "EVENT_TYPE") {
            const auto gradient = leading_number(line);
            const auto type = gradient ? leading_number(line) : std::nullopt;
            if (!type)
                throw TraceError(path, line_no,
                                 "EVENT_TYPE line is not '<gradient> <type> <label>'");
            labels.event_types.emplace_back(*type, std::string(line));
            block_types.push_back(*type);
        } else if (section == "VALUES") {
            const auto value = leading_number<std::uint64_t>(line);
            if (!value) throw TraceError(path, line_no, "VALUES line is not '<value> <label>'");
            for (const auto type : block_types)
                labels.event_values.push_back({type, *value, std::string(line)});
        }
    }
}

void read_pcf_file(const std::string& path, TraceLabels& labels) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(path, 0, "cannot open");
    read_pcf(in, path, labels);
    if (in.bad()) throw TraceError(path, 0, "read error");
}

void read_row(const std::string& path, std::uint32_t thread_count, TraceLabels& labels) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(path, 0, "cannot open");
    std::string raw;
    std::uint64_t line_no = 0;
    std::uint32_t remaining = 0;
    bool in_threads = false;
    std::uint64_t threads_line = 0; // of the LEVEL THREAD line
    while (std::getline(in, raw)) {
        ++line_no;
        const std::string_view line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        if (remaining == 0) {
            unsigned size = 0;
            char level[32] = {};
            if (std::sscanf(std::string(line).c_str(), "LEVEL %31s SIZE %u", level, &size) != 2) {
                throw TraceError(path, line_no, "expected 'LEVEL <name> SIZE <n>'");
            }
            remaining = size;
            in_threads = std::string_view(level) == "THREAD";
            if (in_threads) threads_line = line_no;
            continue;
        }
        --remaining;
        if (in_threads) labels.thread_names.emplace_back(line);
    }
    if (!labels.thread_names.empty() && labels.thread_names.size() != thread_count) {
        throw TraceError(path, threads_line,
                         fmt::format("LEVEL THREAD lists {} threads, but the trace has {}",
                                     labels.thread_names.size(), thread_count));
    }
}

} // namespace

TraceLabels read_pcf_labels(const std::string& base) {
    TraceLabels labels;
    const std::string pcf = base + ".pcf";
    if (readable_input_file(pcf)) read_pcf_file(pcf, labels);
    return labels;
}

TraceLabels parse_pcf_text(const std::string& text, const std::string& name) {
    TraceLabels labels;
    std::istringstream in(text);
    read_pcf(in, name, labels);
    return labels;
}

TraceLabels read_paraver_labels(const std::string& base, std::uint32_t thread_count,
                                WarningLog& warnings) {
    TraceLabels labels;
    const std::string pcf = base + ".pcf";
    const std::string row = base + ".row";
    if (readable_input_file(pcf)) {
        read_pcf_file(pcf, labels);
    } else {
        warnings.add("missing-pcf",
                     "no .pcf beside the trace; states and events keep their numbers "
                     "as names",
                     pcf);
    }
    if (readable_input_file(row)) {
        read_row(row, thread_count, labels);
    } else {
        warnings.add("missing-row", "no .row beside the trace; threads are named by their numbers",
                     row);
    }
    return labels;
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/options/focus.hpp"

#include "pipeline/options/units.hpp"
#include "replay/extrae_events.hpp"
#include "replay/focus/focus_windows.hpp"
#include "replay/focus/trace_window.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/input/parse_error.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace popsim::pipeline {

RegionResolution resolve_region(const std::string& path, const std::string& option,
                                const std::string& spec) {
    const auto labels = replay::read_trace_labels(path);
    try {
        return {spec, replay::resolve_event_spec(spec, labels), {}, {}};
    } catch (const replay::BadEventSpec& e) {
        const std::string error = fmt::format("{}: {}", option, e.what());
        // Named after the file that holds the names: the .pcf, or the archive itself.
        const bool pcf = !labels.event_types.empty() && !replay::is_otf2_anchor(path);
        if (e.types().empty())
            throw replay::TraceError(pcf ? replay::trace_base_name(path) + ".pcf" : path, 0, error);
        return {spec, std::nullopt, e.types(), error};
    }
}

std::vector<std::uint32_t> RegionResolution::event_types() const {
    if (selector) {
        if (replay::extrae::is_mpi_call_type(selector->type)) return {};
        return {selector->type};
    }
    return candidate_types;
}

replay::EventSelector settle_region(const replay::Trace& trace, const RegionResolution& r) {
    if (r.selector) return *r.selector;
    const std::string& spec = r.spec;
    const auto labels = replay::read_trace_labels(trace.path);
    std::vector<std::uint32_t> present;
    std::optional<replay::EventSelector> chosen;
    for (const auto type : r.candidate_types) {
        auto selector = replay::resolve_event_spec(fmt::format("{}:{}", type, spec), labels);
        const bool held = std::ranges::any_of(trace.threads, [&](const auto& t) {
            const auto* s = t.series(type);
            return s != nullptr && std::ranges::any_of(s->value, [&](std::uint64_t v) {
                       return selector.selects(v);
                   });
        });
        if (!held) continue;
        present.push_back(type);
        chosen = std::move(selector);
    }
    if (present.size() != 1) {
        throw replay::TraceError(trace.path, 0,
                                 fmt::format("{}; the trace has such events of {}", r.error,
                                             present.empty()
                                                 ? std::string("none of them")
                                                 : fmt::format("{}", fmt::join(present, ", "))));
    }
    return *chosen;
}

namespace {

Time parse_edge(const std::string& path, const char* option, const std::string& text) {
    try {
        return parse_time(text);
    } catch (const std::invalid_argument& e) {
        throw replay::TraceError(path, 0, fmt::format("{} {}: {}", option, text, e.what()));
    }
}

/// The end a trace's header declares (a window is read, not cut from the whole trace).
Time declared_end(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) { // its header would be consumed here
        throw replay::TraceError(path, 0,
                                 "--from/--to read the trace twice (its header, then the window): "
                                 "give a file, not a pipe");
    }
    if (replay::is_otf2_anchor(path)) return replay::Otf2Archive(path).header().end_time;
    replay::LineReader in(path);
    try {
        return replay::read_header_line(in).end_time;
    } catch (const replay::ParseError& e) {
        throw replay::TraceError(path, in.number(), e.what());
    }
}

TraceFocus window_focus(const std::string& path, const FocusOptions& o) {
    const Time end = declared_end(path);
    const Time from = o.from.empty() ? 0 : parse_edge(path, "--from", o.from);
    const Time to = o.to.empty() ? end : parse_edge(path, "--to", o.to);
    if (o.to.empty() && from >= end) {
        throw replay::TraceError(path, 0,
                                 fmt::format("--from {} is at or after the trace's end, {}",
                                             replay::seconds(from), replay::seconds(end)));
    }
    if (from >= to) {
        throw replay::TraceError(path, 0,
                                 fmt::format("--from {} is not before --to {}: the window is empty",
                                             replay::seconds(from), replay::seconds(to)));
    }
    if (to > end) {
        throw replay::TraceError(
            path, 0,
            fmt::format("the window [{}, {}) ends after the trace, which lasts {}{}",
                        replay::seconds(from), replay::seconds(to), replay::seconds(end),
                        o.to.empty() ? "" : " (leave --to out to analyse up to the end)"));
    }
    return {.path = path,
            .kind = TraceFocus::Kind::window,
            .selector = std::nullopt,
            .parts = {{.label = "", .window = {.from = from, .to = to}}},
            .description =
                fmt::format("window [{}, {})", replay::seconds(from), replay::seconds(to))};
}

[[noreturn]] void no_occurrence(const replay::Trace& trace, const std::string& option,
                                const replay::EventSelector& s) {
    const std::string values = s.values.empty() ? "a value other than 0"
                               : s.values.size() == 1
                                   ? fmt::format("value {}", s.values[0])
                                   : fmt::format("one of its {} values", s.values.size());
    throw replay::TraceError(
        trace.path, 0,
        fmt::format("{}: no thread enters {}: the trace has no event of type {} with {}", option,
                    s.description, s.type, values));
}

TraceFocus region_focus(const replay::Trace& trace, const replay::EventSelector& s) {
    const auto instances = replay::region_instances(trace, s);
    if (instances.windows.empty()) no_occurrence(trace, "--region", s);
    TraceFocus f{.path = trace.path,
                 .kind = TraceFocus::Kind::region,
                 .selector = s,
                 .parts = {},
                 .description = {}};
    for (std::size_t k = 0; k < instances.windows.size(); ++k)
        f.parts.push_back({.label = std::to_string(k + 1), .window = instances.windows[k]});
    f.description = fmt::format("region {}: {} instance{}", s.description, f.parts.size(),
                                f.parts.size() == 1 ? "" : "s");
    // Instance k is every thread's k-th span: with uneven counts, the last ones are partial.
    if (instances.fewest != instances.most) {
        f.description += fmt::format(" (its {} threads enter it {} to {} times: instances are "
                                     "matched by their order on each thread)",
                                     instances.threads_inside, instances.fewest, instances.most);
    }
    return f;
}

TraceFocus phases_focus(const replay::Trace& trace, const replay::EventSelector& s) {
    const auto phases = replay::phase_windows(trace, s);
    if (replay::region_instances(trace, s).windows.empty()) no_occurrence(trace, "--phases", s);
    TraceFocus f{.path = trace.path,
                 .kind = TraceFocus::Kind::phases,
                 .selector = s,
                 .parts = {},
                 .description = {}};
    for (std::size_t k = 0; k < phases.size(); ++k)
        f.parts.push_back({.label = std::to_string(k + 1), .window = phases[k]});
    f.description = fmt::format("{} phases split at {}", f.parts.size(), s.description);
    return f;
}

} // namespace

std::uint32_t resolve_event_type(const std::string& path, const std::string& option,
                                 const std::string& spec) {
    const auto r = resolve_region(path, option, spec);
    if (!r.selector) {
        throw replay::TraceError(replay::trace_base_name(path) + ".pcf", 0,
                                 fmt::format("{}; give TYPE:{}", r.error, spec));
    }
    return r.selector->type;
}

FocusedTrace read_focused(const std::string& path, const FocusOptions& o,
                          replay::ReadOptions read) {
    if (o.window()) { // read the window alone, as `popsim cut` would cut it
        TraceFocus focus = window_focus(path, o);
        read.window = focus.parts.front().window;
        return {.trace = replay::read_paraver(path, read), .focus = std::move(focus)};
    }
    const std::string& spec = o.region.empty() ? o.phases : o.region;
    RegionResolution resolution;
    if (!spec.empty())
        resolution = resolve_region(path, o.region.empty() ? "--phases" : "--region", spec);
    if (o.any()) read.tracked_event_types = replay::focus_event_types(read.tracked_event_types);
    for (const auto type : resolution.event_types()) read.tracked_event_types.push_back(type);
    FocusedTrace out{.trace = replay::read_paraver(path, read), .focus = {}};
    if (!o.region.empty())
        out.focus = region_focus(out.trace, settle_region(out.trace, resolution));
    if (!o.phases.empty())
        out.focus = phases_focus(out.trace, settle_region(out.trace, resolution));
    out.focus.path = path;
    return out;
}

} // namespace popsim::pipeline

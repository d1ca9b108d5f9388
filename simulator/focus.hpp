// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The focus of analysis (docs/focus.md): `--from/--to` windows, `--region` instances and
// `--phases`, resolved against each trace.
#include "replay/focus/event_spec.hpp"
#include "replay/focus/time_window.hpp"
#include "replay/input/paraver_reader.hpp"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace popsim::simulator {

struct FocusOptions {
    std::string from, to; // times as users type them ("2.5s"); empty: the trace's start, end
    std::string region;   // --region SPEC
    std::string phases;   // --phases SPEC
    bool any() const { return !from.empty() || !to.empty() || !region.empty() || !phases.empty(); }
    bool window() const { return !from.empty() || !to.empty(); }
};

/// --from and --to.
void add_window_options(CLI::App* command, FocusOptions& options);
/// --from, --to, --region and --phases (one of the three kinds at a time).
void add_focus_options(CLI::App* command, FocusOptions& options);

/// One window the focus names, in the trace's time.
struct FocusPart {
    std::string label; // "1", "2", ... (phases and instances), or "" for a lone window
    replay::TimeWindow window;
};

struct TraceFocus {
    std::string path; // of the trace
    enum class Kind { whole, window, region, phases } kind = Kind::whole;
    std::optional<replay::EventSelector> selector;
    std::vector<FocusPart> parts;
    std::string description; // "region User function solve (60000019:3), 10 instances"
};

/// The event type `spec` (as --region's SPEC) names in the .pcf beside `path`, for `option`; a
/// name that fits several types, or none, is a TraceError naming the .pcf.
std::uint32_t resolve_event_type(const std::string& path, const std::string& option,
                                 const std::string& spec);

/// The trace read with what the focus needs (counter reads, the region's event type), and where
/// the focus lies in it; with --from/--to, the window alone (read as `popsim cut` cuts it, in one
/// pass). Bad specifications are TraceErrors naming the trace.
struct FocusedTrace {
    replay::Trace trace;
    TraceFocus focus;
};
FocusedTrace read_focused(const std::string& path, const FocusOptions& options,
                          replay::ReadOptions read);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The focus of analysis (docs/focus.md): `--from/--to` windows, `--region` instances and
// `--phases`, resolved against each trace.
#include "replay/focus/event_spec.hpp"
#include "replay/focus/time_window.hpp"
#include "replay/input/paraver_reader.hpp"

#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

struct FocusOptions {
    std::string from, to; // times as users type them ("2.5s"); empty: the trace's start, end
    std::string region;   // --region SPEC
    std::string phases;   // --phases SPEC
    bool any() const { return !from.empty() || !to.empty() || !region.empty() || !phases.empty(); }
    bool window() const { return !from.empty() || !to.empty(); }
};

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

/// What a code region SPEC (as --region's) names, from the .pcf beside a trace. A name that fits
/// the values of several event types (Extrae lists OpenMP functions once for four types) is
/// settled by the trace: the types it holds.
struct RegionResolution {
    std::string spec;
    std::optional<replay::EventSelector> selector;
    std::vector<std::uint32_t> candidate_types; // when the .pcf alone could not settle it
    std::string error;                          // for them, if the trace does not settle it
    /// The event types the trace must be read with (ReadOptions::tracked_event_types).
    std::vector<std::uint32_t> event_types() const;
};

/// SPEC resolved for `option` from the names beside the trace at `path`; a name that fits none is
/// a TraceError naming the .pcf (or the OTF2 archive).
RegionResolution resolve_region(const std::string& path, const std::string& option,
                                const std::string& spec);

/// The region a resolution names in `trace` (read with its event_types): a name that fits the
/// values of several types must fit those of exactly one type the trace holds, else TraceError.
replay::EventSelector settle_region(const replay::Trace& trace, const RegionResolution& r);

/// The trace read with what the focus needs (counter reads, the region's event type), and where
/// the focus lies in it; with --from/--to, the window alone (read as `popsim cut` cuts it, in one
/// pass). Bad specifications are TraceErrors naming the trace.
struct FocusedTrace {
    replay::Trace trace;
    TraceFocus focus;
};
FocusedTrace read_focused(const std::string& path, const FocusOptions& options,
                          replay::ReadOptions read);

} // namespace popsim::pipeline

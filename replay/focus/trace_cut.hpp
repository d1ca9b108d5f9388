// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// `popsim cut`: writes the part of a Paraver trace in a time window as a trace of its own, with
// every record of the window (not only those popsim analyses), the .pcf and .row copied, and the
// cutter's mark after the header that Paraver reads (`#date:CUTTER:ORIGINAL:"path":...`).
#include "replay/focus/time_window.hpp"
#include "replay/trace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::replay {

struct CutCounts {
    std::uint64_t lines_read = 0;
    std::uint64_t records_written = 0;
};

/// Streams `prv_path` once. The trace must be one popsim reads (read it first: this pass checks
/// only what the cut needs); throws TraceError naming the line otherwise, OutputError when the
/// output cannot be written (then no output is left).
/// `before`: collectives_before() of the window (written after the header, where popsim's reader
/// finds it: `#popsim:collectives-before-cut:APP:TASK:COMM:CALLS`, COMM `-` for the default).
CutCounts cut_paraver(const std::string& prv_path, TimeWindow window, const std::string& out_prv,
                      const std::vector<CollectivesBeforeCut>& before);

/// What a trace cut from `path` in `window` carries after its header: Paraver's cutter mark, then
/// `before` as cut_paraver writes it. A simulated trace of a window carries them too, so that its
/// collectives cut by the window's edges are read as a cut's.
std::string cut_marks(const std::string& path, TimeWindow window,
                      const std::vector<CollectivesBeforeCut>& before);

/// The line after a cut's header that carries collectives_before() (one per task and
/// communicator), and its parser: nullopt for other lines; throws ParseError on a malformed one.
inline constexpr std::string_view k_collectives_before_cut_mark = "#popsim:collectives-before-cut:";
std::optional<CollectivesBeforeCut> parse_collectives_before_cut(std::string_view line);

/// The cutter's mark `#DATE:CUTTER:ORIGINAL:"PATH":OFFSET:BEGIN:END` (times in the trace's unit):
/// nullopt for other lines.
struct CutterMark {
    Time offset = 0, begin = 0, end = 0;
};
std::optional<CutterMark> parse_cutter_mark(std::string_view line);

/// The path of a trace's companion file: `run.prv.gz` -> `run.pcf` for ".pcf".
std::string companion_path(const std::string& prv_path, const std::string& extension);

} // namespace popsim::replay

#pragma once
// `popsim cut`: writes the part of a Paraver trace in a time window as a trace of its own, with
// every record of the window (not only those popsim analyses), the .pcf and .row copied, and the
// cutter's mark after the header that Paraver reads (`#date:CUTTER:ORIGINAL:"path":...`).
#include "replay/focus/time_window.hpp"

#include <cstdint>
#include <string>

namespace popsim::replay {

struct CutCounts {
    std::uint64_t lines_read = 0;
    std::uint64_t records_written = 0;
};

/// Streams `prv_path` once. The trace must be one popsim reads (read it first: this pass checks
/// only what the cut needs); throws TraceError naming the line otherwise, OutputError when the
/// output cannot be written (then no output is left).
CutCounts cut_paraver(const std::string& prv_path, TimeWindow window, const std::string& out_prv);

/// The path of a trace's companion file: `run.prv.gz` -> `run.pcf` for ".pcf".
std::string companion_path(const std::string& prv_path, const std::string& extension);

} // namespace popsim::replay

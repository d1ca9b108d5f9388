// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The .pcf (state and event names) and .row (thread names) files that accompany a .prv.
#include "replay/trace.hpp"
#include "replay/warnings.hpp"

#include <string>
#include <vector>

namespace popsim::replay {

/// Reads `base.pcf` and `base.row`. A missing file adds a warning and leaves its labels empty; a
/// malformed one throws TraceError with its line.
TraceLabels read_paraver_labels(const std::string& base, std::uint32_t thread_count,
                                WarningLog& warnings);
/// The names of `base.pcf` alone (states, event types and values), to look up names before the
/// trace is read; empty when there is no .pcf. Throws TraceError on a malformed one.
TraceLabels read_pcf_labels(const std::string& base);
/// The names in .pcf text (popsim's standard .pcf); `name` names it in errors.
TraceLabels parse_pcf_text(const std::string& text, const std::string& name);

} // namespace popsim::replay

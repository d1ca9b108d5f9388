// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The warnings about a trace in the JSON reports, every instance (pipeline/console/diagnostics.hpp
// prints them on stderr, one line per kind).
#include "replay/trace.hpp"
#include "replay/warnings.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

/// Adds to `log` the warning that the efficiencies `values` (each "TE 140.00%") lie outside
/// 0-100 %, and what that says about the records; nothing when `values` is empty.
void add_out_of_range_warning(const std::vector<std::string>& values, replay::WarningLog& log);
/// Adds to `log` the warning that the predicted efficiencies `values` (each "PE, TE", or
/// "latency 1us: PE, TE") are undefined, and why; nothing when `values` is empty.
void add_undefined_warning(const std::vector<std::string>& values, replay::WarningLog& log);

/// [{"kind", "count", "message", "instances"}, ...]
nlohmann::json warnings_json(const replay::WarningLog& log);

/// {"backward_records", "cancelled_receives", ...}: what the reader re-paired.
nlohmann::json repairs_json(const replay::CommunicationRepairs& r);

} // namespace popsim::simulator

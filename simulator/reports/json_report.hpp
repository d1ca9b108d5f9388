// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Every number of an analysis as JSON, with units in the key names (_ns, _us, _ghz; efficiencies
// are fractions).
#include "metrics/scaling.hpp"
#include "pipeline/trace_pass.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace popsim::simulator {

/// The version of the JSON reports' layout, described by docs/popsim-1.schema.json: a report that
/// keeps it keeps every key of that schema (new keys may appear).
inline constexpr const char* k_json_schema = "popsim/1";

/// What every JSON report starts with: {"schema", "popsim_version", "command"}.
nlohmann::json report_header(const char* command);

/// {"streamed", "in_memory_because" (null when streaming was not tried), "mpi_processes"}.
nlohmann::json pass_json(const pipeline::TracePass& pass);

nlohmann::json series_to_json(const metrics::SeriesAnalysis& series);

/// The text of a JSON report as written to a file: indented, ending with a newline, with the
/// process's peak memory so far (`peak_memory_bytes`). Paths that are not UTF-8 (file names are
/// bytes on Linux) get U+FFFD for their invalid bytes instead of failing the report.
std::string report_text(nlohmann::json report);

} // namespace popsim::simulator

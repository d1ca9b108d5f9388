// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How popsim shows the warnings about a trace: one line per kind on stderr, every instance in
// the JSON reports.
#include "replay/trace.hpp"
#include "replay/warnings.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

/// "popsim: warning: PATH: LINE" per kind, on stderr; nothing with --quiet.
void print_warnings(const std::string& path, const replay::WarningLog& log);
/// The warnings of a series, `logs[i]` about `paths[i]`: a warning that several traces share
/// (the same kind and words, counts aside) once, naming them with their counts; the others as
/// print_warnings does.
void print_series_warnings(const std::vector<std::string>& paths,
                           const std::vector<replay::WarningLog>& logs);
/// "popsim: warning: MESSAGE" on stderr, for a warning about the command rather than a trace;
/// nothing with --quiet.
void print_warning(const std::string& message);

/// "popsim: note: MESSAGE" on stderr: what popsim chose for the user (a model, the traces of a
/// folder), which the reports show too; nothing with --quiet.
void print_note(const std::string& message);

/// Adds to `log` the warning that the efficiencies `values` (each "TE 140.00%") lie outside
/// 0-100 %, and what that says about the records; nothing when `values` is empty.
void add_out_of_range_warning(const std::vector<std::string>& values, replay::WarningLog& log);

/// [{"kind", "count", "message", "instances"}, ...]
nlohmann::json warnings_json(const replay::WarningLog& log);

/// {"backward_records", "cancelled_receives", ...}: what the reader re-paired.
nlohmann::json repairs_json(const replay::CommunicationRepairs& r);

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How popsim tells the user about a trace and its choices as it works: one line per kind of
// warning on stderr (every instance goes to the JSON reports), nothing with --quiet.
#include "replay/warnings.hpp"

#include <string>
#include <vector>

namespace popsim::pipeline {

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

} // namespace popsim::pipeline

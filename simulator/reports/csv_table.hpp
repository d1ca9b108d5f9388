// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim's own CSV tables (whatif --csv, --root-causes-csv) in one dialect, RFC 4180 as
// pandas.read_csv and spreadsheets read it without options: ',' between fields, a header row of
// snake_case names with units (runtime_ns), '.' for decimals, a field quoted when it holds a comma,
// a quote or a line break, an undefined number as an empty field. Files in another tool's layout
// keep that tool's dialect: modelfactors' (--csv, --parts-csv: ';', percentages) and PyPOP's
// (--model openmp --csv). docs/file-formats.md lists each file.
#include <string>
#include <vector>

namespace popsim::simulator {

/// `text` as one field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);
/// The fields joined by ',' (each through csv_field), ended by a newline.
std::string csv_line(const std::vector<std::string>& fields);

} // namespace popsim::simulator

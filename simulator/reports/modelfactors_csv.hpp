// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// BSC modelfactors' CSV layout: ';'-separated, efficiencies in % with 6 decimals, raw '#' rows
// with 2 decimals, "NaN" for what was not computed, columns ordered by process count.
#include "simulator/reports/metric_table.hpp"

#include <string>

namespace popsim::simulator {

std::string format_modelfactors_csv(const MetricTable& table);
void write_text_file(const std::string& path, const std::string& text); // throws std::runtime_error

} // namespace popsim::simulator

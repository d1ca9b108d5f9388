#pragma once
// Every number of an analysis as JSON, with units in the key names (_ns, _us, _ghz; efficiencies
// are fractions).
#include "metrics/scaling.hpp"

#include <nlohmann/json.hpp>

namespace popsim::simulator {

nlohmann::json series_to_json(const metrics::SeriesAnalysis& series);

} // namespace popsim::simulator

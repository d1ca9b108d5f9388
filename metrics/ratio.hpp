// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Ratios of times and counts that may be undefined: a zero-length trace, a run without useful
// computation. Undefined is NaN, never 0 or 1, so that no report shows a made-up number; every
// table shows NaN as "-" (simulator/reports/metric_table.hpp) and JSON as null.
#include <limits>

namespace popsim::metrics {

inline double ratio(double numerator, double denominator) {
    return denominator == 0 ? std::numeric_limits<double>::quiet_NaN() : numerator / denominator;
}

/// Whether a bounded efficiency's value lies outside 0-100 %.
inline bool outside_0_100(double v) {
    return v < 0 || v > 1 + 1e-9;
}

} // namespace popsim::metrics

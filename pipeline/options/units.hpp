// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Strict parsing of the quantities users type: times, bandwidths and sizes. Each throws
// std::invalid_argument naming the text and the accepted forms.
#include "replay/time.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::pipeline {

/// "5us", "1.5ms", "2s", "300ns" or "0"; any other number needs its unit.
Time parse_time(std::string_view text);
/// Bandwidth in Dimemas' MB/s (MB = 2^20 bytes): "10GB/s" and "100MB/s" are SI (1e9, 1e6 bytes/s),
/// "1GiB/s" and "500MiB/s" binary (Dimemas' MB/s is MiB/s), "inf" (or 0) is instantaneous; any
/// other number needs its unit.
double parse_bandwidth_mbps(std::string_view text);
/// "64KiB", "32k" (= 32768, like Dimemas -S 32k), "1MiB", "1MB" (1e6), or bytes.
std::uint64_t parse_bytes(std::string_view text);
/// A positive, finite relative CPU speed ("2", "0.5").
double parse_cpu_ratio(std::string_view text);
/// A positive, finite speed-up of code ("2" for twice as fast, "0.5" for twice as slow).
double parse_speedup(std::string_view text);

/// "a,b,c" as its comma-separated items (one item when there is no comma).
std::vector<std::string> split_list(const std::string& text);

/// A duration for reports, in the largest unit that keeps it at least 1: "5 us", "1.5 ms", "0".
std::string format_duration(Time ns);
/// A bandwidth for reports in SI units (10^6 bytes/s per MB/s) from Dimemas' MB/s (2^20 bytes):
/// "100 MB/s", "1.04858 GB/s", "inf" for 0 (instantaneous).
std::string format_bandwidth(double dimemas_mbps);
/// Dimemas' MB/s (2^20 bytes) in bytes per second; +inf for 0 (instantaneous).
double bandwidth_bytes_per_s(double dimemas_mbps);

} // namespace popsim::pipeline

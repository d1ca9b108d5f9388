// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// `analyze --communication`: the communication matrix, the message sizes and the time profile
// (metrics/communication_views.hpp) for the terminal, the JSON report and a CSV table; the HTML
// report draws them (html_report.hpp).
#include "metrics/communication_views.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace popsim::simulator {

struct CommunicationReport {
    std::string path;
    std::string label; // the run's (--label, else the file name)
    const metrics::CommunicationViews& views;
};

/// {"ranks", "messages", "bytes", "pairs": [...], "message_sizes": [...], "time_profile": {...}}
nlohmann::json communication_json(const metrics::CommunicationViews& views);

/// Every view of every run as one CSV table in long form (docs/file-formats.md, "Communication
/// CSV"): a row per number group, the column `table` saying which view.
std::string communication_csv(const std::vector<CommunicationReport>& reports);

/// A few lines: the totals, the pairs that exchange the most bytes, the commonest sizes.
std::string format_communication(const metrics::CommunicationViews& views, const std::string& path,
                                 const TerminalStyle& style, std::size_t max_pairs = 5);

/// "0 B", "1 B", "[2 B, 4 B)", "[1 KiB, 2 KiB)": a size bin, as the reports label it.
std::string size_bin_label(const metrics::SizeBin& bin);
/// Bytes in the largest IEC unit that keeps them above 1: "1.5 MiB".
std::string human_bytes(double bytes);

} // namespace popsim::simulator

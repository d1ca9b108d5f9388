// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/communication_report.hpp"

#include "simulator/reports/csv_table.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace popsim::simulator {

namespace {

constexpr const char* k_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

/// `bytes` (a power of two, or 0) as "4 KiB".
std::string power_of_two(std::uint64_t bytes) {
    std::size_t unit = 0;
    while (bytes >= 1024 && bytes % 1024 == 0 && unit + 1 < std::size(k_units)) {
        bytes /= 1024;
        ++unit;
    }
    return fmt::format("{} {}", bytes, k_units[unit]);
}

} // namespace

std::string human_bytes(double bytes) {
    std::size_t unit = 0;
    while (bytes >= 1024 && unit + 1 < std::size(k_units)) {
        bytes /= 1024;
        ++unit;
    }
    return unit == 0 ? fmt::format("{:.0f} B", bytes)
                     : fmt::format("{:.1f} {}", bytes, k_units[unit]);
}

std::string size_bin_label(const metrics::SizeBin& bin) {
    if (bin.to_bytes - bin.from_bytes <= 1) return power_of_two(bin.from_bytes);
    return fmt::format("[{}, {})", power_of_two(bin.from_bytes), power_of_two(bin.to_bytes));
}

nlohmann::json communication_json(const metrics::CommunicationViews& v) {
    auto pairs = nlohmann::json::array();
    for (const auto& p : v.pairs)
        pairs.push_back({{"sender", p.sender},
                         {"receiver", p.receiver},
                         {"messages", p.messages},
                         {"bytes", p.bytes}});
    auto sizes = nlohmann::json::array();
    for (const auto& b : v.sizes)
        sizes.push_back({{"from_bytes", b.from_bytes},
                         {"to_bytes", b.to_bytes},
                         {"messages", b.messages},
                         {"bytes", b.bytes}});
    return {
        {"ranks", v.ranks},
        {"messages", v.messages},
        {"bytes", v.bytes},
        {"pairs", pairs},
        {"message_sizes", sizes},
        {"time_profile", {{"bin_ns", v.bin_ns}, {"useful_ns", v.useful_ns}, {"mpi_ns", v.mpi_ns}}}};
}

std::string communication_csv(const std::vector<CommunicationReport>& reports) {
    std::string out =
        csv_line({"run", "table", "sender", "receiver", "from_bytes", "to_bytes", "rank", "from_ns",
                  "to_ns", "messages", "bytes", "useful_ns", "mpi_ns"});
    for (const auto& r : reports) {
        const auto& v = r.views;
        for (const auto& p : v.pairs)
            out += csv_line({r.label, "pairs", std::to_string(p.sender), std::to_string(p.receiver),
                             "", "", "", "", "", std::to_string(p.messages),
                             std::to_string(p.bytes), "", ""});
        for (const auto& b : v.sizes)
            out += csv_line({r.label, "message_sizes", "", "", std::to_string(b.from_bytes),
                             std::to_string(b.to_bytes), "", "", "", std::to_string(b.messages),
                             std::to_string(b.bytes), "", ""});
        for (std::size_t rank = 0; rank < v.useful_ns.size(); ++rank)
            for (std::size_t k = 0; k < v.useful_ns[rank].size(); ++k) {
                const Time from = static_cast<Time>(k) * v.bin_ns;
                out += csv_line({r.label, "time_profile", "", "", "", "", std::to_string(rank + 1),
                                 std::to_string(from), std::to_string(from + v.bin_ns), "", "",
                                 std::to_string(v.useful_ns[rank][k]),
                                 std::to_string(v.mpi_ns[rank][k])});
            }
    }
    return out;
}

std::string format_communication(const metrics::CommunicationViews& v, const std::string& path,
                                 const TerminalStyle& style, std::size_t max_pairs) {
    std::string out =
        '\n' +
        wrap_text(fmt::format("Communication of {}: {} messages, {} between "
                              "{} ranks",
                              path, v.messages, human_bytes(static_cast<double>(v.bytes)), v.ranks),
                  style.width);
    if (v.messages == 0) return out;
    auto pairs = v.pairs;
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    std::vector<std::string> listed;
    for (std::size_t k = 0; k < std::min(pairs.size(), max_pairs); ++k)
        listed.push_back(fmt::format(
            "{} -> {} {}", pairs[k].sender, pairs[k].receiver,
            efficiency_text(static_cast<double>(pairs[k].bytes) / static_cast<double>(v.bytes),
                            style)));
    out += wrap_text(fmt::format("  most bytes (rank -> rank): {}", fmt::join(listed, ", ")),
                     style.width);
    auto sizes = v.sizes;
    std::stable_sort(sizes.begin(), sizes.end(),
                     [](const auto& a, const auto& b) { return a.messages > b.messages; });
    listed.clear();
    for (std::size_t k = 0; k < std::min<std::size_t>(sizes.size(), 3); ++k)
        listed.push_back(fmt::format("{} {}", size_bin_label(sizes[k]),
                                     share_text(static_cast<Time>(sizes[k].messages),
                                                static_cast<double>(v.messages), style)));
    out += wrap_text(fmt::format("  most messages are: {} of them", fmt::join(listed, ", ")),
                     style.width);
    return out;
}

} // namespace popsim::simulator

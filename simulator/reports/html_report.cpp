// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/html_report.hpp"

#include "metrics/ideal_replay.hpp"
#include "metrics/pop_openmp.hpp"
#include "popsim/version.hpp"
#include "simulator/reports/breakdown_report.hpp"
#include "simulator/reports/root_causes_report.hpp"
#include "simulator/reports/svg_chart.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <map>
#include <numeric>

namespace popsim::simulator {

using namespace pipeline;

namespace {

constexpr const char* k_style = R"css(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1260px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
table.metrics { border-collapse: collapse; font-size: 14px; }
table.metrics th, table.metrics td { border: 1px solid #ddd; padding: 4px 10px; text-align: right; }
table.metrics td.label { text-align: left; }
table.metrics tr.raw td { color: #555; }
table.metrics td.out-of-range { background: #eee; color: #000; font-style: italic; }
ul.warnings { font-size: 13px; } ul.warnings code { color: #555; }
.meta { color: #555; font-size: 13px; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.chart-title { font-size: 15px; font-weight: bold; } .tick { font-size: 11px; fill: #444; }
.label { font-size: 12px; fill: #222; } .legend { font-size: 12px; fill: #222; }
.grid { stroke: #e5e5e5; } .axis { stroke: #333; }
.scale span { display: inline-block; padding: 2px 8px; margin-right: 4px; font-size: 12px; }
table.heat { border-collapse: collapse; font-size: 11px; margin: 8px 0 16px; }
table.heat th, table.heat td { border: 1px solid #ddd; padding: 2px 5px; text-align: right; }
)css";

/// Linear interpolation between two RGB colours (components 0-1).
std::string mix(const double a[3], const double b[3], double t) {
    auto c = [&](int i) {
        return static_cast<int>(
            std::lround(255 * (a[i] + (b[i] - a[i]) * std::clamp(t, 0.0, 1.0))));
    };
    return fmt::format("rgb({},{},{})", c(0), c(1), c(2));
}

constexpr const char* k_series_colors[] = {"#1f5fa8", "#e07b00", "#7a3fb0", "#2e8b57",
                                           "#b01313", "#8c6d1f", "#1f8c8c", "#555555"};

std::string cell(const std::optional<double>& v, ValueKind kind) {
    if (!v || !std::isfinite(*v)) return "<td>-</td>";
    switch (kind) {
    case ValueKind::efficiency: {
        const bool dark = *v < 0.6 || *v > 0.93;
        return fmt::format(R"(<td style="background:{};color:{}">{:.2f}%</td>)", pop_color(*v),
                           dark ? "#fff" : "#000", 100 * *v);
    }
    case ValueKind::number:
        return fmt::format("<td>{:.2f}</td>", *v);
    case ValueKind::time_ns:
        return fmt::format("<td>{:.6f}</td>", *v / 1e9);
    case ValueKind::count:
        return fmt::format("<td>{:.0f}</td>", *v);
    }
    return "<td>-</td>";
}

/// An efficiency bounded by 0-100 %: on the POP scale, or, outside it, marked as a sign of the
/// trace, which the warnings explain.
std::string bounded_efficiency_cell(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v) || !metrics::outside_0_100(*v))
        return cell(v, ValueKind::efficiency);
    return fmt::format(R"(<td class="out-of-range" title="outside 0-100 %: see the warnings">)"
                       R"({:.2f}% (!)</td>)",
                       100 * *v);
}

std::string page(const std::string& title, const std::string& body) {
    const auto now = std::chrono::system_clock::now();
    return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                       "charset=\"utf-8\"><title>{0}</title><style>{1}</style></head>"
                       "<body><h1>{0}</h1><p class=\"meta\">popsim {2}, {3:%Y-%m-%d %H:%M} "
                       "UTC</p>{4}</body></html>\n",
                       escape_xml(title), k_style, k_version,
                       fmt::gmtime(std::chrono::system_clock::to_time_t(now)), body);
}

std::string scale_legend() {
    std::string out = "<p class=\"scale\">POP scale: ";
    for (double v : {0.3, 0.6, 0.75, 0.85, 0.95}) {
        out += fmt::format(R"(<span style="background:{};color:{}">{:.0f}%</span>)", pop_color(v),
                           v < 0.6 || v > 0.93 ? "#fff" : "#000", 100 * v);
    }
    return out + "(green from 80 %)</p>";
}

/// The speed-up and the model's own efficiencies (the table's, without the computation's
/// details: IPC, instructions, frequency) against the table's axis (processes, threads, cores).
std::string scaling_charts(const MetricTable& table) {
    const auto& x = table.axis;
    if (x.size() < 2) return {};
    const double ref = x.front();
    const auto speedup_row = std::find_if(table.factors.begin(), table.factors.end(),
                                          [](const MetricRow& r) { return r.key == "speedup"; });
    const bool has_speedup = speedup_row != table.factors.end(); // the hybrid tables have none
    // Log-log, so the ideal speed-up (and 80 % of it) are straight lines.
    LineChart speedup{.title = "Speed-up",
                      .x_label = table.axis_label,
                      .y_label = fmt::format("speed-up over {} ({:g})", table.axis_label, ref),
                      .x = x,
                      .log2_x = true,
                      .log2_y = true,
                      .x_labels = table.columns};
    std::vector<double> ideal, low;
    Series measured{"measured", "#1f5fa8", {}, false};
    for (std::size_t i = 0; i < x.size(); ++i) {
        ideal.push_back(x[i] / ref);
        low.push_back(0.8 * x[i] / ref);
        const auto& v = has_speedup ? speedup_row->values[i] : std::nullopt;
        measured.y.push_back(v ? *v : NAN);
    }
    speedup.series = {measured, Series{"ideal", "#555", ideal, true},
                      Series{"80 % of ideal", "#2e8b57", low, true}};
    speedup.bands = {Band{low, ideal, "#2e8b57"}};
    // Small multiples, one efficiency each on the same 0-100 % axis (growing to hold a value
    // beyond): lines on one chart hid each other at 100 %.
    std::string efficiencies;
    for (const auto& row : table.factors) {
        if (row.kind != ValueKind::efficiency || row.key.find("ipc") != std::string::npos ||
            row.key.find("instruction") != std::string::npos ||
            row.key.find("frequency") != std::string::npos)
            continue;
        LineChart chart{.title = row.label,
                        .x_label = table.axis_label,
                        .y_label = "%",
                        .x = x,
                        .log2_x = true,
                        .y_min = 0,
                        .y_max = 100,
                        .x_labels = table.columns,
                        .small = true};
        Series line{row.label, "#1f5fa8", {}, false};
        for (const auto& v : row.values) line.y.push_back(v ? 100 * *v : NAN);
        chart.series = {Series{"80 %", "#2e8b57", std::vector<double>(x.size(), 80), true},
                        std::move(line)};
        efficiencies += render_svg(chart);
    }
    return "<h2>Scaling</h2><div class=\"charts\">" + (has_speedup ? render_svg(speedup) : "") +
           "</div><div class=\"charts small-multiples\">" + efficiencies + "</div>";
}

/// One part of a breakdown: its time per bar (rank, thread).
struct BreakdownPart {
    const char* name;
    const char* color;
    std::vector<Time> time;
};

/// One trace's breakdown as stacked bars, each part in % of the runtime.
StackedBars breakdown_chart(const std::string& path, const char* unit, const char* y_label,
                            std::vector<std::string> bars, const std::vector<BreakdownPart>& parts,
                            Time runtime) {
    const std::string name = path.substr(path.find_last_of('/') + 1);
    StackedBars chart{
        fmt::format("{} ({} {}{})", name, bars.size(), unit, bars.size() == 1 ? "" : "s"),
        unit == std::string("thread") ? "thread (process.thread)" : unit,
        y_label,
        std::move(bars),
        {}};
    for (const auto& part : parts) {
        Series series{part.name, part.color, {}, false};
        for (const Time t : part.time)
            series.y.push_back(100 * static_cast<double>(t) / static_cast<double>(runtime));
        chart.parts.push_back(std::move(series));
    }
    return chart;
}

/// The charts of one section on one y scale, so their bars compare at a glance.
std::string render_on_one_scale(std::vector<StackedBars> charts) {
    double top = 0;
    for (const auto& c : charts) top = std::max(top, tallest_bar(c));
    std::string out;
    for (auto& c : charts) {
        c.y_max = top;
        out += render_svg(c);
    }
    return out;
}

/// A section of breakdown charts, or nothing without any.
std::string breakdown_section(const char* heading, const char* explanation,
                              const std::string& charts) {
    if (charts.empty()) return charts;
    return fmt::format("<h2>{}</h2><p class=\"meta\">{}</p><div class=\"charts\">{}</div>", heading,
                       explanation, charts);
}

std::string breakdown_charts(const metrics::SeriesAnalysis& s) {
    std::vector<StackedBars> charts;
    for (const auto& t : s.traces) {
        const auto ranks = metrics::rank_breakdown(t);
        if (ranks.empty() || t.runtime == 0) continue; // no runtime to take shares of
        std::vector<std::string> bars;
        BreakdownPart startup{"start-up and shut-down", "#8a8a8a", {}},
            imbalance{"load imbalance", "#e07b00", {}},
            serialization{"serialisation", "#7a3fb0", {}}, transfer{"transfer", "#b01313", {}};
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            bars.push_back(std::to_string(r + 1));
            startup.time.push_back(ranks[r].startup);
            imbalance.time.push_back(ranks[r].load_imbalance);
            serialization.time.push_back(ranks[r].serialization);
            transfer.time.push_back(ranks[r].transfer);
        }
        charts.push_back(breakdown_chart(t.path, "rank", "% of the traced runtime not useful",
                                         std::move(bars),
                                         {startup, imbalance, serialization, transfer}, t.runtime));
    }
    return breakdown_section(
        "Per-rank breakdown",
        "Each rank's traced runtime that is not useful computation: start-up and shut-down (not "
        "created yet, MPI_Init, MPI_Finalize, done), then, split by the ideal replay, transfer "
        "(the MPI time the ideal network removes), serialisation (the waits that remain on it) "
        "and load imbalance (the wait for slower ranks).",
        render_on_one_scale(std::move(charts)));
}

/// Per trace, each thread's time that is not useful: idle in parallel regions, serial, MPI.
std::string thread_breakdown_charts(const std::vector<metrics::HybridRun>& runs) {
    std::vector<StackedBars> charts;
    for (const auto& run : runs) {
        const auto threads = metrics::thread_time_split(run);
        if (threads.empty() || run.runtime == 0) continue;
        std::vector<std::string> bars;
        BreakdownPart idle{"idle in regions", "#e07b00", {}}, serial{"serial", "#7a3fb0", {}},
            mpi{"MPI", "#b01313", {}};
        for (std::size_t t = 0; t < threads.size(); ++t) {
            bars.push_back(thread_label(run, t));
            idle.time.push_back(threads[t].idle_in_regions);
            serial.time.push_back(threads[t].serial);
            mpi.time.push_back(threads[t].mpi);
        }
        charts.push_back(breakdown_chart(run.path, "thread", "% of the runtime not useful",
                                         std::move(bars), {idle, serial, mpi}, run.runtime));
    }
    return breakdown_section(
        "Per-thread breakdown",
        "Each thread's time that is not useful computation: idle inside parallel regions (load "
        "imbalance and scheduling, by the thread's own OpenMP events), serial (outside parallel "
        "regions and MPI: a worker waiting while the master runs serial code) and MPI outside "
        "parallel regions.",
        render_on_one_scale(std::move(charts)));
}

/// The share of `part` in `whole` as "12.3%" (0 % of nothing): times, bytes, messages.
std::string percent(double part, double whole) {
    return fmt::format("{:.1f}%", whole > 0 ? 100.0 * part / whole : 0.0);
}

/// Each run's parallel regions, longest first, as the terminal lists them: instances, time, share
/// of the run, parallel efficiency and load balance on the POP colours, share of the OpenMP region
/// inefficiency.
std::string parallel_regions_section(const std::vector<metrics::HybridRun>& runs,
                                     const std::vector<replay::TraceLabels>& labels) {
    constexpr std::size_t k_listed = 20;
    std::string out;
    for (std::size_t i = 0; i < runs.size() && i < labels.size(); ++i) {
        const auto& run = runs[i];
        const auto regions = regions_longest_first(run);
        if (regions.empty() || run.runtime == 0) continue;
        out += fmt::format("<p class=\"meta\">{} ({} region{}{})</p><table class=\"metrics "
                           "regions\"><tr><th>region</th><th>count</th><th>time (s)</th><th>of "
                           "run</th><th>parallel efficiency</th><th>load balance</th><th>share "
                           "of the OpenMP region inefficiency</th></tr>",
                           escape_xml(run.path), regions.size(), regions.size() == 1 ? "" : "s",
                           regions.size() > k_listed
                               ? fmt::format(", the {} longest; --json has every one", k_listed)
                               : "");
        for (std::size_t k = 0; k < std::min(regions.size(), k_listed); ++k) {
            const auto& g = regions[k];
            const double of_run = static_cast<double>(g.total_length) /
                                  static_cast<double>(std::max<Time>(run.processes, 1)) /
                                  static_cast<double>(run.runtime);
            out += fmt::format(
                "<tr><td class=\"label\">{}</td><td>{}</td>{}{}{}{}{}</tr>",
                escape_xml(region_name(g.region, labels[i])), g.instances,
                cell(static_cast<double>(g.total_length), ValueKind::time_ns),
                fmt::format("<td>{:.2f}%</td>", 100 * of_run),
                cell(g.parallel_efficiency, ValueKind::efficiency),
                cell(g.load_balance, ValueKind::efficiency),
                fmt::format("<td>{:.2f}%</td>", 100 * g.parallel_inefficiency_contribution));
        }
        out += "</table>";
    }
    return out.empty() ? out : "<h2>Parallel regions</h2>" + out;
}

/// Who sends how much to whom: a grid of ranks (senders in rows) shaded by each pair's share of
/// the bytes, up to 64 ranks; beyond, the 20 pairs that exchange the most.
std::string communication_matrix(const metrics::CommunicationViews& v) {
    constexpr std::uint32_t k_grid_ranks = 64;
    if (v.bytes == 0 && v.messages == 0) return "<p class=\"meta\">No message.</p>";
    std::uint64_t largest = 1;
    for (const auto& p : v.pairs) largest = std::max(largest, p.bytes);
    const auto share = [&](std::uint64_t bytes) {
        return percent(static_cast<double>(bytes), static_cast<double>(v.bytes));
    };
    if (v.ranks <= k_grid_ranks) { // as the delay-cost matrix: each cell its share of the bytes
        std::map<std::pair<std::uint32_t, std::uint32_t>, const metrics::RankPair*> at;
        for (const auto& p : v.pairs) at[{p.sender, p.receiver}] = &p;
        std::string out = "<table class=\"heat comm-matrix\"><tr><th>sender \\ receiver</th>";
        for (std::uint32_t r = 1; r <= v.ranks; ++r) out += fmt::format("<th>{}</th>", r);
        out += "</tr>";
        for (std::uint32_t s = 1; s <= v.ranks; ++s) {
            out += fmt::format("<tr><th>{}</th>", s);
            for (std::uint32_t r = 1; r <= v.ranks; ++r) {
                const auto found = at.find({s, r});
                if (found == at.end()) {
                    out += "<td></td>";
                    continue;
                }
                const auto& p = *found->second;
                const double depth = static_cast<double>(p.bytes) / static_cast<double>(largest);
                out += fmt::format("<td style=\"background: rgba(33, 102, 172, {:.2f}){}\" "
                                   "title=\"{} -> {}: {} messages, {}\">{}</td>",
                                   depth, depth > 0.6 ? "; color: #fff" : "", s, r, p.messages,
                                   human_bytes(static_cast<double>(p.bytes)), share(p.bytes));
            }
            out += "</tr>";
        }
        return out + "</table>";
    }
    auto pairs = v.pairs;
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    std::string out = "<table class=\"metrics comm-pairs\"><tr><th>sender</th><th>receiver</th>"
                      "<th>messages</th><th>bytes</th><th>share of the bytes</th></tr>";
    for (std::size_t k = 0; k < std::min<std::size_t>(pairs.size(), 20); ++k)
        out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                           pairs[k].sender, pairs[k].receiver, pairs[k].messages,
                           human_bytes(static_cast<double>(pairs[k].bytes)), share(pairs[k].bytes));
    return out + "</table>";
}

/// The size bins as rows of horizontal bars (a chart whose labels never overlap): each bin's
/// messages, and their share of the messages and of the bytes.
std::string message_sizes_table(const metrics::CommunicationViews& v) {
    if (v.sizes.empty()) return {};
    std::uint64_t most = 1;
    for (const auto& b : v.sizes) most = std::max(most, b.messages);
    std::string out = "<table class=\"metrics message-sizes\"><tr><th>message size</th><th>"
                      "messages</th><th></th><th>of the messages</th><th>of the bytes</th></tr>";
    for (const auto& b : v.sizes)
        out +=
            fmt::format("<tr><td class=\"label\">{}</td><td>{}</td><td style=\"text-align:"
                        "left\"><div style=\"background:#2166ac;height:12px;width:{:.0f}px\">"
                        "</div></td><td>{}</td><td>{}</td></tr>",
                        escape_xml(size_bin_label(b)), b.messages,
                        300.0 * static_cast<double>(b.messages) / static_cast<double>(most),
                        percent(static_cast<double>(b.messages), static_cast<double>(v.messages)),
                        percent(static_cast<double>(b.bytes), static_cast<double>(v.bytes)));
    return out + "</table>";
}

/// Each rank's useful (green) and MPI (red) share of each time bin, as a heat map (up to 128
/// ranks).
std::string time_profile_svg(const metrics::CommunicationViews& v) {
    constexpr std::size_t k_ranks = 128;
    const std::size_t ranks = std::min<std::size_t>(v.useful_ns.size(), k_ranks);
    if (ranks == 0 || v.bin_ns <= 0) return {};
    const std::size_t bins = v.useful_ns[0].size();
    const double cell_w = 900.0 / static_cast<double>(bins),
                 cell_h = std::clamp(400.0 / static_cast<double>(ranks), 2.0, 16.0);
    const double left = 50, top = 10, height = cell_h * static_cast<double>(ranks);
    std::string out = fmt::format(
        R"(<svg class="time-profile" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}">)",
        left + 900 + 10, top + height + 40);
    const double white[3] = {1, 1, 1}, green[3] = {0.10, 0.59, 0.25}, red[3] = {0.84, 0.10, 0.11};
    for (std::size_t r = 0; r < ranks; ++r) {
        for (std::size_t k = 0; k < bins; ++k) {
            const double bin = static_cast<double>(v.bin_ns);
            const double useful = static_cast<double>(v.useful_ns[r][k]) / bin,
                         mpi = static_cast<double>(v.mpi_ns[r][k]) / bin;
            const std::string colour = mpi > useful ? mix(white, red, std::min(1.0, mpi))
                                                    : mix(white, green, std::min(1.0, useful));
            out += fmt::format(
                R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"/>)",
                left + cell_w * static_cast<double>(k), top + cell_h * static_cast<double>(r),
                cell_w + 0.05, cell_h + 0.05, colour);
        }
    }
    out += fmt::format(R"(<text x="5" y="{:.1f}" font-size="12">rank 1</text>)", top + cell_h);
    out += fmt::format(R"(<text x="5" y="{:.1f}" font-size="12">{}</text>)", top + height, ranks);
    out += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" font-size="12">0 s</text>)", left,
                       top + height + 16);
    out += fmt::format(
        R"(<text x="{:.0f}" y="{:.0f}" font-size="12" text-anchor="end">{:.3f} s</text>)",
        left + 900, top + height + 16,
        static_cast<double>(v.bin_ns) * static_cast<double>(bins) / 1e9);
    out += fmt::format(
        R"(<text x="{:.0f}" y="{:.0f}" font-size="12" text-anchor="middle">time; green: useful computation, red: MPI (the deeper, the more of the bin)</text>)",
        left + 450, top + height + 34);
    return out + "</svg>";
}

/// Per run with --communication: the matrix, the message sizes, the time profile.
std::string communication_section(const std::vector<CommunicationReport>& reports) {
    std::string out;
    for (const auto& r : reports) {
        const auto& v = r.views;
        out += fmt::format("<p class=\"meta\">{}: {} messages, {} between {} ranks (senders in "
                           "rows; the deeper the blue, the more bytes)</p>",
                           escape_xml(r.path), v.messages,
                           human_bytes(static_cast<double>(v.bytes)), v.ranks);
        out += communication_matrix(v);
        out += message_sizes_table(v);
        out += "<p class=\"meta\">Time profile of " + escape_xml(r.label) +
               (v.useful_ns.size() > 128 ? " (the first 128 ranks)" : "") + ":</p>" +
               time_profile_svg(v);
    }
    return out.empty() ? out : "<h2>Communication</h2>" + out;
}

/// Who caused whom to wait on the ideal network: causing ranks in rows, waiting ranks in columns,
/// each cell's red as deep as its share of all the waiting (up to 64 ranks).
std::string delay_cost_matrix(const metrics::DelayCosts& d, Time waited) {
    const std::size_t ranks = d.caused.size();
    if (waited <= 0 || ranks > 64) return {};
    Time largest = 1;
    for (const auto& [key, t] : d.pairs) largest = std::max(largest, t);
    std::string out = "<table class=\"heat\"><tr><th>causing \\ waiting</th>";
    for (std::size_t w = 0; w < ranks; ++w) out += fmt::format("<th>{}</th>", w + 1);
    out += "</tr>";
    for (std::uint32_t c = 0; c < ranks; ++c) {
        out += fmt::format("<tr><th>{}</th>", c + 1);
        for (std::uint32_t w = 0; w < ranks; ++w) {
            const auto it = d.pairs.find({c, w});
            const Time t = it == d.pairs.end() ? 0 : it->second;
            const double depth = static_cast<double>(t) / static_cast<double>(largest);
            out += fmt::format(
                "<td style=\"background: rgba(176, 19, 19, {:.2f})\" title=\"rank {} made rank {} "
                "wait {} of all the waiting\">{}</td>",
                depth, c + 1, w + 1, percent(t, waited), t > 0 ? percent(t, waited) : "");
        }
        out += "</tr>";
    }
    return out + "</table>";
}

/// The (rank, code region) pairs whose computation caused the most waiting on the ideal network
/// (up to ten), with their share of the ideal critical path.
std::string cause_regions_table(const RootCausesReport& r) {
    const auto& causes = r.causes;
    const Time waited = causes.ideal.total.total();
    if (causes.region_type == 0 || waited <= 0) return {};
    const auto rows = longest_first(causes.delays.regions);
    std::string out = fmt::format(
        "<table class=\"metrics\"><tr><th>computation of</th><th>in code region ({})</th><th>share "
        "of the waiting it caused</th><th>share of the ideal critical path</th></tr>",
        escape_xml(code_regions_description(causes, r.labels)));
    for (std::size_t k = 0; k < std::min<std::size_t>(rows.size(), 10); ++k) {
        const auto& [key, time] = rows[k];
        const auto on_path = causes.critical_path.per_task_region.find(key);
        out += fmt::format(
            "<tr><td class=\"label\">rank {}</td><td "
            "class=\"label\">{}</td><td>{}</td><td>{}</td></tr>",
            key.first + 1, escape_xml(code_region_name(causes, key.second, r.labels)),
            percent(time, waited),
            percent(on_path == causes.critical_path.per_task_region.end() ? 0 : on_path->second,
                    causes.critical_path.length));
    }
    return out + "</table>";
}

/// Per trace with root causes: each rank's computation on the ideal critical path, the delay-cost
/// matrix and where the waiting happens.
std::string root_causes_section(const std::vector<RootCausesReport>& reports) {
    std::string out;
    for (const auto& r : reports) {
        const auto& path = r.causes.critical_path;
        std::vector<std::string> bars;
        for (std::size_t k = 0; k < path.per_task.size(); ++k)
            bars.push_back(std::to_string(k + 1));
        if (path.length > 0) {
            out += "<div class=\"charts\">" +
                   render_svg(breakdown_chart(
                       r.path, "rank", "% of the ideal critical path", std::move(bars),
                       {{"computation", "#2a6f97", path.per_task}}, path.length)) +
                   "</div>";
        }
        if (r.runtime > 0 && r.tasks > 0) { // where the waiting is, traced and ideal
            const Time ranks_time = r.runtime * static_cast<Time>(r.tasks);
            out += fmt::format("<p class=\"meta\">Wait states of {} (% of the ranks' time, {} "
                               "ranks x the runtime):</p><table class=\"metrics wait-states\">"
                               "<tr><th>pattern</th><th>traced</th><th>ideal network</th></tr>",
                               escape_xml(r.path), r.tasks);
            for (const auto& row : wait_state_rows(r.causes))
                out += fmt::format("<tr><td class=\"label\">{}</td><td>{}</td><td>{}</td></tr>",
                                   row.pattern, percent(row.traced, ranks_time),
                                   percent(row.ideal, ranks_time));
            out += "</table>";
        }
        const Time waited = r.causes.ideal.total.total();
        out += fmt::format("<p class=\"meta\">Who made whom wait on the ideal network ({} of the "
                           "ranks' waiting there, by the computation on the chain that made the "
                           "partner late):</p>",
                           escape_xml(r.path));
        out += delay_cost_matrix(r.causes.delays, waited);
        out += "<table class=\"metrics\"><tr><th>waiting in</th><th>pattern</th><th>share of "
               "the waiting, ideal network</th></tr>";
        const auto calls = metrics::wait_calls(r.causes.ideal);
        for (std::size_t k = 0; k < std::min<std::size_t>(calls.size(), 10); ++k) {
            out += fmt::format("<tr><td class=\"label\">{}</td><td>{}</td><td>{}</td></tr>",
                               escape_xml(call_and_site(calls[k], r.labels)),
                               metrics::wait_pattern_label(calls[k].pattern),
                               percent(calls[k].time, waited));
        }
        out += "</table>" + cause_regions_table(r);
    }
    if (out.empty()) return out;
    return "<h2>Root causes</h2><p class=\"meta\">The ideal network's critical path (its length "
           "is the ideal runtime) and the delay costs of its waits (docs/metrics.md, \"Root "
           "causes\").</p>" +
           out;
}

/// Each efficiency of the table over the parts in time order, and the table itself (up to a
/// hundred parts: beyond, the CSV and JSON have them).
std::string parts_section(const PartsReport& parts) {
    std::vector<double> index;
    for (std::size_t k = 1; k <= parts.table.columns.size(); ++k)
        index.push_back(static_cast<double>(k));
    const std::string kind = parts.table.column_title == "Phase" ? "phase" : "instance";
    // Small multiples, one efficiency each (lines on one chart hid each other), readable with
    // hundreds of parts (no markers beyond 60).
    std::string charts;
    for (const auto& row : parts.table.factors) {
        if (row.kind != ValueKind::efficiency) continue;
        LineChart chart{.title = row.label,
                        .x_label = kind + " (in time order)",
                        .y_label = "%",
                        .x = index,
                        .y_min = 0,
                        .y_max = 100,
                        .small = true};
        Series line{row.label, "#1f5fa8", {}, false};
        // An undefined value (a part without computation) is drawn at 0, as the table shows "-".
        for (const auto& v : row.values) line.y.push_back(v ? 100 * *v : 0);
        chart.series = {std::move(line)};
        charts += render_svg(chart);
    }
    constexpr std::size_t k_max_table_columns = 100, k_worst = 10;
    const std::size_t n = parts.table.columns.size();
    std::string table;
    if (n <= k_max_table_columns) {
        table = metric_table_html(parts.table);
    } else { // too many columns to read: the parts with the lowest parallel efficiency, named
        const auto pe = std::find_if(parts.table.factors.begin(), parts.table.factors.end(),
                                     [](const MetricRow& r) { return r.level == 0; });
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), 0);
        if (pe != parts.table.factors.end())
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return pe->values[a].value_or(2) < pe->values[b].value_or(2);
            });
        table = fmt::format("<p class=\"meta\">The {} {}s of lowest {} of {} (each one's "
                            "metrics are in the JSON, --json, and the CSV, --parts-csv):</p>"
                            "<table class=\"metrics worst-parts\"><tr><th>{}</th>",
                            k_worst, kind,
                            pe != parts.table.factors.end() ? pe->label : "efficiency", n, kind);
        for (const auto& row : parts.table.factors)
            if (row.kind == ValueKind::efficiency)
                table += "<th>" + escape_xml(row.label) + "</th>";
        table += "</tr>";
        for (std::size_t k = 0; k < std::min(k_worst, n); ++k) {
            table +=
                "<tr><td class=\"label\">" + escape_xml(parts.table.columns[order[k]]) + "</td>";
            for (const auto& row : parts.table.factors)
                if (row.kind == ValueKind::efficiency)
                    table += cell(row.values[order[k]], row.kind);
            table += "</tr>";
        }
        table += "</table>";
    }
    return "<h2>" + escape_xml(parts.title) + "</h2><div class=\"charts small-multiples\">" +
           charts + "</div>" + table;
}

/// Every trace's warnings, one line per kind as the terminal prints them, with the kind.
std::string warnings_section(const std::vector<TraceWarnings>& traces) {
    std::string out;
    for (const auto& t : traces) {
        if (t.warnings.empty()) continue;
        out += "<p class=\"meta\">" + escape_xml(t.path) + "</p><ul class=\"warnings\">";
        for (const auto& w : t.warnings)
            out += "<li>" + escape_xml(w.line()) + " <code>" + escape_xml(w.kind) + "</code></li>";
        out += "</ul>";
    }
    return out.empty() ? out : "<h2>Warnings</h2>" + out;
}

} // namespace

std::string metric_table_html(const MetricTable& t) {
    std::string out = "<table class=\"metrics\"><tr><th>" + escape_xml(t.column_title) + "</th>";
    for (const auto& c : t.columns) out += "<th>" + escape_xml(c) + "</th>";
    out += "</tr>";
    auto rows = [&](const std::vector<MetricRow>& list, const char* cls) {
        for (const auto& r : list) {
            out +=
                fmt::format(R"(<tr class="{}"><td class="label" style="padding-left:{}px">{}</td>)",
                            cls, 10 + 22 * r.level, escape_xml(r.label));
            for (const auto& v : r.values)
                out += is_bounded_efficiency(r) ? bounded_efficiency_cell(v) : cell(v, r.kind);
            out += "</tr>";
        }
    };
    rows(t.factors, "factor");
    rows(t.raw, "raw");
    return out + "</table>";
}

std::string pop_color(double v) {
    static constexpr double dark_red[3] = {0.690, 0.074, 0.074},
                            light_red[3] = {0.992, 0.910, 0.910};
    static constexpr double light_green[3] = {0.910, 0.992, 0.910},
                            dark_green[3] = {0.074, 0.690, 0.074};
    if (v < 0.5) return mix(dark_red, dark_red, 0);
    if (v < 0.8) return mix(dark_red, light_red, (v - 0.5) / 0.3);
    return mix(light_green, dark_green, (v - 0.8) / 0.2);
}

std::string render_analysis_html(const AnalysisReport& r) {
    std::string body = "<p class=\"meta\">Traces:</p><ul class=\"meta\">";
    for (const auto& t : r.series.traces) body += "<li>" + escape_xml(t.path) + "</li>";
    std::string description = escape_xml(r.description);
    for (auto at = description.find('\n'); at != std::string::npos; at = description.find('\n'))
        description.replace(at, 1, "<br>");
    body += "</ul><p class=\"meta\">" + description + "</p>";
    body += "<h2>Metrics</h2>" + scale_legend() + metric_table_html(r.table);
    body += scaling_charts(r.table) +
            (r.per_thread ? thread_breakdown_charts(r.runs) : breakdown_charts(r.series));
    if (r.projection) body += projection_html(*r.projection);
    if (r.per_thread) body += parallel_regions_section(r.runs, r.run_labels);
    for (const auto& p : r.parts) body += parts_section(p);
    body += root_causes_section(r.root_causes);
    body += communication_section(r.communication);
    body += gains_html(r.gains);
    body += warnings_section(r.warnings);
    return page("popsim report", body);
}

namespace {

/// The points of `r` whose parameters other than `x` and `line` take their first value, by the
/// value of `x` and of `line` (-1: no line parameter).
std::map<std::pair<std::size_t, std::size_t>, const WhatifPoint*>
slice(const WhatifReport& r, const WhatifAxis& x, const WhatifAxis* line) {
    std::map<std::pair<std::size_t, std::size_t>, const WhatifPoint*> out;
    for (const auto& p : r.points) {
        bool others_first = true;
        for (const auto& a : r.axes)
            if (&a != &x && &a != line && p.value[a.parameter] != 0) others_first = false;
        if (others_first) out[{p.value[x.parameter], line ? p.value[line->parameter] : 0}] = &p;
    }
    return out;
}

/// The runtime and the parallel efficiency against parameter `x`, one line per value of `line`.
std::string whatif_charts(const WhatifReport& r, const WhatifAxis& x, const WhatifAxis* line) {
    std::vector<std::size_t> order(x.labels.size()); // the values along the axis
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return x.positions[a] < x.positions[b]; });
    const auto points = slice(r, x, line);
    std::string fixed; // the other swept parameters, at their first value
    for (const auto& a : r.axes)
        if (&a != &x && &a != line) fixed += fmt::format(", {} {}", a.name, a.labels[0]);
    LineChart runtime{.title = "Predicted runtime" + fixed,
                      .x_label = x.name + " (log scale)",
                      .y_label = "runtime (s)"};
    LineChart efficiency{.title = "Parallel efficiency" + fixed,
                         .x_label = x.name + " (log scale)",
                         .y_label = "parallel efficiency (%)"};
    for (const auto v : order) {
        runtime.x.push_back(x.positions[v]);
        runtime.x_labels.push_back(x.labels[v]);
    }
    efficiency.x = runtime.x;
    efficiency.x_labels = runtime.x_labels;
    const std::size_t lines = line ? line->labels.size() : 1;
    double low = std::min(r.real_s, r.ideal_s), high = std::max(r.real_s, r.ideal_s);
    double low_e = 100;
    for (std::size_t l = 0; l < lines; ++l) {
        const std::string name =
            line ? fmt::format("{} {}", line->name, line->labels[l]) : std::string("predicted");
        const std::string color = k_series_colors[l % std::size(k_series_colors)];
        Series t{name, color, {}, false}, e{name, color, {}, false};
        for (const auto v : order) {
            const auto it = points.find({v, l});
            const double s = it == points.end() ? NAN : it->second->runtime_s;
            const double pe = it == points.end() ? NAN : 100 * it->second->e.parallel;
            t.y.push_back(s);
            e.y.push_back(pe);
            if (std::isfinite(s)) low = std::min(low, s), high = std::max(high, s);
            if (std::isfinite(pe)) low_e = std::min(low_e, pe);
        }
        runtime.series.push_back(std::move(t));
        efficiency.series.push_back(std::move(e));
    }
    const std::vector<double> real(order.size(), r.real_s), ideal(order.size(), r.ideal_s);
    runtime.series.push_back(Series{"real run", "#000000", real, true});
    runtime.series.push_back(Series{"ideal network", "#888888", ideal, true});
    // The runtimes' own range, not from zero: 3.49 s against 3.80 s must show.
    const double margin = std::max((high - low) * 0.08, high * 1e-3);
    runtime.y_min = std::max(0.0, low - margin);
    runtime.y_max = high + margin;
    efficiency.y_min = std::max(0.0, std::floor(low_e / 5) * 5 - 5);
    efficiency.y_max = 100;
    return render_svg(runtime) + render_svg(efficiency);
}

/// A run's cells of the what-if table: its runtime, speed-up and efficiencies, then the row's end.
std::string whatif_cells(double runtime_s, const WhatifEfficiencies& e) {
    std::string out =
        fmt::format("<td>{:.6f}</td>", runtime_s) + cell(e.speedup, ValueKind::number);
    for (const auto& f : k_efficiency_fields) out += bounded_efficiency_cell(e.*f.value);
    return out + "</tr>";
}

std::string whatif_table(const WhatifReport& r) {
    std::string out = "<table class=\"metrics\"><tr>";
    for (const auto& a : r.axes) out += "<th>" + escape_xml(a.name) + "</th>";
    out += "<th>runtime (s)</th><th>speed-up</th><th>Parallel eff.</th><th>Load balance</th>"
           "<th>Communication eff.</th><th>Serialisation eff.</th><th>Transfer eff.</th></tr>";
    if (r.traced) { // the reference: the run as traced
        out += fmt::format("<tr class=\"traced\"><td class=\"label\" colspan=\"{}\">traced "
                           "run</td>",
                           std::max<std::size_t>(r.axes.size(), 1)) +
               whatif_cells(r.real_s, *r.traced);
    }
    for (const auto& p : r.points) {
        out += "<tr>";
        for (const auto& a : r.axes)
            out += "<td>" + escape_xml(a.labels[p.value[a.parameter]]) + "</td>";
        out += whatif_cells(p.runtime_s, p.e);
    }
    return out + "</table>";
}

} // namespace

std::string render_whatif_html(const WhatifReport& r) {
    std::string body = fmt::format(
        "<p class=\"meta\">Trace: {}; real runtime {:.6f} s; ideal network {:.6f} s.</p>"
        "<p class=\"meta\">Network: {} (the swept parameters take each value in turn).</p>",
        escape_xml(r.trace), r.real_s, r.ideal_s, escape_xml(r.network));
    for (const auto& x : r.axes) {
        const WhatifAxis* line = nullptr; // the first other swept parameter draws the lines
        for (const auto& a : r.axes)
            if (&a != &x && line == nullptr) line = &a;
        body += "<h2>Against " + escape_xml(x.name) + "</h2><div class=\"charts\">" +
                whatif_charts(r, x, line) + "</div>";
    }
    body += "<h2>Every configuration</h2>" + scale_legend() + whatif_table(r);
    body += warnings_section({{r.trace, r.warnings}});
    return page("popsim what-if sweep", body);
}

} // namespace popsim::simulator

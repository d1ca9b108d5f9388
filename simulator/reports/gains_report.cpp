// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/gains_report.hpp"

#include "simulator/reports/csv_table.hpp"
#include "simulator/reports/html_report.hpp"
#include "simulator/reports/svg_chart.hpp"

#include <cmath>
#include <fmt/format.h>

namespace popsim::simulator {

using namespace pipeline;

namespace {

double seconds(Time t) {
    return static_cast<double>(t) * 1e-9;
}

double saved_fraction(const Gains& g, const Gain& fix) {
    return g.runtime == 0
               ? std::nan("")
               : static_cast<double>(g.runtime - fix.runtime) / static_cast<double>(g.runtime);
}

std::string csv_metric(double v) {
    return std::isfinite(v) ? fmt::format("{:.6f}", v) : std::string();
}

/// What the report says of where the fixes were replayed and how the runtime follows.
std::string replayed_where(const Gains& g) {
    if (!g.network)
        return fmt::format("candidate fixes replayed on the ideal network; the runtime on the "
                           "traced network is the traced {:.6f} s less what the fix saves there",
                           seconds(g.runtime));
    return fmt::format("candidate fixes replayed on the ideal network and on {} (the traced "
                       "program there: {:.6f} s); the runtime on the traced network is the traced "
                       "{:.6f} s less what the fix saves on {}",
                       g.network->config, seconds(g.network->runtime), seconds(g.runtime),
                       g.network->config);
}

} // namespace

std::string format_gains(const GainsReport& report, const TerminalStyle& style) {
    const auto& g = report.gains;
    std::string out(1, '\n'); // GCC 12 warns wrongly of overlap on "\n" + a string
    out += wrap_text(fmt::format("Gains of {}: {}", report.path, replayed_where(g)), style.width);
    std::vector<TextColumn> columns{
        {.header = "#"},     {.header = "fix"}, {.header = "runtime (s)"}, {.header = "saved (s)"},
        {.header = "saved"}, {.header = "PE"},  {.header = "moves"}};
    if (g.network) columns.insert(columns.begin() + 2, TextColumn{.header = "modelled (s)"});
    for (std::size_t k = 0; k < g.fixes.size(); ++k) {
        const auto& f = g.fixes[k];
        std::vector<std::string> cells{std::to_string(k + 1), f.fix};
        if (g.network) cells.push_back(fmt::format("{:.6f}", seconds(f.network_runtime)));
        const double fraction = saved_fraction(g, f);
        for (auto& cell :
             {fmt::format("{:.6f}", seconds(f.runtime)),
              fmt::format("{:.6f}", seconds(g.runtime - f.runtime)),
              std::isfinite(fraction) ? fmt::format("{:.2f}%", 100 * fraction) : std::string("-"),
              std::isfinite(f.e.parallel) ? efficiency_text(f.e.parallel, style) : std::string("-"),
              moves(g, f)})
            cells.push_back(cell);
        for (std::size_t c = 0; c < cells.size(); ++c) columns[c].cells.push_back(cells[c]);
    }
    return out + format_columns(std::move(columns), style, {});
}

std::string gains_csv(const std::vector<GainsReport>& reports) {
    std::string out =
        csv_line({"run", "rank", "fix", "kind", "region", "runtime_ns", "ideal_runtime_ns",
                  "network_runtime_ns", "saved_ns", "saved_fraction", "useful_change",
                  "parallel_efficiency", "load_balance", "communication_efficiency",
                  "serialization_efficiency", "transfer_efficiency"});
    static constexpr const char* kinds[] = {"network", "balance", "speedup"};
    for (const auto& r : reports) {
        for (std::size_t k = 0; k < r.gains.fixes.size(); ++k) {
            const auto& f = r.gains.fixes[k];
            out += csv_line({r.path, std::to_string(k + 1), f.fix, kinds[static_cast<int>(f.kind)],
                             f.region, std::to_string(f.runtime), std::to_string(f.ideal_runtime),
                             r.gains.network ? std::to_string(f.network_runtime) : std::string(),
                             std::to_string(r.gains.runtime - f.runtime),
                             csv_metric(saved_fraction(r.gains, f)),
                             fmt::format("{:.6f}", f.useful_change), csv_metric(f.e.parallel),
                             csv_metric(f.e.load_balance), csv_metric(f.e.communication),
                             csv_metric(f.e.serialization), csv_metric(f.e.transfer)});
        }
    }
    return out;
}

std::string gains_html(const std::vector<GainsReport>& reports) {
    if (reports.empty()) return {};
    std::string out = "<h2>Gains: what to fix first</h2>";
    for (const auto& r : reports) {
        const auto& g = r.gains;
        out += fmt::format("<p class=\"meta\">{}: {}.</p><table class=\"metrics\"><tr><th>#</th>"
                           "<th>fix</th>{}<th>runtime (s)</th><th>saved (s)</th><th>saved</th>"
                           "<th>PE</th><th>LB</th><th>SerE</th><th>TE</th><th>moves</th></tr>",
                           escape_xml(r.path), escape_xml(replayed_where(g)),
                           g.network ? "<th>modelled (s)</th>" : "");
        for (std::size_t k = 0; k < g.fixes.size(); ++k) {
            const auto& f = g.fixes[k];
            const double fraction = saved_fraction(g, f);
            out +=
                fmt::format("<tr><td>{}</td><td class=\"label\">{}</td>{}<td>{:.6f}</td>"
                            "<td>{:.6f}</td><td>{}</td>",
                            k + 1, escape_xml(f.fix),
                            g.network ? fmt::format("<td>{:.6f}</td>", seconds(f.network_runtime))
                                      : std::string(),
                            seconds(f.runtime), seconds(g.runtime - f.runtime),
                            std::isfinite(fraction) ? fmt::format("{:.2f}%", 100 * fraction)
                                                    : std::string("-"));
            for (const double v :
                 {f.e.parallel, f.e.load_balance, f.e.serialization, f.e.transfer}) {
                out += std::isfinite(v) ? fmt::format("<td style=\"background: {}\">{:.2f}%</td>",
                                                      pop_color(v), 100 * v)
                                        : std::string("<td>-</td>");
            }
            out += fmt::format("<td class=\"label\">{}</td></tr>", escape_xml(moves(g, f)));
        }
        out += "</table>";
    }
    return out;
}

} // namespace popsim::simulator

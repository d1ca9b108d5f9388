// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/projection_report.hpp"

#include "simulator/reports/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace popsim::simulator {

namespace {

std::string percent(double v) {
    return fmt::format("{:.2f}%", 100 * v);
}

std::string describe(const metrics::Fit& f) {
    switch (f.form) {
    case metrics::FitForm::amdahl:
        return fmt::format("{:.4g} / ({:.6g} + {:.6g} p)", f.a, f.b, 1 - f.b);
    case metrics::FitForm::power:
        return fmt::format("{:.4g} p^{:.4g}", f.a, f.b);
    case metrics::FitForm::logarithm:
        return fmt::format("{:.4g} {} {:.4g} ln p", f.a, f.b < 0 ? "-" : "+", std::abs(f.b));
    }
    return {};
}

nlohmann::json curve_json(const metrics::FactorProjection::Curve& c, bool product) {
    nlohmann::json j{{"values", c.values}, {"low", c.low}, {"high", c.high}};
    if (!product) {
        j["form"] = metrics::fit_form_name(c.fit.form);
        j["parameters"] = {c.fit.a, c.fit.b};
    }
    j["loo_error"] = c.loo_error ? nlohmann::json(*c.loo_error) : nlohmann::json();
    return j;
}

} // namespace

std::string format_projection(const metrics::Projection& projection, const TerminalStyle& style) {
    std::string out(1, '\n'); // GCC 12 warns wrongly of overlap on "\n" + a string
    out += wrap_text(
        "Projection against the process count p: modelfactors' fit (Amdahl, y = x0 / (f + (1 - f) "
        "p), the first run weighted 100 times) and the form with the smallest leave-one-out error "
        "(amdahl, power or log; its range over the leave-one-out fits in brackets). Parallel "
        "efficiency is load balance x communication efficiency, global efficiency parallel "
        "efficiency x computation scalability, as in modelfactors",
        style.width);
    std::vector<TextColumn> columns{{.header = "factor"}, {.header = "fit"}};
    for (const auto p : projection.processes) columns.push_back({.header = fmt::format("p={}", p)});
    const auto add = [&](const std::string& factor, const std::string& fit,
                         const metrics::FactorProjection::Curve& c, bool range) {
        columns[0].cells.push_back(factor);
        columns[1].cells.push_back(fit);
        for (std::size_t k = 0; k < projection.processes.size(); ++k) {
            columns[2 + k].cells.push_back(range && c.low[k] != c.high[k]
                                               ? fmt::format("{} [{}, {}]", percent(c.values[k]),
                                                             percent(c.low[k]), percent(c.high[k]))
                                               : percent(c.values[k]));
        }
    };
    for (const auto& f : projection.factors) {
        add(f.name, f.modelfactors_form ? "modelfactors" : "amdahl (not modelfactors')",
            f.modelfactors, false);
        add("", f.product ? "best" : fmt::format("best: {}", describe(f.best.fit)), f.best, true);
    }
    return out + format_columns(std::move(columns), style, {});
}

nlohmann::json projection_json(const metrics::Projection& projection) {
    nlohmann::json j{{"measured_processes", projection.measured_processes},
                     {"processes", projection.processes},
                     {"factors", nlohmann::json::array()}};
    for (const auto& f : projection.factors) {
        j["factors"].push_back({{"name", f.name},
                                {"measured", f.measured},
                                {"product", f.product},
                                {"modelfactors_fits_it", f.modelfactors_form},
                                {"modelfactors", curve_json(f.modelfactors, f.product)},
                                {"best", curve_json(f.best, f.product)}});
    }
    return j;
}

std::string projection_html(const metrics::Projection& projection) {
    std::vector<double> x(projection.processes.begin(), projection.processes.end());
    std::string charts;
    for (const auto& f : projection.factors) {
        LineChart chart{.title = f.name,
                        .x_label = "processes",
                        .y_label = "%",
                        .x = x,
                        .log2_x = true,
                        .y_min = 0,
                        .y_max = 100,
                        .small = true};
        Series measured{"measured", "#1f5fa8", {}, false};
        for (const double p : x) {
            const auto at = std::find(projection.measured_processes.begin(),
                                      projection.measured_processes.end(), p);
            measured.y.push_back(at == projection.measured_processes.end()
                                     ? NAN
                                     : 100 * f.measured[static_cast<std::size_t>(
                                                 at - projection.measured_processes.begin())]);
        }
        const auto percents = [](std::vector<double> v) {
            for (double& y : v) y *= 100;
            return v;
        };
        chart.series = {
            Series{"modelfactors (Amdahl)", "#d95f02", percents(f.modelfactors.values), true},
            Series{"best form", "#2e8b57", percents(f.best.values), false}, std::move(measured)};
        chart.bands = {Band{percents(f.best.low), percents(f.best.high), "#2e8b57"}};
        charts += render_svg(chart);
    }
    return "<h2>Projection</h2><p class=\"meta\">Each factor against the process count: the "
           "measured runs (blue), modelfactors' Amdahl fit (orange, dashed) and the form with the "
           "smallest leave-one-out error (green), shaded over the range of its leave-one-out fits "
           "(docs/metrics.md, Projections).</p><div class=\"charts small-multiples\">" +
           charts + "</div>";
}

std::string projection_gnuplot(const metrics::Projection& projection) {
    const auto& p = projection.measured_processes;
    const double smallest = *std::min_element(p.begin(), p.end());
    const double largest = std::max<double>(
        10000, projection.processes.empty()
                   ? 0
                   : *std::max_element(projection.processes.begin(), projection.processes.end()));
    std::string out = "# popsim analyze --project: the efficiency factors fitted against the\n"
                      "# process count (modelfactors' Amdahl fits, in %), and the measured runs\n";
    out += fmt::format("set xrange [1:{}]\nset logscale x\nset yrange [0:105]\n", largest);
    out += "set xlabel \"Processes\"\nset ylabel \"Efficiency (%)\"\nset grid ytics\n"
           "set key left bottom\n";
    // modelfactors' five: load, comm and comp are fits; para and glob their products.
    const std::pair<const char*, const char*> names[] = {{"para", "Parallel efficiency"},
                                                         {"load", "Load balance"},
                                                         {"comm", "Communication efficiency"},
                                                         {"comp", "Computation scalability"},
                                                         {"glob", "Global efficiency"}};
    const auto factor = [&](const char* name) -> const metrics::FactorProjection& {
        return *std::find_if(projection.factors.begin(), projection.factors.end(),
                             [&](const auto& f) { return f.name == name; });
    };
    out += "para( x ) = load( x ) * comm( x ) / 100\n";
    for (std::size_t k = 1; k <= 3; ++k) {
        const auto& fit = factor(names[k].second).modelfactors.fit;
        out += fmt::format("{}( x ) = ( x > {} ) ? {} / ( {} + ( 1 - {} ) * x ) : 1/0\n",
                           names[k].first, smallest, 100 * fit.a, fit.b, fit.b);
    }
    out += "glob( x ) = para( x ) * comp( x ) / 100\n";
    out += "plot ";
    for (std::size_t k = 0; k < 5; ++k)
        out += fmt::format("{}( x ) title \"{}\" lt {}, ", names[k].first, names[k].second, k + 1);
    for (std::size_t k = 0; k < 5; ++k)
        out += fmt::format("'-' with points notitle lt {}{}", k + 1, k < 4 ? ", " : "\n");
    for (const auto& [name, label] : names) {
        const auto& f = factor(label);
        for (std::size_t i = 0; i < p.size(); ++i)
            out += fmt::format("{} {}\n", p[i], 100 * f.measured[i]);
        out += "e\n";
    }
    return out + "pause -1\n";
}

} // namespace popsim::simulator

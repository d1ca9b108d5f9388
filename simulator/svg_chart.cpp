// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace popsim::simulator {

namespace {

constexpr double k_width = 600, k_height = 360;
constexpr double k_left = 64, k_right = 190, k_top = 40,
                 k_bottom = 60; // the right margin holds the legend

/// Maps data to the plot area.
struct Frame {
    double x0, x1, y0, y1;
    bool log2_x;
    double px(double x) const {
        const auto f = [&](double v) { return log2_x ? std::log2(v) : v; };
        const double span = f(x1) - f(x0);
        return k_left + (span == 0 ? 0.5 : (f(x) - f(x0)) / span) * (k_width - k_left - k_right);
    }
    double py(double y) const {
        return k_height - k_bottom -
               (y1 == y0 ? 0.5 : (y - y0) / (y1 - y0)) * (k_height - k_top - k_bottom);
    }
};

std::string format_tick(double v) {
    if (std::abs(v) >= 1e4 || (std::abs(v) < 1e-2 && v != 0)) return fmt::format("{:.2g}", v);
    return fmt::format("{:g}", std::round(v * 100) / 100);
}

/// A "nice" step for about five ticks.
double tick_step(double span) {
    if (span <= 0) return 1;
    const double raw = span / 5, magnitude = std::pow(10, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= m * magnitude) return m * magnitude;
    return 10 * magnitude;
}

void open_svg(std::string& out, const std::string& title) {
    out += fmt::format(
        R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img">)",
        k_width, k_height);
    out += fmt::format(R"(<text x="{}" y="22" text-anchor="middle" class="chart-title">{}</text>)",
                       (k_width - k_right + k_left) / 2, escape_xml(title));
}

void axes(std::string& out, const Frame& f,
          const std::vector<std::pair<double, std::string>>& x_ticks, const std::string& x_label,
          const std::string& y_label) {
    const double step = tick_step(f.y1 - f.y0);
    for (double y = std::ceil(f.y0 / step) * step; y <= f.y1 + 1e-9; y += step) {
        out += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" class="grid"/>)",
                           k_left, k_width - k_right, f.py(y), f.py(y));
        out += fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end" class="tick">{}</text>)",
                           k_left - 6, f.py(y) + 4, format_tick(y));
    }
    for (const auto& [x, label] : x_ticks)
        out += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle" class="tick">{}</text>)",
                           f.px(x), k_height - k_bottom + 18, escape_xml(label));
    out += fmt::format(
        R"(<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" class="axis"/><line x1="{0}" x2="{3}" y1="{2}" y2="{2}" class="axis"/>)",
        k_left, k_top, k_height - k_bottom, k_width - k_right);
    out += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle" class="label">{}</text>)",
                       (k_left + k_width - k_right) / 2, k_height - 18, escape_xml(x_label));
    out += fmt::format(
        R"svg(<text transform="translate(18,{:.1f}) rotate(-90)" text-anchor="middle" class="label">{}</text>)svg",
        (k_top + k_height - k_bottom) / 2, escape_xml(y_label));
}

void legend(std::string& out, const std::vector<Series>& entries, bool boxes) {
    double y = k_top + 6;
    for (const auto& s : entries) {
        const double x = k_width - k_right + 14;
        if (boxes) {
            out += fmt::format(R"(<rect x="{}" y="{}" width="14" height="10" fill="{}"/>)", x,
                               y - 9, s.color);
        } else {
            out += fmt::format(
                R"(<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="{}" stroke-width="2.5"{}/>)", x,
                x + 18, y - 4, y - 4, s.color, s.dashed ? R"( stroke-dasharray="5 3")" : "");
        }
        out += fmt::format(R"(<text x="{}" y="{}" class="legend">{}</text>)", x + 24, y,
                           escape_xml(s.name));
        y += 18;
    }
}

} // namespace

std::string escape_xml(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string render_svg(const LineChart& c) {
    Frame f{c.x.empty() ? 0 : *std::min_element(c.x.begin(), c.x.end()),
            c.x.empty() ? 1 : *std::max_element(c.x.begin(), c.x.end()), c.y_min, c.y_max,
            c.log2_x};
    if (c.y_min == 0 && c.y_max == 0) {
        for (const auto& s : c.series)
            for (double v : s.y)
                if (std::isfinite(v)) f.y1 = std::max(f.y1, v * 1.05);
        if (f.y1 == 0) f.y1 = 1;
    }
    std::string out;
    open_svg(out, c.title);
    // A label at every point up to a dozen (a scaling series); beyond, about eight evenly spaced.
    constexpr std::size_t k_max_labels = 12;
    const std::size_t every = c.x.size() <= k_max_labels ? 1 : (c.x.size() + 7) / 8;
    std::vector<std::pair<double, std::string>> ticks;
    for (std::size_t i = 0; i < c.x.size(); i += every)
        ticks.emplace_back(c.x[i], i < c.x_labels.size() ? c.x_labels[i] : format_tick(c.x[i]));
    axes(out, f, ticks, c.x_label, c.y_label);
    for (const auto& b : c.bands) {
        std::string points;
        for (std::size_t i = 0; i < c.x.size(); ++i)
            points += fmt::format("{:.1f},{:.1f} ", f.px(c.x[i]),
                                  f.py(std::clamp(b.high[i], f.y0, f.y1)));
        for (std::size_t i = c.x.size(); i-- > 0;)
            points +=
                fmt::format("{:.1f},{:.1f} ", f.px(c.x[i]), f.py(std::clamp(b.low[i], f.y0, f.y1)));
        out += fmt::format(R"(<polygon points="{}" fill="{}" opacity="0.25"/>)", points, b.color);
    }
    for (const auto& s : c.series) {
        std::string points;
        for (std::size_t i = 0; i < c.x.size() && i < s.y.size(); ++i)
            if (std::isfinite(s.y[i]))
                points += fmt::format("{:.1f},{:.1f} ", f.px(c.x[i]), f.py(s.y[i]));
        out +=
            fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="2.5"{}/>)",
                        points, s.color, s.dashed ? R"( stroke-dasharray="5 3")" : "");
        constexpr std::size_t k_max_markers = 60; // beyond, the line alone stays readable
        for (std::size_t i = 0; c.x.size() <= k_max_markers && i < c.x.size() && i < s.y.size();
             ++i)
            if (std::isfinite(s.y[i]))
                out += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3.5" fill="{}"/>)",
                                   f.px(c.x[i]), f.py(s.y[i]), s.color);
    }
    legend(out, c.series, false);
    return out + "</svg>";
}

std::string render_svg(const StackedBars& c) {
    const std::size_t n = c.categories.size();
    double top = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (const auto& p : c.parts) sum += i < p.y.size() ? p.y[i] : 0;
        top = std::max(top, sum);
    }
    const Frame f{0, static_cast<double>(n), 0, top == 0 ? 1 : top * 1.05, false};
    std::string out;
    open_svg(out, c.title);
    std::vector<std::pair<double, std::string>> ticks;
    const std::size_t label_every = n > 16 ? (n + 15) / 16 : 1;
    for (std::size_t i = 0; i < n; i += label_every)
        ticks.emplace_back(static_cast<double>(i) + 0.5, c.categories[i]);
    axes(out, f, ticks, c.x_label, c.y_label);
    const double slot = (f.px(1) - f.px(0)), width = std::max(1.0, slot * 0.7);
    for (std::size_t i = 0; i < n; ++i) {
        double base = 0;
        for (const auto& p : c.parts) {
            const double v = i < p.y.size() ? p.y[i] : 0;
            out += fmt::format(
                R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{}: {}</title></rect>)",
                f.px(static_cast<double>(i)) + (slot - width) / 2, f.py(base + v), width,
                f.py(base) - f.py(base + v), p.color, escape_xml(c.categories[i]),
                escape_xml(fmt::format("{} {:.2f}", p.name, v)));
            base += v;
        }
    }
    legend(out, c.parts, true);
    return out + "</svg>";
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace popsim::simulator {

namespace {

/// A chart's size and margins: the right one holds the legend.
struct Box {
    double width = 600, height = 360, left = 64, right = 190, top = 40, bottom = 60;
};
constexpr Box k_full{}, k_small{300, 220, 52, 14, 34, 52};

/// Where `v` stands between `low` and `high` (0 to 1; 0.5 when they are equal), on a linear or
/// base-2 log scale.
double along(double v, double low, double high, bool log2) {
    const auto f = [log2](double u) { return log2 ? std::log2(u) : u; };
    const double span = f(high) - f(low);
    return span == 0 ? 0.5 : (f(v) - f(low)) / span;
}

/// Maps data to the plot area.
struct Frame {
    double x0, x1, y0, y1;
    bool log2_x;
    bool log2_y = false;
    Box box = k_full;
    double px(double x) const {
        return box.left + along(x, x0, x1, log2_x) * (box.width - box.left - box.right);
    }
    double py(double y) const {
        return box.height - box.bottom -
               along(y, y0, y1, log2_y) * (box.height - box.top - box.bottom);
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

void open_svg(std::string& out, const std::string& title, const Box& box) {
    out += fmt::format(
        R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img">)",
        box.width, box.height);
    out += fmt::format(R"(<text x="{}" y="22" text-anchor="middle" class="chart-title">{}</text>)",
                       (box.width - box.right + box.left) / 2, escape_xml(title));
}

/// The y ticks: about five round numbers, or the powers of two of a log axis.
std::vector<double> y_ticks(const Frame& f) {
    std::vector<double> out;
    if (f.log2_y) {
        for (double y = std::exp2(std::ceil(std::log2(f.y0) - 1e-9)); y <= f.y1 * (1 + 1e-9);
             y *= 2)
            out.push_back(y);
        return out;
    }
    const double step = tick_step(f.y1 - f.y0);
    for (double y = std::ceil(f.y0 / step) * step; y <= f.y1 + 1e-9; y += step) out.push_back(y);
    return out;
}

void axes(std::string& out, const Frame& f,
          const std::vector<std::pair<double, std::string>>& x_ticks, const std::string& x_label,
          const std::string& y_label) {
    const Box& b = f.box;
    for (const double y : y_ticks(f)) {
        out += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" class="grid"/>)",
                           b.left, b.width - b.right, f.py(y), f.py(y));
        out += fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end" class="tick">{}</text>)",
                           b.left - 6, f.py(y) + 4, format_tick(y));
    }
    for (const auto& [x, label] : x_ticks)
        out += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle" class="tick">{}</text>)",
                           f.px(x), b.height - b.bottom + 18, escape_xml(label));
    out += fmt::format(
        R"(<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" class="axis"/><line x1="{0}" x2="{3}" y1="{2}" y2="{2}" class="axis"/>)",
        b.left, b.top, b.height - b.bottom, b.width - b.right);
    out += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle" class="label">{}</text>)",
                       (b.left + b.width - b.right) / 2, b.height - 18, escape_xml(x_label));
    out += fmt::format(
        R"svg(<text transform="translate(14,{:.1f}) rotate(-90)" text-anchor="middle" class="label">{}</text>)svg",
        (b.top + b.height - b.bottom) / 2, escape_xml(y_label));
}

void legend(std::string& out, const std::vector<Series>& entries, bool boxes) {
    double y = k_full.top + 6;
    for (const auto& s : entries) {
        const double x = k_full.width - k_full.right + 14;
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
            c.x.empty() ? 1 : *std::max_element(c.x.begin(), c.x.end()),
            c.y_min,
            c.y_max,
            c.log2_x,
            c.log2_y,
            c.small ? k_small : k_full};
    // The axes hold every point (and a log axis positive values only).
    double low = INFINITY, high = -INFINITY;
    for (const auto& s : c.series)
        for (double v : s.y)
            if (std::isfinite(v) && (!c.log2_y || v > 0)) {
                low = std::min(low, v);
                high = std::max(high, v);
            }
    if (c.y_min == 0 && c.y_max == 0) {
        f.y1 = std::isfinite(high) ? high * 1.05 : 1;
        if (f.y1 <= 0) f.y1 = 1;
    } else if (std::isfinite(high)) {
        f.y0 = std::min(f.y0, low);
        f.y1 = std::max(f.y1, high * 1.02);
    }
    if (c.log2_y) {
        f.y0 = std::isfinite(low) ? std::exp2(std::floor(std::log2(low))) : 1;
        f.y1 = std::isfinite(high) ? std::exp2(std::ceil(std::log2(high))) : 2;
        if (f.y1 <= f.y0) f.y1 = 2 * f.y0;
    }
    std::string out;
    open_svg(out, c.title, f.box);
    // A label at every point up to a dozen (a scaling series); beyond, about eight evenly spaced
    // (four on a small chart, whose labels would run into each other).
    constexpr std::size_t k_max_labels = 12;
    const std::size_t spaced = c.small ? 4 : 8;
    const std::size_t every = c.x.size() <= k_max_labels ? 1 : (c.x.size() + spaced - 1) / spaced;
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
        const auto drawn = [&](double v) { return std::isfinite(v) && (!c.log2_y || v > 0); };
        for (std::size_t i = 0; i < c.x.size() && i < s.y.size(); ++i)
            if (drawn(s.y[i])) points += fmt::format("{:.1f},{:.1f} ", f.px(c.x[i]), f.py(s.y[i]));
        out +=
            fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="2.5"{}/>)",
                        points, s.color, s.dashed ? R"( stroke-dasharray="5 3")" : "");
        // Markers on the data, not on reference lines; beyond 60 points the line alone reads.
        constexpr std::size_t k_max_markers = 60;
        for (std::size_t i = 0;
             !s.dashed && c.x.size() <= k_max_markers && i < c.x.size() && i < s.y.size(); ++i)
            if (drawn(s.y[i]))
                out += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3.5" fill="{}"/>)",
                                   f.px(c.x[i]), f.py(s.y[i]), s.color);
    }
    if (!c.small) legend(out, c.series, false);
    return out + "</svg>";
}

double tallest_bar(const StackedBars& c) {
    double top = 0;
    for (std::size_t i = 0; i < c.categories.size(); ++i) {
        double sum = 0;
        for (const auto& p : c.parts) sum += i < p.y.size() ? p.y[i] : 0;
        top = std::max(top, sum);
    }
    return top;
}

std::string render_svg(const StackedBars& c) {
    const std::size_t n = c.categories.size();
    const double top = std::max(c.y_max, tallest_bar(c));
    const Frame f{0, static_cast<double>(n), 0, top == 0 ? 1 : top * 1.05, false};
    std::string out;
    open_svg(out, c.title, f.box);
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

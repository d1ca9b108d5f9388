// SPDX-License-Identifier: BSD-3-Clause
// The HTML report's charts (issue 36, item 6): nothing drawn outside the axes, and the speed-up
// on log-log axes, where the ideal is a straight line.
#include "simulator/reports/svg_chart.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <regex>
#include <string>
#include <vector>

using namespace popsim::simulator;

namespace {

struct Point {
    double x, y;
};

std::vector<Point> markers(const std::string& svg) {
    std::vector<Point> out;
    const std::regex circle(R"re(<circle cx="([-\d.]+)" cy="([-\d.]+)")re");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle);
         it != std::sregex_iterator(); ++it)
        out.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
    return out;
}

/// The plot's frame from its two axis lines: left, top, bottom (y grows downwards).
std::vector<double> frame(const std::string& svg) {
    const std::regex axis(
        R"re(<line x1="([\d.]+)" x2="([\d.]+)" y1="([\d.]+)" y2="([\d.]+)" class="axis"/>)re");
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, axis));
    return {std::stod(m[1]), std::stod(m[3]), std::stod(m[4])};
}

} // namespace

TEST_CASE("svg chart: an efficiency above the axis' 100 % grows the axis, not the title's space") {
    // A region instance's Transfer efficiency of 125 % (records that disagree) on a 0-100 axis.
    LineChart chart{.title = "Transfer efficiency", .x = {1, 2, 3}, .y_min = 0, .y_max = 100};
    chart.series = {Series{"TE", "#000", {90, 125, 100}, false}};
    for (const bool small : {false, true}) {
        chart.small = small;
        const auto svg = render_svg(chart);
        const auto f = frame(svg);
        const auto points = markers(svg);
        REQUIRE(points.size() == 3);
        for (const auto& p : points) {
            CHECK(p.y >= f[1] - 0.5);
            CHECK(p.y <= f[2] + 0.5);
        }
        CHECK(points[1].y - f[1] < 10); // near the top, not above it
    }
}

TEST_CASE("svg chart: on log-log axes the ideal speed-up 1, 2, 4, 8 is a straight line") {
    LineChart chart{.title = "Speed-up", .x = {1, 2, 4, 8}, .log2_x = true, .log2_y = true};
    chart.series = {Series{"ideal", "#000", {1, 2, 4, 8}, false}};
    const auto points = markers(render_svg(chart));
    REQUIRE(points.size() == 4);
    // Equal steps in x and in y between successive doublings.
    for (std::size_t i = 2; i < points.size(); ++i) {
        // (coordinates are written to a tenth of a pixel)
        CHECK(std::abs((points[i].x - points[i - 1].x) - (points[1].x - points[0].x)) <= 0.2);
        CHECK(std::abs((points[i].y - points[i - 1].y) - (points[1].y - points[0].y)) <= 0.2);
    }
}

// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/console/progress_bar.hpp"

#include "pipeline/console/memory_use.hpp"
#include "pipeline/console/terminal.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

namespace popsim::pipeline {

namespace {
constexpr double k_delay_s = 1.0;  // quick work shows no bar
constexpr double k_period_s = 0.1; // redraw at most ten times a second
} // namespace

ProgressBar::ProgressBar(const std::vector<MeterSpec>& meters)
    : enabled_(watched_terminal(STDERR_FILENO)) {
    for (const auto& spec : meters) {
        auto& meter = meters_.emplace_back();
        meter.label = spec.label;
        meter.unit = spec.unit;
        meter.total = spec.total;
    }
}

ProgressBar::~ProgressBar() {
    if (drawn_) std::fputs("\r\033[K", stderr); // leave the terminal clean
}

void ProgressBar::add_total(std::size_t meter, std::uint64_t amount) {
    meters_[meter].total += amount;
}

std::function<void(std::uint64_t)> ProgressBar::running_total(std::size_t meter) {
    return [this, meter, reported = std::uint64_t{0}](std::uint64_t so_far) mutable {
        add(meter, so_far - reported);
        reported = so_far;
    };
}

std::uint64_t input_file_bytes(const std::vector<std::string>& paths) {
    std::uint64_t total = 0;
    for (const auto& p : paths) {
        std::error_code error;
        if (!std::filesystem::is_regular_file(p, error)) return 0;
        total += std::filesystem::file_size(p, error);
    }
    return total;
}

void ProgressBar::add(std::size_t meter, std::uint64_t amount) {
    meters_[meter].done += amount;
    if (!enabled_) return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (seconds < k_delay_s) return;
    const std::lock_guard lock(mutex_);
    if (seconds - last_draw_ < k_period_s) return;
    last_draw_ = seconds;
    draw(seconds);
}

void ProgressBar::draw(double seconds) {
    std::string line = "\r";
    for (const auto& meter : meters_) {
        const std::uint64_t done = meter.done, total = meter.total;
        if (done == 0) continue;
        if (line.size() > 1) line += " · ";
        line += meter.label;
        if (total > 0) {
            const double fraction =
                std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
            line += fmt::format(" {:3.0f}%", 100 * fraction);
        }
        if (meter.unit == Unit::bytes && (total == 0 || done < total)) { // rate while reading
            const double mb = static_cast<double>(done) / 1e6;
            line += fmt::format(" {:.0f} MB at {:.0f} MB/s", mb, mb / seconds);
        }
    }
    if (const auto rss = resident_memory_bytes(); rss > 0)
        line += fmt::format(" · {:.0f} MB in memory", static_cast<double>(rss) / 1e6);
    line += "\033[K";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    drawn_ = true;
}

} // namespace popsim::pipeline

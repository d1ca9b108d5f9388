#include "simulator/progress_bar.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

namespace popsim::simulator {

namespace {
constexpr double k_delay_s = 1.0;  // quick work shows no bar
constexpr double k_period_s = 0.1; // redraw at most ten times a second
constexpr int k_width = 30;
} // namespace

ProgressBar::ProgressBar(std::string label, std::uint64_t total_bytes)
    : label_(std::move(label)), total_(total_bytes), enabled_(isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() {
    if (drawn_) std::fputs("\r\033[K", stderr); // leave the terminal clean
}

void ProgressBar::add(std::uint64_t bytes) {
    const std::uint64_t done = done_ += bytes;
    if (!enabled_) return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (seconds < k_delay_s) return;
    const std::lock_guard lock(mutex_);
    if (seconds - last_draw_ < k_period_s) return;
    last_draw_ = seconds;
    draw(done, seconds);
}

void ProgressBar::draw(std::uint64_t done, double seconds) {
    const double mb = static_cast<double>(done) / 1e6, rate = mb / seconds;
    std::string line;
    if (total_ > 0) {
        const double fraction =
            std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
        const int filled = static_cast<int>(fraction * k_width);
        line = fmt::format("\r{} [{}{}] {:3.0f}% {:.0f} MB at {:.0f} MB/s", label_,
                           std::string(static_cast<std::size_t>(filled), '#'),
                           std::string(static_cast<std::size_t>(k_width - filled), '.'),
                           100 * fraction, mb, rate);
    } else {
        line = fmt::format("\r{} {:.0f} MB read at {:.0f} MB/s", label_, mb, rate);
    }
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    drawn_ = true;
}

} // namespace popsim::simulator

#pragma once
// A progress bar on stderr for reading traces: shown only when stderr is a terminal and the work
// has taken more than a second; safe to update from several threads.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace popsim::simulator {

class ProgressBar {
  public:
    /// `total_bytes` 0 = unknown (compressed input): the bar then shows bytes and rate only.
    ProgressBar(std::string label, std::uint64_t total_bytes);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    void add(std::uint64_t bytes);

  private:
    void draw(std::uint64_t done, double seconds);

    std::string label_;
    std::uint64_t total_;
    bool enabled_;
    std::atomic<std::uint64_t> done_{0};
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::mutex mutex_;
    double last_draw_ = 0;
    bool drawn_ = false;
};

} // namespace popsim::simulator

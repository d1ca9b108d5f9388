// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Progress on stderr for long work: one line of meters ("reading 45% 610 MB at 250 MB/s ·
// replaying 12%"), shown only when stderr is a terminal and the work has taken more than a
// second; safe to update from several threads.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace popsim::pipeline {

class ProgressBar {
  public:
    enum class Unit { bytes, operations };
    struct MeterSpec {
        std::string label;
        Unit unit = Unit::bytes;
        std::uint64_t total = 0; // 0 = unknown (a pipe) until add_total
    };
    explicit ProgressBar(const std::vector<MeterSpec>& meters);
    ~ProgressBar();
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    /// `amount` more of meter `meter`'s work done.
    void add(std::size_t meter, std::uint64_t amount);
    /// `amount` more work for meter `meter`, found on the way (e.g. a replay program built).
    void add_total(std::size_t meter, std::uint64_t amount);
    /// A callback for one source of meter `meter`'s work that reports its running total (a
    /// reader's bytes so far: ReadOptions::on_progress).
    std::function<void(std::uint64_t)> running_total(std::size_t meter);

  private:
    struct Meter {
        std::string label;
        Unit unit;
        std::atomic<std::uint64_t> done{0}, total{0};
    };
    void draw(double seconds);

    std::deque<Meter> meters_; // atomics do not move: a deque keeps them in place
    bool enabled_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::mutex mutex_;
    double last_draw_ = 0;
    bool drawn_ = false;
};

/// The size of the trace files (compressed, for gzip ones: readers report the bytes of the file
/// they have read), or 0 when one has no size (a pipe: the bar then shows bytes and rate).
std::uint64_t input_file_bytes(const std::vector<std::string>& paths);

} // namespace popsim::pipeline

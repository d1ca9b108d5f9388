// SPDX-License-Identifier: BSD-3-Clause
// The per-stage costs of one .prv read by several processes (replay/input/divided_read.hpp), for
// the model of docs/architecture.md ("Many processes"): what a helper does per byte (read and
// parse a range, its parsed block as bytes), how many bytes travel per byte of text, and how fast
// the reader goes on (apply, summarise, replay) when its helpers are infinitely fast: the
// answers made beforehand, the reader parsing 1 range in 64 itself.
// Usage: popsim_divided_read_bench TRACE.prv|TRACE.prv.gz (bgzip's, with its index)
#include "metrics/streaming_analysis.hpp"
#include "replay/input/divided_read.hpp"
#include "replay/input/line_reader.hpp"

#include <chrono>
#include <deque>
#include <fmt/format.h>

using namespace popsim;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Helpers whose answers are ready before they are asked.
class ReadyHelpers final : public replay::ReadHelpers {
  public:
    ReadyHelpers(std::uint32_t count, std::vector<std::deque<std::string>> answers)
        : count_(count), answers_(std::move(answers)) {}
    std::uint32_t count() const override { return count_; }
    void ask(std::uint32_t, const replay::BodyRange&) override {}
    std::string answer(std::uint32_t helper) override {
        std::string block = std::move(answers_[helper].front());
        answers_[helper].pop_front();
        return block;
    }

  private:
    std::uint32_t count_;
    std::vector<std::deque<std::string>> answers_;
};

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        fmt::print(stderr, "usage: {} TRACE.prv\n", argv[0]);
        return 1;
    }
    const std::string path = argv[1];
    const replay::ReadOptions defaults;
    const std::size_t block = defaults.text_bytes(path.ends_with(".gz"));
    replay::BodyText file(path); // a .prv, or a .prv.gz with its bgzip index
    std::string first;
    file.read_at(0, block, first);
    const std::uint64_t body = first.rfind('\n') + 1; // where the reader's first block ends
    const std::uint64_t size = file.size();
    const std::uint64_t ranges = (size - body + block - 1) / block;
    replay::LineReader lines(path);
    const auto header = replay::read_header_line(lines); // its time unit

    // A helper's work, on one thread, for every range but the reader's (1 in 64).
    constexpr std::uint32_t k_helpers = 63;
    std::vector<std::deque<std::string>> answers(k_helpers);
    replay::TextBlock text;
    replay::ParsedBlock parsed;
    std::uint64_t text_bytes = 0, sent_bytes = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t j = 0; j < ranges; ++j) {
        if (j % (k_helpers + 1) == 0) continue;
        replay::BodyRange range{
            .body_begin = body, .begin = body + j * block, .ns_per_unit = header.ns_per_unit};
        if (j + 1 < ranges) range.end = range.begin + block;
        replay::read_body_range(file, range, text);
        replay::parse_block(text, range.ns_per_unit, parsed);
        answers[j % (k_helpers + 1) - 1].push_back(replay::to_bytes(parsed));
        text_bytes += text.text.size();
        sent_bytes += answers[j % (k_helpers + 1) - 1].back().size();
    }
    const double helper_s = seconds_since(t0);

    const metrics::IdealOptions ideal;
    const auto analyze = [&](replay::ReadHelpers* helpers) {
        replay::ReadOptions o;
        o.helpers = helpers;
        const auto t = std::chrono::steady_clock::now();
        (void)metrics::analyze_streaming(path, o, false, &ideal);
        return seconds_since(t);
    };
    const double alone_s = analyze(nullptr);
    ReadyHelpers ready(k_helpers, std::move(answers));
    const double reader_s = analyze(&ready);

    const double mb = static_cast<double>(size) / 1e6; // of text
    fmt::print("trace                         {} ({:.0f} MB of text, {} ranges of {} KiB)\n", path,
               mb, ranges, block >> 10);
    fmt::print("helper, one thread            {:6.0f} MB/s of text read, parsed and encoded\n",
               static_cast<double>(text_bytes) / 1e6 / helper_s);
    fmt::print("bytes sent per byte of text   {:6.2f}\n",
               static_cast<double>(sent_bytes) / static_cast<double>(text_bytes));
    fmt::print("analyze, alone (all cores)    {:6.0f} MB/s\n", mb / alone_s);
    fmt::print("analyze, helpers instant      {:6.0f} MB/s (the reader's bound: apply, summarise, "
               "replay)\n",
               mb / reader_s);
    return 0;
}

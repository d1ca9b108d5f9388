// SPDX-License-Identifier: BSD-3-Clause
#include "replay/streaming/live_replays.hpp"

#include "replay/engine/cpu_scheduler.hpp"

#include <algorithm>
#include <oneapi/tbb/parallel_for.h>

namespace popsim::replay {

namespace {
/// Operations written between two advances at least: 1 MiB of them.
constexpr std::uint64_t k_advance_every = 1 << 16;
} // namespace

bool LiveReplays::replays_live(const network::NetworkModel& model, std::uint32_t tasks) {
    std::vector<std::uint32_t> nodes(tasks);
    for (std::uint32_t t = 0; t < tasks; ++t) nodes[t] = model.node_of(t);
    return !engine::CpuScheduler(std::move(nodes), model.cpus_per_node()).limited();
}

LiveReplays::LiveReplays(std::uint32_t tasks, const std::vector<network::NetworkModel*>& models,
                         const EngineOptions& options, std::uint64_t advance_every)
    : program_(tasks),
      every_(advance_every > 0
                 ? advance_every
                 : std::max<std::uint64_t>(k_advance_every, 8 * std::uint64_t{tasks})) {
    replays_.reserve(models.size());
    for (auto* model : models) replays_.emplace_back(program_, *model, options);
}

LiveReplays::~LiveReplays() {
    try {
        work_.wait();
    } catch (...) { // what made the writer stop is reported, not the replays' consequence of it
    }
}

void LiveReplays::advance() {
    if (replays_.empty() || batch_.operations() < every_) return;
    work_.wait();
    std::swap(batch_, handed_);
    work_.run([this] {
        take(handed_);
        oneapi::tbb::parallel_for(std::size_t{0}, replays_.size(),
                                  [&](std::size_t r) { replays_[r].advance(); });
    });
}

void LiveReplays::take(engine::WriteBatch& batch) {
    // What every replay has passed: the lowest of theirs.
    const auto lowest = [&](auto of) {
        auto low = of(replays_.front());
        for (const auto& r : replays_) low = std::min(low, of(r));
        return low;
    };
    for (ReplayThread t = 0; t < program_.thread_count(); ++t)
        program_.forget_before(t,
                               lowest([t](const IncrementalReplay& r) { return r.position(t); }));
    program_.forget_messages_before(
        lowest([](const IncrementalReplay& r) { return r.first_message_under_way(); }));
    program_.forget_collectives_before(
        lowest([](const IncrementalReplay& r) { return r.first_collective_under_way(); }));
    batch.write_into(program_);
}

std::vector<ReplayResult> LiveReplays::finish() {
    work_.wait();
    std::vector<ReplayResult> results(replays_.size());
    if (replays_.empty()) return results;
    take(batch_);
    program_.complete();
    oneapi::tbb::parallel_for(std::size_t{0}, replays_.size(), [&](std::size_t r) {
        replays_[r].advance();
        results[r] = replays_[r].finish();
    });
    return results;
}

} // namespace popsim::replay

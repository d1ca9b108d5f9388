// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/traced_calls.hpp"

namespace popsim::replay {

namespace {

class ColumnCursor final : public CallCursor {
  public:
    explicit ColumnCursor(const ThreadTimeline& thread) : thread_(thread) {}
    bool next(TracedCall& call) override {
        if (at_ == thread_.call_begin.size()) return false;
        call = {thread_.call_begin[at_], thread_.call_end[at_], thread_.call_id[at_]};
        ++at_;
        return true;
    }

  private:
    const ThreadTimeline& thread_;
    std::size_t at_ = 0;
};

class SpillCursor final : public CallCursor {
  public:
    explicit SpillCursor(Spill<TracedCall>::Reader reader) : reader_(std::move(reader)) {}
    bool next(TracedCall& call) override { return reader_.next(call); }

  private:
    Spill<TracedCall>::Reader reader_;
};

} // namespace

std::unique_ptr<CallCursor> CallsInTrace::cursor(ThreadIndex thread) const {
    return std::make_unique<ColumnCursor>(trace_.threads[thread]);
}

SpilledCalls::SpilledCalls(const std::string& output, std::size_t threads)
    : spill_(output, threads) {}

std::unique_ptr<CallCursor> SpilledCalls::cursor(ThreadIndex thread) const {
    return std::make_unique<SpillCursor>(spill_.reader(thread));
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Hands a TimelineObserver's callbacks over to it in batches, out of the reader's ordered stage:
// the streaming replay then runs beside the reader. The Paraver reader runs each block's batch in
// a later stage of its pipeline (work_after_block); for other readers (OTF2) a thread of its own
// applies them.
//
// Example:
//   StreamingReplay replay(trace, options);
//   BackgroundObserver background(replay); // give the builder `background`
//   ... records ...
//   background.drain(); // every callback applied; rethrows what the replay threw
//   replay.finish(trace);
#include "replay/input/timeline_observer.hpp"
#include "replay/spare_buffers.hpp"

#include <atomic>
#include <exception>
#include <limits>
#include <memory>
#include <oneapi/tbb/concurrent_queue.h>
#include <thread>

namespace popsim::replay {

class BackgroundObserver final : public TimelineObserver {
  public:
    explicit BackgroundObserver(TimelineObserver& target);
    ~BackgroundObserver() override;
    BackgroundObserver(const BackgroundObserver&) = delete;
    BackgroundObserver& operator=(const BackgroundObserver&) = delete;

    void entered(ThreadIndex thread, Time time, std::uint16_t id) override;
    void state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) override;
    void call(ThreadIndex thread, const ObservedCall& call) override;
    void event(ThreadIndex thread, Time time, std::uint32_t type, std::uint64_t value) override;
    void comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& record,
              std::uint64_t number) override;
    void reached(Time time) override;
    void burst_cut(ThreadIndex thread, Time time) override;
    /// The callbacks since the last block, applied to the target when the reader runs the
    /// function. Once a reader asks, every batch is handed over so, and no thread is started.
    std::function<void()> work_after_block() override;

    /// Waits until the target has had every callback so far; rethrows what it threw (the first
    /// exception also comes back from a later callback, so a failed target stops the reader).
    void drain();

  private:
    enum class Kind : std::uint8_t {
        entered,
        state,
        call,
        collective_call,
        event,
        comm,
        reached,
        burst_cut
    };
    /// Each callback's kind and its arguments, one after another with no padding: 15-30 bytes
    /// for most (a variant of them all takes 104). The batches are written and read at reading
    /// speed: each argument is copied straight into place (not through a struct on the stack,
    /// whose padded copy the processor stalls on), and the batches are used again once applied.
    struct Batch {
        std::unique_ptr<std::byte[]> bytes; // null: the worker stops
        std::size_t size = 0, capacity = 0;
    };

    template <class... Args> void add(Kind kind, const Args&... args);
    void apply(const Batch& batch);
    void make_room(std::size_t bytes);
    void send();
    Batch empty_batch();
    void apply_batches();
    void rethrow_if_failed();

    TimelineObserver& target_;
    Batch filling_;
    std::size_t last_reached_ = std::numeric_limits<std::size_t>::max(); // its last item, a Reached
    oneapi::tbb::concurrent_bounded_queue<Batch> queue_;
    SpareBuffers<Batch> applied_batches_; // to fill again
    std::atomic<bool> failed_{false};
    std::exception_ptr error_;
    std::atomic<std::uint64_t> sent_{0}, applied_{0};
    Time reached_ = std::numeric_limits<Time>::min(); // the latest place handed over
    bool pipelined_ = false; // the reader applies the batches (work_after_block)
    std::thread worker_;     // else this applies them, started with the first batch
};

} // namespace popsim::replay

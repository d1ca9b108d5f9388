#pragma once
// Hands a TimelineObserver's callbacks over to it on a thread of its own, in batches: the
// streaming replay then runs beside the reader instead of inside the reader's ordered stage.
//
// Example:
//   StreamingReplay replay(trace, options);
//   BackgroundObserver background(replay); // give the builder `background`
//   ... records ...
//   background.drain(); // every callback applied; rethrows what the replay threw
//   replay.finish(trace);
#include "replay/input/timeline_observer.hpp"

#include <atomic>
#include <exception>
#include <limits>
#include <memory>
#include <oneapi/tbb/concurrent_queue.h>
#include <thread>
#include <vector>

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

    /// Waits until the target has had every callback so far; rethrows what it threw (the first
    /// exception also comes back from a later callback, so a failed target stops the reader).
    void drain();

  private:
    // Each callback's arguments, packed into a batch behind their kind.
    struct Entered {
        static constexpr std::byte kind{0};
        ThreadIndex thread;
        Time time;
        std::uint16_t id;
    };
    struct State {
        static constexpr std::byte kind{1};
        ThreadIndex thread;
        Time begin, end;
        std::uint8_t value;
    };
    struct Call {
        static constexpr std::byte kind{2};
        ThreadIndex thread;
        ObservedCall call;
    };
    struct Event {
        static constexpr std::byte kind{3};
        ThreadIndex thread;
        Time time;
        std::uint32_t type;
        std::uint64_t value;
    };
    struct Comm {
        static constexpr std::byte kind{4};
        ThreadIndex sender, receiver;
        CommRecord record;
        std::uint64_t number;
    };
    struct Reached {
        static constexpr std::byte kind{5};
        Time time;
    };
    /// The callbacks' arguments one after another, each behind its kind: 20-40 bytes for most,
    /// where a variant of them all takes 104 (the batches are written and read at reading speed).
    using Batch = std::vector<std::byte>;

    template <class Item> void add(const Item& item);
    void apply(const Batch& batch);
    void send();
    void apply_batches();
    void rethrow_if_failed();

    TimelineObserver& target_;
    std::unique_ptr<Batch> filling_;
    std::size_t filling_count_ = 0;                                      // callbacks in filling_
    std::size_t last_reached_ = std::numeric_limits<std::size_t>::max(); // its last item, a Reached
    oneapi::tbb::concurrent_bounded_queue<std::unique_ptr<Batch>> queue_; // nullptr: stop
    std::atomic<bool> failed_{false};
    std::exception_ptr error_;
    std::atomic<std::uint64_t> sent_{0}, applied_{0};
    Time reached_ = std::numeric_limits<Time>::min(); // the latest place handed over
    std::thread worker_;
};

} // namespace popsim::replay

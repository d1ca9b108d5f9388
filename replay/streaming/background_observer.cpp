// SPDX-License-Identifier: BSD-3-Clause
#include "replay/streaming/background_observer.hpp"

#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

namespace popsim::replay {

namespace {
constexpr std::size_t k_batch_bytes = 256 << 10; // handed over at once: 6,000-13,000 callbacks
constexpr std::ptrdiff_t k_in_flight = 4;        // batches queued at most: 1 MB
} // namespace

BackgroundObserver::BackgroundObserver(TimelineObserver& target) : target_(target) {
    filling_ = empty_batch(); // once the queues are made
    queue_.set_capacity(k_in_flight);
}

BackgroundObserver::~BackgroundObserver() {
    if (!worker_.joinable()) return;
    queue_.push(Batch{});
    worker_.join();
}

namespace {
/// The value at `at`, and `at` moved past it.
template <class T> T take(const std::byte*& at) {
    T value;
    std::memcpy(&value, at, sizeof(T));
    at += sizeof(T);
    return value;
}

/// The values at `at`, in turn (a braced list is evaluated in order, a call's arguments are not).
template <class... Ts> std::tuple<Ts...> take_all(const std::byte*& at) {
    return {take<Ts>(at)...};
}
} // namespace

void BackgroundObserver::apply(const Batch& batch) {
    TimelineObserver& to = target_;
    const std::byte* at = batch.bytes.get();
    for (const std::byte* end = at + batch.size; at < end;) {
        switch (const auto kind = take<Kind>(at)) {
        case Kind::entered:
            std::apply([&](auto... a) { to.entered(a...); },
                       take_all<ThreadIndex, Time, std::uint16_t>(at));
            break;
        case Kind::state:
            std::apply([&](auto... a) { to.state(a...); },
                       take_all<ThreadIndex, Time, Time, std::uint8_t>(at));
            break;
        case Kind::call:
        case Kind::collective_call: {
            const auto [thread, begin, end_time, id] =
                take_all<ThreadIndex, Time, Time, std::uint16_t>(at);
            ObservedCall call{.begin = begin, .end = end_time, .id = id, .attributes = {}};
            if (kind == Kind::collective_call) call.attributes = take<CollectiveAttributes>(at);
            to.call(thread, call);
            break;
        }
        case Kind::event:
            std::apply([&](auto... a) { to.event(a...); },
                       take_all<ThreadIndex, Time, std::uint32_t, std::uint64_t>(at));
            break;
        case Kind::comm:
            std::apply([&](auto... a) { to.comm(a...); },
                       take_all<ThreadIndex, ThreadIndex, CommRecord, std::uint64_t>(at));
            break;
        case Kind::reached:
            to.reached(take<Time>(at));
            break;
        case Kind::burst_cut:
            std::apply([&](auto... a) { to.burst_cut(a...); }, take_all<ThreadIndex, Time>(at));
            break;
        }
    }
}

void BackgroundObserver::apply_batches() {
    for (;;) {
        Batch batch;
        queue_.pop(batch);
        if (!batch.bytes) return;
        if (!failed_) {
            try {
                apply(batch);
            } catch (...) {
                error_ = std::current_exception();
                failed_ = true;
            }
        }
        batch.size = 0;
        applied_batches_.push(std::move(batch));
        ++applied_;
        applied_.notify_all();
    }
}

void BackgroundObserver::rethrow_if_failed() {
    if (failed_) std::rethrow_exception(error_);
}

template <class... Args> void BackgroundObserver::add(Kind kind, const Args&... args) {
    static_assert((std::is_trivially_copyable_v<Args> && ...));
    constexpr std::size_t bytes = sizeof(Kind) + (sizeof(Args) + ...);
    if (filling_.capacity - filling_.size < bytes) make_room(bytes);
    std::byte* at = filling_.bytes.get() + filling_.size;
    std::memcpy(at, &kind, sizeof(Kind));
    at += sizeof(Kind);
    ((std::memcpy(at, &args, sizeof(Args)), at += sizeof(Args)), ...);
    filling_.size += bytes;
    last_reached_ = std::numeric_limits<std::size_t>::max();
}

BackgroundObserver::Batch BackgroundObserver::empty_batch() {
    Batch batch;
    if (applied_batches_.try_pop(batch)) return batch;
    return {std::make_unique_for_overwrite<std::byte[]>(k_batch_bytes), 0, k_batch_bytes};
}

void BackgroundObserver::make_room(std::size_t bytes) {
    if (!pipelined_) return send();
    // A block's callbacks go over at once, whatever their size.
    Batch larger{nullptr, filling_.size, std::max(2 * filling_.capacity, filling_.size + bytes)};
    larger.bytes = std::make_unique_for_overwrite<std::byte[]>(larger.capacity);
    std::memcpy(larger.bytes.get(), filling_.bytes.get(), filling_.size);
    filling_ = std::move(larger);
}

void BackgroundObserver::send() {
    rethrow_if_failed();
    if (filling_.size == 0) return;
    if (!worker_.joinable()) worker_ = std::thread([this] { apply_batches(); });
    Batch next = empty_batch();
    ++sent_;
    last_reached_ = std::numeric_limits<std::size_t>::max();
    queue_.push(std::exchange(filling_, std::move(next)));
}

std::function<void()> BackgroundObserver::work_after_block() {
    pipelined_ = true;
    if (filling_.size == 0) return {};
    auto batch = std::make_shared<Batch>(std::exchange(filling_, empty_batch()));
    last_reached_ = std::numeric_limits<std::size_t>::max();
    return [this, batch] {
        apply(*batch);
        batch->size = 0;
        applied_batches_.push(std::move(*batch));
    };
}

void BackgroundObserver::drain() {
    if (pipelined_) { // the reader applied each block's batch: the rest comes after its last
        apply(filling_);
        filling_.size = 0;
        return;
    }
    send();
    for (auto applied = applied_.load(); applied < sent_; applied = applied_.load())
        applied_.wait(applied);
    rethrow_if_failed();
}

void BackgroundObserver::entered(ThreadIndex thread, Time time, std::uint16_t id) {
    add(Kind::entered, thread, time, id);
}
void BackgroundObserver::state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) {
    add(Kind::state, thread, begin, end, value);
}
void BackgroundObserver::call(ThreadIndex thread, const ObservedCall& call) {
    // Most calls have no attributes: their item is 23 bytes, not the 77 of the whole struct.
    if (call.attributes) {
        add(Kind::collective_call, thread, call.begin, call.end, call.id, *call.attributes);
    } else {
        add(Kind::call, thread, call.begin, call.end, call.id);
    }
}
void BackgroundObserver::burst_cut(ThreadIndex thread, Time time) {
    add(Kind::burst_cut, thread, time);
}
void BackgroundObserver::event(ThreadIndex thread, Time time, std::uint32_t type,
                               std::uint64_t value) {
    add(Kind::event, thread, time, type, value);
}
void BackgroundObserver::comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& record,
                              std::uint64_t number) {
    add(Kind::comm, sender, receiver, record, number);
}
void BackgroundObserver::reached(Time time) {
    // Only the latest matters (the file's place is a maximum): most records add nothing.
    if (time <= reached_) return;
    reached_ = time;
    if (last_reached_ < filling_.size) {
        std::memcpy(filling_.bytes.get() + last_reached_, &time, sizeof(Time));
    } else {
        add(Kind::reached, time);
        last_reached_ = filling_.size - sizeof(Time); // the batch's last item, a Reached
    }
}

} // namespace popsim::replay

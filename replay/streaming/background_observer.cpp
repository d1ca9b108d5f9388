#include "replay/streaming/background_observer.hpp"

#include <cstring>
#include <type_traits>

namespace popsim::replay {

namespace {
constexpr std::size_t k_batch = 8192;           // callbacks handed over at once
constexpr std::ptrdiff_t k_in_flight = 4;       // batches queued at most: ~1.5 MB
constexpr std::size_t k_reserve = k_batch * 40; // bytes: most callbacks take less
} // namespace

BackgroundObserver::BackgroundObserver(TimelineObserver& target)
    : target_(target), filling_(std::make_unique<Batch>()) {
    filling_->reserve(k_reserve);
    queue_.set_capacity(k_in_flight);
    worker_ = std::thread([this] { apply_batches(); });
}

BackgroundObserver::~BackgroundObserver() {
    queue_.push(nullptr);
    worker_.join();
}

namespace {
/// The item at `at` in `batch`, and `at` moved past it.
template <class Item> Item take(const std::vector<std::byte>& batch, std::size_t& at) {
    Item item;
    std::memcpy(&item, batch.data() + at, sizeof(Item));
    at += sizeof(Item);
    return item;
}
} // namespace

void BackgroundObserver::apply(const Batch& batch) {
    for (std::size_t at = 0; at < batch.size();) {
        const std::byte kind = batch[at++];
        if (kind == Entered::kind) {
            const auto i = take<Entered>(batch, at);
            target_.entered(i.thread, i.time, i.id);
        } else if (kind == State::kind) {
            const auto i = take<State>(batch, at);
            target_.state(i.thread, i.begin, i.end, i.value);
        } else if (kind == Call::kind) {
            const auto i = take<Call>(batch, at);
            target_.call(i.thread, i.call);
        } else if (kind == Event::kind) {
            const auto i = take<Event>(batch, at);
            target_.event(i.thread, i.time, i.type, i.value);
        } else if (kind == Comm::kind) {
            const auto i = take<Comm>(batch, at);
            target_.comm(i.sender, i.receiver, i.record, i.number);
        } else {
            target_.reached(take<Reached>(batch, at).time);
        }
    }
}

void BackgroundObserver::apply_batches() {
    for (;;) {
        std::unique_ptr<Batch> batch;
        queue_.pop(batch);
        if (!batch) return;
        if (!failed_) {
            try {
                apply(*batch);
            } catch (...) {
                error_ = std::current_exception();
                failed_ = true;
            }
        }
        ++applied_;
        applied_.notify_all();
    }
}

void BackgroundObserver::rethrow_if_failed() {
    if (failed_) std::rethrow_exception(error_);
}

template <class Item> void BackgroundObserver::add(const Item& item) {
    static_assert(std::is_trivially_copyable_v<Item>);
    const auto* bytes = reinterpret_cast<const std::byte*>(&item);
    filling_->push_back(Item::kind);
    last_reached_ =
        std::is_same_v<Item, Reached> ? filling_->size() : std::numeric_limits<std::size_t>::max();
    filling_->insert(filling_->end(), bytes, bytes + sizeof(Item));
    if (++filling_count_ == k_batch) send();
}

void BackgroundObserver::send() {
    rethrow_if_failed();
    if (filling_->empty()) return;
    auto next = std::make_unique<Batch>();
    next->reserve(k_reserve);
    ++sent_;
    filling_count_ = 0;
    last_reached_ = std::numeric_limits<std::size_t>::max();
    queue_.push(std::exchange(filling_, std::move(next)));
}

void BackgroundObserver::drain() {
    send();
    for (auto applied = applied_.load(); applied < sent_; applied = applied_.load())
        applied_.wait(applied);
    rethrow_if_failed();
}

void BackgroundObserver::entered(ThreadIndex thread, Time time, std::uint16_t id) {
    add(Entered{thread, time, id});
}
void BackgroundObserver::state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) {
    add(State{thread, begin, end, value});
}
void BackgroundObserver::call(ThreadIndex thread, const ObservedCall& call) {
    add(Call{thread, call});
}
void BackgroundObserver::event(ThreadIndex thread, Time time, std::uint32_t type,
                               std::uint64_t value) {
    add(Event{thread, time, type, value});
}
void BackgroundObserver::comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& record,
                              std::uint64_t number) {
    add(Comm{sender, receiver, record, number});
}
void BackgroundObserver::reached(Time time) {
    // Only the latest matters (the file's place is a maximum): most records add nothing.
    if (time <= reached_) return;
    reached_ = time;
    if (last_reached_ < filling_->size())
        std::memcpy(filling_->data() + last_reached_, &time, sizeof(Time)); // Reached is its time
    else
        add(Reached{time});
}

} // namespace popsim::replay

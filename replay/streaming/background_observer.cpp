#include "replay/streaming/background_observer.hpp"

namespace popsim::replay {

namespace {
constexpr std::size_t k_batch = 8192;     // callbacks handed over at once
constexpr std::ptrdiff_t k_in_flight = 4; // batches queued at most: ~3.5 MB
} // namespace

BackgroundObserver::BackgroundObserver(TimelineObserver& target)
    : target_(target), filling_(std::make_unique<Batch>()) {
    filling_->reserve(k_batch);
    queue_.set_capacity(k_in_flight);
    worker_ = std::thread([this] { apply_batches(); });
}

BackgroundObserver::~BackgroundObserver() {
    queue_.push(nullptr);
    worker_.join();
}

void BackgroundObserver::apply_batches() {
    for (;;) {
        std::unique_ptr<Batch> batch;
        queue_.pop(batch);
        if (!batch) return;
        if (!failed_) {
            try {
                for (const auto& item : *batch) {
                    std::visit(
                        [this](const auto& i) {
                            using T = std::decay_t<decltype(i)>;
                            if constexpr (std::is_same_v<T, Entered>)
                                target_.entered(i.thread, i.time, i.id);
                            else if constexpr (std::is_same_v<T, State>)
                                target_.state(i.thread, i.begin, i.end, i.value);
                            else if constexpr (std::is_same_v<T, Call>)
                                target_.call(i.thread, i.call);
                            else if constexpr (std::is_same_v<T, Event>)
                                target_.event(i.thread, i.time, i.type, i.value);
                            else if constexpr (std::is_same_v<T, Comm>)
                                target_.comm(i.sender, i.receiver, i.record, i.number);
                            else
                                target_.reached(i.time);
                        },
                        item);
                }
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

void BackgroundObserver::add(Item item) {
    filling_->push_back(std::move(item));
    if (filling_->size() == k_batch) send();
}

void BackgroundObserver::send() {
    rethrow_if_failed();
    if (filling_->empty()) return;
    auto next = std::make_unique<Batch>();
    next->reserve(k_batch);
    ++sent_;
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
    if (!filling_->empty() && std::holds_alternative<Reached>(filling_->back()))
        std::get<Reached>(filling_->back()).time = time;
    else
        add(Reached{time});
}

} // namespace popsim::replay

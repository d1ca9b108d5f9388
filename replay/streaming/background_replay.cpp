// SPDX-License-Identifier: BSD-3-Clause
#include "replay/streaming/background_replay.hpp"

#include <optional>

namespace popsim::replay {

BackgroundReplay::BackgroundReplay(const Trace& trace, const ProgramOptions& options,
                                   bool keep_program, SpilledCalls* calls, LiveReplays* live)
    : replay_(trace, options, keep_program, live), state_filter_(replay_.state_filter()),
      calls_(calls), background_(replay_) {}

void BackgroundReplay::entered(ThreadIndex thread, Time time, std::uint16_t id) {
    background_.entered(thread, time, id);
}
void BackgroundReplay::state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) {
    if (state_filter_.reads(thread, value)) background_.state(thread, begin, end, value);
}
void BackgroundReplay::call(ThreadIndex thread, const ObservedCall& call) {
    if (calls_) calls_->add(thread, {call.begin, call.end, call.id});
    background_.call(thread, call);
}
void BackgroundReplay::event(ThreadIndex thread, Time time, std::uint32_t type,
                             std::uint64_t value) {
    if (StreamingReplay::reads_event(type)) background_.event(thread, time, type, value);
}
void BackgroundReplay::comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& record,
                            std::uint64_t number) {
    background_.comm(sender, receiver, record, number);
}
void BackgroundReplay::reached(Time time) {
    background_.reached(time);
}
void BackgroundReplay::burst_cut(ThreadIndex thread, Time time) {
    background_.burst_cut(thread, time);
}
std::function<void()> BackgroundReplay::work_after_block() {
    return background_.work_after_block();
}

StreamedRun BackgroundReplay::finish(const Trace& trace) {
    background_.drain();
    return replay_.finish(trace);
}

StreamedProgram stream_program(const std::string& path, const ReadOptions& read,
                               const ProgramOptions& options,
                               const std::optional<std::string>& spill_calls_for,
                               const BesideReplay& beside, const LiveNetworks& live) {
    std::optional<BackgroundReplay> replay;
    std::optional<LiveReplays> live_replays;
    StreamedProgram out;
    out.trace = stream_paraver(path, read, [&](const Trace& trace) -> TimelineObserver& {
        if (spill_calls_for)
            out.calls = std::make_unique<SpilledCalls>(*spill_calls_for, trace.thread_count());
        if (live.networks && (!options.threads || trace.threads_are_tasks())) {
            const auto networks = live.networks(trace.task_count());
            if (!networks.empty())
                live_replays.emplace(trace.task_count(), networks, live.options,
                                     live.advance_every);
        }
        auto& replay_observer = replay.emplace(trace, options, true, out.calls.get(),
                                               live_replays ? &*live_replays : nullptr);
        return beside ? beside(trace, replay_observer) : replay_observer;
    });
    out.run = replay->finish(out.trace);
    if (live_replays) {
        try {
            out.live_results = live_replays->finish();
        } catch (const ReplayDeadlock&) { // the whole program says where, and breaks the cycles
            throw StreamingUnsupported("the replay on a network deadlocks");
        }
    }
    if (out.calls) out.calls->finish_writing();
    return out;
}

} // namespace popsim::replay

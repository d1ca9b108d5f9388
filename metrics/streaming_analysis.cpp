// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/streaming_analysis.hpp"

#include "metrics/streaming_openmp.hpp"
#include "replay/extrae_events.hpp"
#include "replay/streaming/background_replay.hpp"
#include "replay/traced_windows.hpp"

#include <optional>

namespace popsim::metrics {

namespace ex = replay::extrae;

/// Sums each thread's breakdown as its states and calls go by, with its OpenMP parts
/// (StreamingOpenMp), and hands every record on to the replay (`replay_`), which runs on a thread
/// of its own and refuses spans with tracing off.
class ThreadTotals final : public replay::TimelineObserver {
  public:
    ThreadTotals(const replay::Trace& trace, replay::TimelineObserver& replay)
        : run_(shaped(trace)), openmp_(run_), startup_(trace), replay_(replay) {}

    void entered(replay::ThreadIndex t, Time time, std::uint16_t id) override {
        openmp_.entered(t, time);
        replay_.entered(t, time, id);
    }
    void state(replay::ThreadIndex t, Time begin, Time end, std::uint8_t value) override {
        openmp_.state(t, begin, end, value);
        startup_.state(t, begin, end, value);
        replay_.state(t, begin, end, value);
        auto& b = run_.threads[t];
        if (is_active_state(value)) b.active += end - begin;
        if (value == ex::k_state_running) b.useful += end - begin;
    }
    void call(replay::ThreadIndex t, const replay::ObservedCall& call) override {
        openmp_.call(t, call.begin, call.end);
        startup_.call(t, call.begin, call.end, call.id);
        run_.threads[t].mpi += call.end - call.begin;
        replay_.call(t, call);
    }
    void event(replay::ThreadIndex t, Time time, std::uint32_t type, std::uint64_t value) override {
        openmp_.event(t, time, type, value);
        replay_.event(t, time, type, value);
    }
    void comm(replay::ThreadIndex from, replay::ThreadIndex to, const replay::CommRecord& r,
              std::uint64_t number) override {
        replay_.comm(from, to, r, number);
    }
    void burst_cut(replay::ThreadIndex t, Time time) override { replay_.burst_cut(t, time); }
    void reached(Time time) override {
        openmp_.reached(time);
        replay_.reached(time);
    }
    void prefetch(replay::ThreadIndex t) const override {
        __builtin_prefetch(&run_.threads[t]);
        openmp_.prefetch(t);
        startup_.prefetch(t);
    }
    std::function<void()> work_after_block() override { return replay_.work_after_block(); }

    /// After the reader: the run with the threads' breakdowns and counters, and its summary.
    StreamedSummary finish(const replay::Trace& trace) {
        openmp_.finish(trace.end_time());
        for (std::size_t t = 0; t < run_.threads.size(); ++t) {
            run_.threads[t].instructions = trace.threads[t].useful_instructions;
            run_.threads[t].cycles = trace.threads[t].useful_cycles;
            run_.runtime = std::max(run_.runtime, run_.threads[t].active);
        }
        StreamedSummary out{.summary = {}, .run = std::move(run_)};
        std::vector<Time> useful;
        for (const auto& b : out.run.threads) useful.push_back(b.useful);
        out.summary = summarize(trace, {}, std::move(useful));
        out.summary.startup = out.run.startup = startup_.finish(out.summary.windows);
        return out;
    }

  private:
    static HybridRun shaped(const replay::Trace& trace) {
        HybridRun run;
        run.set_shape(trace);
        run.threads.resize(trace.thread_count());
        return run;
    }
    HybridRun run_;
    StreamingOpenMp openmp_; // adds to run_
    StartupRecorder startup_;
    replay::TimelineObserver& replay_;
};

SummaryRecorder::SummaryRecorder() = default;
SummaryRecorder::~SummaryRecorder() = default;

replay::TimelineObserver& SummaryRecorder::beside(const replay::Trace& trace,
                                                  replay::TimelineObserver& replay) {
    totals_ = std::make_unique<ThreadTotals>(trace, replay);
    return *totals_;
}

StreamedSummary SummaryRecorder::finish(const replay::Trace& trace) {
    return totals_->finish(trace);
}

namespace {

/// The ideal run's translation; without one the replay only checks, with the summary's spans.
replay::ProgramOptions program_options(bool whole_trace, const IdealOptions* ideal) {
    if (ideal) return ideal->program;
    return {.whole_trace = whole_trace};
}

} // namespace

StreamedAnalysis analyze_streaming(const std::string& path, const replay::ReadOptions& read,
                                   bool whole_trace, const IdealOptions* ideal) {
    // Without an ideal run the replay still runs: its checks find what the in-memory reader
    // repairs or leaves out (records received before they are sent, cancelled receives,
    // repeated records).
    std::optional<replay::BackgroundReplay> replay;
    SummaryRecorder totals;
    StreamedAnalysis out;
    out.trace = replay::stream_paraver(
        path, read, [&](const replay::Trace& trace) -> auto& {
            return totals.beside(trace,
                                 replay.emplace(trace, program_options(whole_trace, ideal), false));
        });
    const auto& trace = out.trace;
    const auto run = replay->finish(trace);
    auto [summary, hybrid] = totals.finish(trace);
    out.summary = std::move(summary);
    out.run = std::move(hybrid);
    if (ideal) {
        out.trace.warnings.merge(run.warnings);
        out.summary.ideal = out.run.ideal = ideal_run_of(run.tasks, run.runtime);
        out.summary.ideal->task_mpi_outside_omp = out.run.ideal->task_mpi_outside_omp =
            run.task_mpi_outside_omp;
        const Time traced = replay::traced_time(trace, {});
        if (run.runtime > traced) {
            note_ideal_after_real(run.runtime, traced, run.collectives_left_early,
                                  run.first_left_early, out.trace.warnings);
        }
    }
    return out;
}

} // namespace popsim::metrics

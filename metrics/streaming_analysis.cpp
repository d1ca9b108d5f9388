#include "metrics/streaming_analysis.hpp"

#include "replay/extrae_events.hpp"
#include "replay/streaming/background_replay.hpp"
#include "replay/traced_windows.hpp"

#include <optional>

namespace popsim::metrics {

namespace {

namespace ex = replay::extrae;

/// Sums each thread's breakdown as its states and calls go by, and hands every record on to the
/// replay, which runs on a thread of its own and refuses spans with tracing off. The breakdowns
/// leave OpenMP out: events of its stack are refused here. Without an ideal run the replay still
/// runs: its checks find what the in-memory reader repairs or leaves out (records received before
/// they are sent, cancelled receives, repeated records).
class ThreadTotals final : public replay::TimelineObserver {
  public:
    ThreadTotals(const replay::Trace& trace, bool whole_trace, const IdealOptions* ideal)
        : threads_(trace.thread_count()),
          replay_(trace, program_options(whole_trace, ideal), false) {}

    void entered(replay::ThreadIndex t, Time time, std::uint16_t id) override {
        replay_.entered(t, time, id);
    }
    void state(replay::ThreadIndex t, Time begin, Time end, std::uint8_t value) override {
        replay_.state(t, begin, end, value);
        auto& b = threads_[t];
        if (is_active_state(value)) b.active += end - begin;
        if (value == ex::k_state_running) b.useful += end - begin;
    }
    void call(replay::ThreadIndex t, const replay::ObservedCall& call) override {
        threads_[t].mpi += call.end - call.begin;
        threads_[t].mpi_outside_omp += call.end - call.begin;
        replay_.call(t, call);
    }
    void event(replay::ThreadIndex t, Time time, std::uint32_t type, std::uint64_t value) override {
        if (is_openmp_stack_type(type))
            throw replay::StreamingUnsupported("the trace has OpenMP events");
        replay_.event(t, time, type, value);
    }
    void comm(replay::ThreadIndex from, replay::ThreadIndex to, const replay::CommRecord& r,
              std::uint64_t number) override {
        replay_.comm(from, to, r, number);
    }
    void reached(Time time) override { replay_.reached(time); }

    /// After the reader: the breakdowns with the threads' counters, and the replay's result.
    std::vector<ThreadBreakdown> breakdowns(const replay::Trace& trace) {
        for (std::size_t t = 0; t < threads_.size(); ++t) {
            threads_[t].instructions = trace.threads[t].useful_instructions;
            threads_[t].cycles = trace.threads[t].useful_cycles;
        }
        return std::move(threads_);
    }
    replay::StreamedRun replay(const replay::Trace& trace) { return replay_.finish(trace); }

  private:
    /// The ideal run's translation; without one the replay only checks, with the summary's spans.
    static replay::ProgramOptions program_options(bool whole_trace, const IdealOptions* ideal) {
        if (ideal) return ideal->program;
        return {.whole_trace = whole_trace};
    }

    std::vector<ThreadBreakdown> threads_;
    replay::BackgroundReplay replay_; // beside the reader
};

} // namespace

StreamedAnalysis analyze_streaming(const std::string& path, const replay::ReadOptions& read,
                                   bool whole_trace, const IdealOptions* ideal) {
    std::optional<ThreadTotals> totals;
    StreamedAnalysis out;
    out.trace = replay::stream_paraver(
        path, read, [&](const replay::Trace& trace) -> auto& {
            return totals.emplace(trace, whole_trace, ideal);
        });
    const auto& trace = out.trace;
    const auto run = totals->replay(trace);
    auto breakdowns = totals->breakdowns(trace);
    std::vector<Time> useful;
    for (const auto& b : breakdowns) useful.push_back(b.useful);
    out.summary = summarize(trace, {}, std::move(useful));
    out.run = hybrid_run(trace, std::move(breakdowns));
    if (ideal) {
        out.trace.warnings.merge(run.warnings);
        out.summary.ideal = out.run.ideal = ideal_run_of(run.tasks, run.runtime);
        const Time traced = replay::traced_time(trace, {});
        if (run.runtime > traced) {
            note_ideal_after_real(run.runtime, traced, run.collectives_left_early,
                                  run.first_left_early, out.trace.warnings);
        }
    }
    return out;
}

} // namespace popsim::metrics

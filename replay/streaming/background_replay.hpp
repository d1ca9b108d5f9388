// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The streaming replay beside the reader: a StreamingReplay on a thread of its own
// (BackgroundObserver), handed only the callbacks it reads; and the replay program read in one
// such pass, for the replays that need it whole (docs/replay.md, "Streaming").
//
// Example:
//   try {
//       auto [trace, run] = popsim::replay::stream_program("run.prv.gz", {}, {});
//       run.program->op_count(); // the program build_replay_program makes, read in one pass
//   } catch (const popsim::replay::StreamingUnsupported& e) {
//       // e.what() says what needs the in-memory program: read_paraver, build_replay_program
//   }
#include "replay/input/paraver_reader.hpp"
#include "replay/output/traced_calls.hpp"
#include "replay/streaming/background_observer.hpp"
#include "replay/streaming/live_replays.hpp"
#include "replay/streaming/streaming_replay.hpp"

#include <memory>
#include <optional>
#include <string>

namespace popsim::replay {

class BackgroundReplay final : public TimelineObserver {
  public:
    /// `calls`: where each call goes as well, when the caller needs the calls themselves.
    /// `live`: replays of the program as it is written (StreamingReplay).
    BackgroundReplay(const Trace& trace, const ProgramOptions& options, bool keep_program,
                     SpilledCalls* calls = nullptr, LiveReplays* live = nullptr);

    void entered(ThreadIndex thread, Time time, std::uint16_t id) override;
    void state(ThreadIndex thread, Time begin, Time end, std::uint8_t value) override;
    void call(ThreadIndex thread, const ObservedCall& call) override;
    void event(ThreadIndex thread, Time time, std::uint32_t type, std::uint64_t value) override;
    void comm(ThreadIndex sender, ThreadIndex receiver, const CommRecord& record,
              std::uint64_t number) override;
    void reached(Time time) override;
    void burst_cut(ThreadIndex thread, Time time) override;
    std::function<void()> work_after_block() override;

    /// After the reader: the replay's result (StreamingReplay::finish).
    StreamedRun finish(const Trace& trace);

  private:
    StreamingReplay replay_;
    const StreamingReplay::StateFilter state_filter_;
    SpilledCalls* calls_;
    BackgroundObserver background_; // runs replay_
};

struct StreamedProgram {
    Trace trace;     // its header, counts and warnings; no records
    StreamedRun run; // the ideal replay, and its program (its threads alone with live replays)
    /// The results of the live replays (LiveNetworks), in their order; empty without.
    std::vector<ReplayResult> live_results;
    /// The trace's calls, spilled to disk, when asked for (a simulated trace is made of them).
    std::unique_ptr<SpilledCalls> calls;
};

/// The networks to replay while the program is written, for the trace's number of tasks (one
/// thread each), with the replays' options; none: the program is written down whole.
struct LiveNetworks {
    std::function<std::vector<network::NetworkModel*>(std::uint32_t tasks)> networks;
    EngineOptions options;
    std::uint64_t advance_every = 0; // LiveReplays'
};

/// Reads the trace and writes its replay program down as it replays it on the ideal network.
/// Throws StreamingUnsupported where only build_replay_program makes that program (worker
/// threads calling MPI, spans with tracing off, records it re-pairs or leaves out, cut
/// traces, cycles), TraceError for a bad trace.
/// With `spill_calls_for` (a simulated trace's path), the trace's calls are spilled for it
/// (StreamedProgram::calls) as they are read. `beside`, if given, makes the observer the reader
/// feeds from the trace and the replay's own, which it must hand every record on to: another
/// pass's work done in this one (metrics::SummaryRecorder).
using BesideReplay = std::function<TimelineObserver&(const Trace&, TimelineObserver& replay)>;
/// With `live`, the networks it gives are replayed as the program is written
/// (StreamedProgram::live_results), when every task replays one thread: the program is not held
/// whole. Their replays throw ReplayDeadlock on a dependency cycle, which only the whole
/// program describes and breaks.
StreamedProgram stream_program(const std::string& path, const ReadOptions& read,
                               const ProgramOptions& options,
                               const std::optional<std::string>& spill_calls_for = std::nullopt,
                               const BesideReplay& beside = {}, const LiveNetworks& live = {});

} // namespace popsim::replay

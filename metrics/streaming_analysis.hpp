// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A trace's POP inputs (TraceSummary, HybridRun and the ideal replay) in one pass over its
// records, in memory bounded by the trace's width, not its length (docs/replay.md, "Streaming").
//
// Example:
//   try {
//       const popsim::metrics::IdealOptions ideal;
//       auto a = popsim::metrics::analyze_streaming("run.prv.gz", {}, false, &ideal);
//       a.summary.ideal->runtime;
//   } catch (const popsim::replay::StreamingUnsupported& e) {
//       // e.what() says what needs the in-memory analysis: read_paraver, summarize, ideal_run
//   }
#include "metrics/ideal_replay.hpp"
#include "metrics/pop_openmp.hpp"
#include "metrics/trace_summary.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/streaming/streaming_replay.hpp"

#include <memory>
#include <string>

namespace popsim::metrics {

struct StreamedAnalysis {
    replay::Trace trace; // its header, counts, counters, labels and warnings; no records
    TraceSummary summary;
    HybridRun run;
};

struct StreamedSummary {
    TraceSummary summary; // without the ideal run
    HybridRun run;
};

class ThreadTotals;

/// The summary of a streaming pass that another reads for its own ends (a replay program
/// written down: replay::stream_program's `beside`), as analyze_streaming sums it.
class SummaryRecorder {
  public:
    SummaryRecorder();
    ~SummaryRecorder();
    SummaryRecorder(const SummaryRecorder&) = delete;
    SummaryRecorder& operator=(const SummaryRecorder&) = delete;
    /// The observer that sums the records of `trace` and hands each on to `replay`.
    replay::TimelineObserver& beside(const replay::Trace& trace, replay::TimelineObserver& replay);
    /// After the reader.
    StreamedSummary finish(const replay::Trace& trace);

  private:
    std::unique_ptr<ThreadTotals> totals_;
};

/// Reads the trace, summarises it and, with `ideal`, replays it on the ideal network as it reads
/// (summary.ideal and run.ideal are set). The replay's warnings go to `trace.warnings` after the
/// reader's. Throws replay::StreamingUnsupported where only the in-memory analysis reproduces
/// what it would compute (spans with tracing off, records it re-pairs or leaves out, OpenMP
/// records out of time order, cut traces, dependency cycles), replay::TraceError for a bad trace.
/// `whole_trace`: as summarize's (with `ideal`, it must be ideal->program.whole_trace).
StreamedAnalysis analyze_streaming(const std::string& path, const replay::ReadOptions& read,
                                   bool whole_trace, const IdealOptions* ideal);

} // namespace popsim::metrics

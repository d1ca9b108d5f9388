// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The ideal-network numbers of a trace (Runtime (ideal), Useful duration (ideal, max)), from
// popsim's own replay instead of prv2dim + Dimemas + paramedir.
//
// Example:
//   auto trace = popsim::replay::read_paraver("run.prv.gz");
//   auto summary = popsim::metrics::summarize(trace);
//   summary.ideal = popsim::metrics::ideal_run(trace, {});
#include "metrics/trace_summary.hpp"
#include "replay/engine/engine.hpp"
#include "replay/engine/replay_result.hpp"
#include "replay/program/replay_program.hpp"

#include <cstdint>
#include <functional>

namespace popsim::metrics {

enum class ReplayMethod {
    events,       ///< the discrete-event engine (default: needs less memory, hence faster)
    longest_path, ///< one pass over the dependency graph (the same answer; used to cross-check)
};

struct IdealOptions {
    replay::ProgramOptions program;
    ReplayMethod method = ReplayMethod::events;
    /// The event replay's progress (replay::EngineOptions::on_progress); may be empty.
    std::function<void(std::uint64_t)> on_progress = {};
};

/// Replays the trace on the ideal network. Warnings (e.g. records that match no call) are
/// appended to `warnings`. Throws TraceError or ReplayDeadlock when it cannot be replayed.
IdealRun ideal_run(const replay::Trace& trace, const IdealOptions& options,
                   replay::WarningLog* warnings = nullptr);
/// The same from a program already built with replay::build_replay_program(trace,
/// options.program), for callers with other work to overlap: building uses every core, the
/// replay itself one.
IdealRun ideal_run(const replay::Trace& trace, const replay::ReplayProgram& program,
                   const IdealOptions& options, replay::WarningLog* warnings = nullptr);

/// `program` replayed by the event engine on the ideal network again, with `options` (a timeline,
/// other burst durations), breaking its dependency cycles as the ideal run does (their warnings
/// are that run's, not repeated): for the root causes' timeline and the gains' fixes.
replay::ReplayResult ideal_replay_again(const replay::Trace& trace,
                                        const replay::ReplayProgram& program,
                                        const replay::EngineOptions& options);

/// The ideal run of replay threads' times: `tasks` per MPI task, its first thread's.
IdealRun ideal_run_of(const std::vector<replay::ThreadTimes>& tasks, Time runtime);

/// Warns that the ideal replay (`runtime`) took longer than the traced windows (`traced`), with
/// the likeliest cause: `early` collectives whose members left before the last arrived (the
/// first described), else clocks out of step.
void note_ideal_after_real(Time runtime, Time traced, std::size_t early, const std::string& first,
                           replay::WarningLog& warnings);

/// Per MPI task, where the traced runtime goes (all in ns of the traced run; the five add up to
/// the runtime). useful and startup (not created, MPI_Init, MPI_Finalize, past its last record)
/// are the task's in the trace; the ideal replay splits the rest: transfer = what the ideal
/// network removes from it, serialisation = the ideal run's waiting along its critical path
/// (the same for every task), load imbalance = what remains, the task waiting for slower tasks'
/// computation. The replay's first burst holds the time a task was not created: it is start-up
/// there too, not computation (docs/metrics.md, "Per-rank breakdown").
struct RankBreakdown {
    Time useful = 0;
    Time startup = 0;
    Time load_imbalance = 0;
    Time serialization = 0;
    Time transfer = 0;
};

/// Empty when the summary has no ideal run.
std::vector<RankBreakdown> rank_breakdown(const TraceSummary& summary);

} // namespace popsim::metrics

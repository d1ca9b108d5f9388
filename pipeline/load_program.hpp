// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What `simulate`, `whatif` and `convert` replay: a Paraver trace (translated to a replay program)
// or a Dimemas .dim trace (read as one). A whole Paraver trace's program is written down in one
// streaming pass that keeps no trace (replay/streaming/background_replay.hpp); what that pass
// cannot translate, and what needs the trace itself, is read into memory.
#include "metrics/trace_summary.hpp"
#include "pipeline/options/focus.hpp"
#include "pipeline/options/network_options.hpp"
#include "pipeline/trace_pass.hpp"
#include "replay/engine/engine.hpp"
#include "replay/focus/time_window.hpp"
#include "replay/output/traced_calls.hpp"
#include "replay/program/cycle_breaking.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/streaming/background_replay.hpp"
#include "replay/trace.hpp"
#include "replay/trace_error.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

struct LoadedProgram {
    std::string path;
    std::optional<replay::Trace> trace; // absent for .dim input and streamed programs
    /// A streamed program's trace: its header, labels, threads' names and ends; no records.
    std::optional<replay::Trace> streamed_trace;
    /// A streamed program's calls, when LoadOptions::spill_calls_for asked for them.
    std::unique_ptr<replay::SpilledCalls> calls;
    /// The trace read, into memory or streamed (its header, labels, threads); none for a .dim.
    const replay::Trace* trace_read() const {
        return trace ? &*trace : streamed_trace ? &*streamed_trace : nullptr;
    }
    replay::ReplayProgram program;
    TracePass pass; // streamed: the program was written down without holding the trace
    std::vector<replay::Communicator> communicators; // of the Paraver header (`c:` lines)
    /// The replays on LoadOptions::live's networks, when the streaming pass made them; else
    /// empty, and `program` is whole.
    std::vector<replay::ReplayResult> live_results;
    /// The ideal-network runtime, when the streaming pass computed it on the way.
    std::optional<Time> ideal_runtime;
    /// The traced run as analyze sums it (no ideal run), when LoadOptions::summarize asked and
    /// the trace was streamed: a trace read into memory has its own (metrics::summarize).
    std::optional<metrics::TraceSummary> summary;
    std::optional<Time> real_runtime; // the traced runtime, when known
    replay::WarningLog warnings;      // the reader's and the program builder's
    /// The program's collectives whose members left them early in the trace (replay::LeftEarly),
    /// with who and when, as found in a trace read into memory that is no longer there (an MPI
    /// run hands the program on without it): what cycles are broken with. Else empty.
    std::map<replay::CollectiveIndex, std::string> left_early;
    std::string window; // "window [1 s, 2 s)" with --from/--to, else empty
    std::optional<replay::TimeWindow> window_bounds; // that window of the trace file
};

/// Runs `run` (a replay of the trace at `path`), its errors naming the trace as every error does
/// (exit 2): a deadlock of the trace's dependencies, or a replayed time past 2^62 ns.
template <class Run> auto naming_trace(const std::string& path, Run&& run) {
    try {
        return run();
    } catch (const replay::ReplayDeadlock& e) {
        throw e.in(path);
    } catch (const TimeOverflow& e) {
        throw replay::TraceError(path, 0, e.what());
    }
}

struct LoadOptions {
    FocusOptions window; // --from/--to: the program of that window of a Paraver trace
    /// Read the trace into memory and keep it (LoadedProgram::trace), instead of streaming it.
    bool in_memory = false;
    /// Gets the bytes of the Paraver file read so far (ReadOptions::on_progress).
    std::function<void(std::uint64_t)> on_read_progress = {};
    /// A streamed program's calls are spilled for this simulated trace (LoadedProgram::calls):
    /// what it is made of besides the program.
    std::optional<std::string> spill_calls_for = std::nullopt;
    /// Event types to read besides the reader's (a code what-if's regions), with `in_memory`.
    std::vector<std::uint32_t> event_types = {};
    /// Also sum the traced run as analyze does, in the same pass (LoadedProgram::summary).
    bool summarize = false;
    /// Whether the replay of that many tasks needs the program's bursts cut where prv2dim cuts
    /// them (replays_burst_pieces; empty: no).
    std::function<bool(std::uint32_t tasks)> cut_bursts_for = {};
    /// Other processes that help read the trace (replay/input/divided_read.hpp); not owned.
    replay::ReadHelpers* helpers = nullptr;
    /// Networks to replay while a streamed program is written (LoadedProgram::live_results),
    /// which then holds its threads alone.
    replay::LiveNetworks live = {};
};

/// Reads `path` (.prv, .prv.gz or .dim), printing the warnings to stderr (unless --quiet). A whole
/// Paraver trace in a regular file is streamed unless `load.in_memory`.
LoadedProgram load_program(const std::string& path, const replay::ProgramOptions& options,
                           const LoadOptions& load = {});

/// The traced run as analyze sums it: the streaming pass's (LoadOptions::summarize), or the
/// trace's in memory; none for a Dimemas trace, which has no states.
std::optional<metrics::TraceSummary> traced_summary(const LoadedProgram& loaded);

/// The ideal network with CPUs `cpu_ratio` times as fast.
std::unique_ptr<replay::network::NetworkModel> ideal_network_at(double cpu_ratio);

/// The loaded program's runtime on the ideal network with CPUs `cpu_ratio` times as fast: what
/// Transfer on another network compares with (docs/metrics.md, "On another network").
Time ideal_runtime_at(const LoadedProgram& loaded, double cpu_ratio,
                      const replay::EngineOptions& options);

/// Whether each collective's members left it early in the trace: the trace's answer, or what was
/// kept of it (LoadedProgram::left_early); empty when neither is known.
replay::LeftEarly left_early(const LoadedProgram& loaded);
/// Every collective left_early(loaded) says its members left early, with who and when.
std::map<replay::CollectiveIndex, std::string> collectives_left_early(const LoadedProgram& loaded);

/// Replays the loaded program on `model`, breaking the dependency cycles a trace of a program
/// that ran can form (replay/program/cycle_breaking.hpp); what it relaxes goes to `warnings`.
replay::ReplayResult replay_on(const LoadedProgram& loaded, replay::network::NetworkModel& model,
                               const replay::EngineOptions& options, replay::WarningLog* warnings);

/// The networks of `simulate` or `whatif` replayed while their program is written
/// (LoadOptions::live): each of theirs, then the ideal network of each other CPU ratio they
/// take, which their Transfer compares with.
class LiveModels {
  public:
    explicit LiveModels(std::vector<NetworkOptions> networks) : networks_(std::move(networks)) {}
    /// For LoadOptions::live. None when one of the networks shares its nodes' CPUs (the whole
    /// program replays that), or cannot be made for the trace's tasks (an error reported once
    /// the trace is read, as without).
    replay::LiveNetworks live();
    /// After the load, whose live_results are network k's at k: the runtime on the ideal network
    /// with CPUs `ratio` (not 1) times as fast.
    Time ideal_runtime(const LoadedProgram& loaded, double ratio) const;

  private:
    std::vector<replay::network::NetworkModel*> make(std::uint32_t tasks);

    std::vector<NetworkOptions> networks_;
    std::vector<std::unique_ptr<replay::network::NetworkModel>> models_;
    std::vector<double> ratios_; // of the ideal networks after networks_'
};

/// replay_on, reporting what it relaxes: printed to stderr (unless --quiet) and added to
/// `loaded.warnings`.
replay::ReplayResult replay_reporting(LoadedProgram& loaded, replay::network::NetworkModel& model,
                                      const replay::EngineOptions& options);

} // namespace popsim::pipeline

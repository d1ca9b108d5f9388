// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Wait states (docs/metrics.md, "Wait states"): MPI calls that wait for a late partner, by
// Scalasca's patterns, in one timeline of the calls: the traced run or a replay of it. The
// partners come from the replay program (who sends each message, who posts and completes its
// receive, who joins each collective), so both timelines are read alike.
//
// Example:
//   auto trace = popsim::replay::read_paraver("run.prv.gz");
//   auto program = popsim::replay::build_replay_program(trace);
//   auto traced = popsim::metrics::wait_states(program, popsim::metrics::traced_calls(trace,
//   program)); traced.per_task[3][popsim::metrics::WaitPattern::late_sender];
#include "metrics/code_regions.hpp"
#include "replay/engine/replay_result.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/trace.hpp"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace popsim::metrics {

enum class WaitPattern : std::uint8_t {
    late_sender,     // a receive waits for its message's send to begin
    late_receiver,   // a blocking send of a rendezvous message waits for its receive's post
    wait_at_barrier, // MPI_Barrier: each waits for the last to enter
    wait_at_nxn,     // the other collectives where all exchange (Allreduce, Alltoall, ...)
    late_broadcast,  // Bcast, Scatter(v): the others wait for the root to enter
    early_reduce,    // Reduce, Gather(v): the root waits for the others to enter
};
inline constexpr std::size_t k_wait_patterns = 6;
/// "late_sender", ... (JSON keys) and "late sender", ... (for people).
std::string_view wait_pattern_key(WaitPattern pattern);
std::string_view wait_pattern_label(WaitPattern pattern);

/// One call that waited for a late partner.
struct WaitState {
    std::uint32_t task = 0; // the one that waited
    replay::ReplayThread thread = 0;
    std::uint32_t call = 0;      // its call, numbered on its thread
    std::uint16_t call_id = 0;   // Extrae's id of that call (MPI_Recv, ...)
    std::uint64_t call_site = 0; // the function that called it (Extrae's caller event), 0: unknown
    std::uint64_t region = 0;    // the code region it was called in (code_regions.hpp), 0: none
    WaitPattern pattern = WaitPattern::late_sender;
    Time time = 0;               // how long, within its call
    std::uint32_t late_task = 0; // the partner it waited for (the latest, if several)
    replay::ReplayThread late_thread = 0;
    std::uint32_t late_call = 0; // the partner's call, whose entry ended the wait
};

/// Times per pattern.
struct PatternTimes {
    std::array<Time, k_wait_patterns> time{};
    Time& operator[](WaitPattern p) { return time[static_cast<std::size_t>(p)]; }
    Time operator[](WaitPattern p) const { return time[static_cast<std::size_t>(p)]; }
    Time total() const;
};

struct WaitStates {
    std::vector<WaitState> instances; // per replay thread, in call order
    std::vector<PatternTimes> per_task;
    PatternTimes total;
};

/// When each call of each replay thread was entered and left, in one timeline, and which call
/// it is.
struct CallTimeline {
    std::vector<std::vector<Time>> enter, exit;   // per replay thread, per call number
    std::vector<std::vector<std::uint16_t>> id;   // Extrae's call id
    std::vector<std::vector<std::uint64_t>> site; // its caller (replay::extrae::k_caller), 0: none
};

/// The traced run's calls (their callers when the trace was read tracking k_caller).
CallTimeline traced_calls(const replay::Trace& trace, const replay::ReplayProgram& program);
/// A replay's calls: a call from its first operation's start to its last one's end (the replay
/// must have kept its timeline).
CallTimeline replayed_calls(const replay::Trace& trace, const replay::ReplayProgram& program,
                            const replay::ReplayResult& result);

/// `regions`: where each call was made.
WaitStates wait_states(const replay::ReplayProgram& program, const CallTimeline& calls,
                       const CodeRegions& regions);

/// Who waits for whom: the wait states summed per (waiting task, late task, pattern), longest
/// first.
struct WaitPair {
    std::uint32_t task = 0, late_task = 0;
    WaitPattern pattern = WaitPattern::late_sender;
    Time time = 0;
    std::uint64_t calls = 0;
};
std::vector<WaitPair> wait_pairs(const WaitStates& waits);

/// Where the waiting happens: the wait states summed per (MPI call, call site, pattern), longest
/// first.
struct WaitCall {
    std::uint16_t call_id = 0;
    std::uint64_t call_site = 0;
    WaitPattern pattern = WaitPattern::late_sender;
    Time time = 0;
    std::uint64_t calls = 0;
};
std::vector<WaitCall> wait_calls(const WaitStates& waits);

/// In which code regions the waiting happens: the wait states summed per (region, pattern),
/// longest first.
struct WaitRegion {
    std::uint64_t region = 0;
    WaitPattern pattern = WaitPattern::late_sender;
    Time time = 0;
    std::uint64_t calls = 0;
};
std::vector<WaitRegion> wait_regions(const WaitStates& waits);

} // namespace popsim::metrics

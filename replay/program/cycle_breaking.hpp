// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Dependency cycles that a trace of a program that ran can still form in the replay, and how the
// replay breaks them (docs/replay.md, "Dependency cycles").
#include "replay/engine/engine.hpp"
#include "replay/trace.hpp"
#include "replay/warnings.hpp"

#include <functional>
#include <string>

namespace popsim::replay {

/// Whether, in the trace, a member of the program's collective `c` left it before its last member
/// entered (left_before_last_arrived), `description` (when not null) set to who and when. Empty
/// when not known (a Dimemas trace).
using LeftEarly = std::function<bool(CollectiveIndex c, std::string* description)>;

/// The answer of `trace` for `program`, built from it (both outlive the function).
LeftEarly left_early_in(const Trace& trace, const ReplayProgram& program);

/// Replays `program` with `replay`, breaking the dependency cycles a trace of a program that ran
/// can still form:
///  - where it deadlocks in collectives whose members left early in the trace (`left_early`;
///    every member waiting for the last, as in Dimemas, closes a cycle with the messages a member
///    sent after leaving), those collectives replay as their data flows: only their edges that
///    run backwards in traced time are dropped;
///  - else, where it deadlocks in blocking sends waiting for their receive (rendezvous: the
///    program relied on MPI buffering them), those sends replay as eager ones.
/// Other deadlocks (a cycle of messages all sent and received at one instant) propagate.
/// With `left_early` empty only sends are relaxed. Each relaxation is a warning.
ReplayResult replay_breaking_cycles(const LeftEarly& left_early, const ReplayProgram& program,
                                    const std::function<ReplayResult(const ReplayProgram&)>& replay,
                                    WarningLog* warnings);

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Communication records that break MPI's matching rules, re-paired before anything is replayed.
//
// Extrae's merger (mpi2prv, up to 5.1.2) writes a cancelled MPI_Irecv as a real receive and pairs
// sends with receives first-in first-out per (sender, receiver, tag): the cancelled receive takes
// the first send, and every later record of that channel pairs a send with the receive before its
// own, so records are received before they are sent and the replay deadlocks (HPCC's
// RandomAccess). The repair, per channel (docs/replay.md, "Mispaired communications"):
//  1. a receive is cancelled when its task calls MPI_Cancel between its post and its recorded
//     completion, and that completion lies in the same call as the completion of a receive of the
//     channel posted later; cancelled receives are dropped and the channel is paired again first-in
//     first-out (sends by send time, receives by post time);
//  2. a channel still holding a record received before it is sent is paired again by pairing each
//     receive, in completion order, with the earliest unpaired send before its completion;
//  3. what is left unpaired (the send a cancelled receive took, a receive no earlier send can
//     feed) replays without a message, like a message cut in half by a trace cut.
// Afterwards every message runs forward in traced time: a send's entry precedes its receive's
// completion.
#include "replay/trace.hpp"

#include <cstdint>

namespace popsim::replay {

/// Re-pairs `trace.comms` as above and reports the counts (CommunicationRepairs, trace.hpp), also
/// as one warning. Traces whose records all run forward and whose receiving tasks never call
/// MPI_Cancel are left as they are.
CommunicationRepairs repair_communications(Trace& trace);

/// Leaves out communication records that repeat an earlier record field for field (a merge that
/// wrote them twice), with one warning; returns how many.
std::uint64_t drop_duplicate_records(Trace& trace);

} // namespace popsim::replay

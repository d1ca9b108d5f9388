// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where prv2dim ends a thread's CPU bursts besides at its MPI calls. Dimemas replays each piece
// as a CPU request of its own, ended by an event of its own: the pieces decide who runs when on a
// shared CPU, and who asks first for a link in an instant (docs/network-model.md, "Bursts cut by
// events"). The rule, from prv2dim's translation of a task
// (its TaskTranslationInfo):
//   - a task starts with two pieces: an empty one, then one up to its first record;
//   - an event pair outside MPI calls, of a type prv2dim writes as a plain event (prv2dim_plain_
//     event), ends a piece at its time, unless the last piece or call already ended there; at
//     time 0 each such pair ends a piece, so each is an empty piece of its own;
//   - a user function, call or block (60000019-21) that begins, or ends one that began, ends a
//     piece if time has passed since the last one ended (so never an empty one);
//   - a call's entry ends a piece only if time has passed since the last one ended.
// Pairs count one at a time, in the order of their line.
#include "replay/input/paraver_records.hpp"
#include "replay/time.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace popsim::replay {

/// Whether prv2dim writes an event of this type as a plain event, which ends a CPU burst: not an
/// MPI call, a user function, call or block, an OpenMP type, a cluster, CUDA or OpenCL block, a
/// pseudo logical receive (types 9-16) or an MPI probe counter.
bool prv2dim_plain_event(std::uint32_t type);

/// One thread's cuts, fed its records in time order; each cut is the end time of a piece,
/// appended to `cuts`.
class Prv2dimCuts {
  public:
    /// A record of the thread at `time` (its begin, for a state): the first one ends the start.
    void record(Time time, std::vector<Time>& cuts);
    /// An event line of the thread, its pairs in file order (call record() first).
    void event(Time time, std::span<const EventPair> pairs, std::vector<Time>& cuts);

  private:
    bool started_ = false;
    bool in_call_ = false;
    std::uint32_t open_user_blocks_ = 0; // user functions begun and not ended
    Time last_end_ = 0; // where the last piece or call ended (prv2dim's LastBlockEnd)
};

} // namespace popsim::replay

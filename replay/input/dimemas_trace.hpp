// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Dimemas' own trace format (.dim, as prv2dim writes it; docs/file-formats.md): written from a
// replay program, and read back into one, so users can bring the Dimemas traces they already have.
//
// Written records, per task (thread 0): `1` CPU burst (seconds), `2` send (sync 2 = immediate,
// 1 = blocking, rendezvous-eligible), `3` receive (type 1 = post, 2 = wait), `10` global operation;
// the `comm` field of point-to-point records carries the message's id, as prv2dim's does, so each
// send meets exactly its receive.
#include "replay/program/replay_program.hpp"
#include "replay/trace.hpp"

#include <string>

namespace popsim::replay {

void write_dimemas_trace(const ReplayProgram& program,
                         const std::vector<Communicator>& communicators, const std::string& path);

/// Reads a .dim trace (records 0, 1, 2, 3, 10, 20; others are refused with file:line). Throws
/// TraceError for malformed records and messages without their partner.
ReplayProgram read_dimemas_trace(const std::string& path, const ProgramOptions& options = {});

} // namespace popsim::replay

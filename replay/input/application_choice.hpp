// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Traces with several applications (Paraver's header lists them): PROFET's LULESH traces add an
// application of uncore-counter readers beside the MPI program. popsim analyses one application;
// the others are left out with one warning.
#include "replay/trace.hpp"

#include <cstdint>

namespace popsim::replay {

/// Keeps application `requested` (1-based; 0 = the one that calls MPI, else the first) and drops
/// the others' threads, records, communicators and row labels. Throws TraceError when
/// `requested` is not in the header; warns when several applications call MPI.
void keep_one_application(Trace& trace, std::uint32_t requested);

} // namespace popsim::replay

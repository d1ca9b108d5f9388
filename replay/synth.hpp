// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Synthetic Paraver traces: a program of per-thread operations (compute bursts, MPI calls with
// their messages, states, events) written as a valid Extrae-style .prv/.pcf/.row. Used by the
// tests (hand-computed examples), the benchmarks (GB-sized traces) and `popsim synth`.
//
// Example (the POP seed example: PE 58.3 %, CommE 66.7 %):
//   auto program = popsim::replay::synth::parse_description(
//       "ranks 2\n0 compute 8s\n0 Barrier 4s\n1 compute 6s\n1 Barrier 6s\n", "example");
//   popsim::replay::synth::write_paraver(program, "example.prv");
//
// The description language is documented in docs/synth.md.
#include "replay/time.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::replay::synth {

struct Op {
    enum class Kind : std::uint8_t { compute, state, mpi, event, jump };
    Kind kind = Kind::compute;
    Time duration = 0;       // compute/state/mpi; for jump: the absolute time to jump to
    std::uint32_t state = 1; // state: the Paraver state value
    std::uint16_t call = 0;  // mpi: Extrae call id
    std::int32_t to = -1;    // mpi: destination rank of the message it sends
    std::int32_t from = -1;  // mpi: source rank of the message it receives
    std::uint64_t bytes = 0;
    std::uint32_t tag = 0;
    std::int32_t root = -1; // rooted collectives
    std::uint64_t communicator = 1;
    // Irecv/Isend: its request; Wait*: the requests it completes.
    std::vector<std::uint32_t> requests;
    std::uint64_t instructions = 0; // compute: PAPI_TOT_INS / PAPI_TOT_CYC of the burst (0 = none)
    std::uint64_t cycles = 0;
    std::uint32_t event_type = 0; // event: one event at the current time
    std::uint64_t event_value = 0;
    std::uint64_t line = 0; // the description line that wrote it (0: generated)
};

struct Program {
    std::string source; // the description it was read from (empty: generated), for errors
    std::uint32_t ranks = 1;
    std::uint32_t threads_per_rank = 1;
    std::optional<Time> end; // trace end; default: when the last thread finishes
    /// The end the header declares, when it differs from the real one (Paraver's cutter writes
    /// the cut's end while records run on a little past it).
    std::optional<Time> declared_end;
    /// Tasks of a second application that only compute all along, without MPI (PROFET's uncore
    /// counter readers); 0 = none.
    std::uint32_t other_application_tasks = 0;
    std::vector<std::vector<Op>> threads; // index = rank * threads_per_rank + thread

    Program(std::uint32_t ranks, std::uint32_t threads_per_rank);
    std::vector<Op>& thread(std::uint32_t rank, std::uint32_t thread = 0) {
        return threads[rank * threads_per_rank + thread];
    }
};

/// Parses the description language; throws TraceError naming `name` and the line.
Program parse_description(std::string_view text, const std::string& name);
Program read_description(const std::string& path);

/// Writes `prv_path` and the .pcf/.row beside it. Throws TraceError if the program is
/// inconsistent (an unmatched message, a Wait on an unknown request) or a file cannot be written.
void write_paraver(const Program& program, const std::string& prv_path);

/// A halo-exchange program for benchmarks: `ranks` ranks in a ring, `steps` iterations of
/// compute + Irecv/Isend/Waitall with both neighbours + an Allreduce every 10 steps. With several
/// `threads` per rank each compute burst is an OpenMP parallel region, as Extrae marks it: the
/// master's region (60000001) and outlined function (60000018), each worker's outlined function
/// for a little less than the region, then Synchronization until its end, Idle in between.
Program halo_exchange(std::uint32_t ranks, std::uint64_t steps, std::uint32_t threads = 1,
                      std::uint64_t seed = 1);

} // namespace popsim::replay::synth

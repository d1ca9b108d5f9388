// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The communication views analysts ask pipit and Paraver for: who sends how much to whom (the
// communication matrix, as pipit's comm_matrix and Paraver's 2D analyser of message records),
// how large the messages are (a histogram of sizes in powers of two), and when each rank
// computes or is in MPI (a time profile). All from the trace's records, as traced.
#include "replay/trace.hpp"

#include <cstdint>
#include <vector>

namespace popsim::metrics {

/// Messages from one rank to another (1-based ranks), only pairs that exchanged any.
struct RankPair {
    std::uint32_t sender = 0, receiver = 0;
    std::uint64_t messages = 0, bytes = 0;
};

/// Messages of [from_bytes, to_bytes) bytes: 0, then 1, 2-3, 4-7, ... (powers of two).
struct SizeBin {
    std::uint64_t from_bytes = 0, to_bytes = 0;
    std::uint64_t messages = 0, bytes = 0;
};

struct CommunicationViews {
    std::uint32_t ranks = 0;
    std::uint64_t messages = 0, bytes = 0;
    std::vector<RankPair> pairs;              // by sender, then receiver
    std::vector<SizeBin> sizes;               // the bins holding messages, smallest first
    Time bin_ns = 0;                          // the time profile's bins: [k bin_ns, (k+1) bin_ns)
    std::vector<std::vector<Time>> useful_ns; // per rank (its first thread), per bin: Running
    std::vector<std::vector<Time>> mpi_ns;    // per rank, per bin: inside MPI calls
};

/// The views of `trace`, its time profile in `time_bins` bins over [0, end).
CommunicationViews communication_views(const replay::Trace& trace, std::size_t time_bins = 100);

} // namespace popsim::metrics

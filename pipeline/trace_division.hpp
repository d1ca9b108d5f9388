// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The traces of a series divided among cooperating processes (an MPI run: simulator/mpi_run.hpp):
// each trace is analysed whole by one process, and every trace's results reach the process that
// reports, which then computes the series exactly as a single process does (docs/architecture.md,
// "Many processes").
#include "pipeline/analysis.hpp"

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::pipeline {

class TraceDivision {
  public:
    virtual ~TraceDivision() = default;
    /// Whether this process analyses each of `paths` (the same division on every process).
    virtual std::vector<bool> analysed_here(const std::vector<std::string>& paths) const = 0;
    /// Whether this process computes the series and shows it.
    virtual bool reports_here() const = 0;
    /// Called by every process once it has analysed its traces, `failures[i]` holding trace i's
    /// error, if any: brings the results of the traces analysed elsewhere into `analyzed` on the
    /// reporting process, and throws there the error of the first trace that failed anywhere.
    virtual void gather(Analyzed& analyzed, const std::vector<bool>& here,
                        const std::vector<std::exception_ptr>& failures) = 0;
};

/// Which of `processes` processes analyses each trace of `sizes` bytes: the largest first, each to
/// the process with the fewest bytes so far (the lowest rank among equals).
std::vector<std::uint32_t> divide_by_size(const std::vector<std::uint64_t>& sizes,
                                          std::uint32_t processes);

/// Trace i of `analyzed` as the streaming pass leaves it (its pass, summary, hybrid run, warnings
/// and repairs) in bytes (CBOR), every number exact; and back into trace i of another Analyzed
/// with as many traces.
std::string trace_to_bytes(const Analyzed& analyzed, std::size_t i);
void trace_from_bytes(std::string_view bytes, Analyzed& analyzed, std::size_t i);

} // namespace popsim::pipeline

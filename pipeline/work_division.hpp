// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Work divided among cooperating processes (an MPI run: simulator/mpi_run.hpp): the traces of
// analyze's series, the configurations of whatif's sweep. Each item is done whole by one process,
// and every item's result reaches the process that reports, which then goes on exactly as a
// single process does (docs/architecture.md, "Many processes").
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace popsim::pipeline {

class WorkDivision {
  public:
    virtual ~WorkDivision() = default;
    /// Which items this process does, item i weighing `weights[i]` (bytes to read, or 1): the
    /// same division on every process (divide_by_weight).
    virtual std::vector<bool> done_here(const std::vector<std::uint64_t>& weights) const = 0;
    /// Whether this process goes on with every item's result and shows it.
    virtual bool reports_here() const = 0;
    /// Called by every process once its items are done: `results[i]` item i's result in bytes
    /// (empty on the reporting process, which keeps its own), `failures[i]` its error. Returns, on
    /// the reporting process, the results of the items done elsewhere (the others empty) and
    /// throws there the error of the first item that failed anywhere; elsewhere returns nothing.
    virtual std::vector<std::string> gather(const std::vector<std::string>& results,
                                            const std::vector<bool>& here,
                                            const std::vector<std::exception_ptr>& failures) = 0;
};

/// The end of a divided piece of work, on every process: each item done here without error goes to
/// the reporting process as `to_bytes(i)`, which takes each item done elsewhere with
/// `from_bytes(i, bytes)`; the first error anywhere is thrown there (WorkDivision::gather).
/// Returns whether this process reports.
template <class ToBytes, class FromBytes>
bool gather_items(WorkDivision& division, const std::vector<bool>& here,
                  const std::vector<std::exception_ptr>& failures, ToBytes to_bytes,
                  FromBytes from_bytes) {
    std::vector<std::string> results(here.size());
    if (!division.reports_here())
        for (std::size_t i = 0; i < here.size(); ++i)
            if (here[i] && !failures[i]) results[i] = to_bytes(i);
    const auto others = division.gather(results, here, failures);
    if (!division.reports_here()) return false;
    for (std::size_t i = 0; i < here.size(); ++i)
        if (!here[i]) from_bytes(i, others[i]);
    return true;
}

/// Which of `processes` processes does each item of `weights`: the heaviest first, each to the
/// process with the least weight so far (the lowest rank among equals); equal weights go round
/// robin.
std::vector<std::uint32_t> divide_by_weight(const std::vector<std::uint64_t>& weights,
                                            std::uint32_t processes);

/// Whether only the process that reports can read the trace at `path`: a pipe, or the process's
/// own standard input or descriptors (/dev/stdin: mpirun feeds the first process only).
bool read_by_reporting_process(const std::string& path);

/// The bytes a trace's analysis reads: the file, or an OTF2 archive's files (its anchor, e.g.
/// traces.otf2, and the folder of the same stem that holds its definitions and events); 0 when
/// unreadable (its analysis says why).
std::uint64_t trace_bytes(const std::string& path);

} // namespace popsim::pipeline

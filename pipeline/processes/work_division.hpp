// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Work divided among cooperating processes (an MPI run: simulator/mpi_run.hpp): the traces of
// analyze's series, the configurations of whatif's sweep. Each item is done by one process (a
// trace's reading helped by processes left without a trace: replay/input/divided_read.hpp), and
// every item's result reaches the process that reports, which then goes on exactly as a single
// process does (docs/architecture.md, "Many processes").
#include "replay/input/divided_read.hpp"

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

class WorkDivision {
  public:
    virtual ~WorkDivision() = default;
    /// This process (0 reports) and how many there are.
    virtual std::uint32_t process() const = 0;
    virtual std::uint32_t processes() const = 0;
    bool reports_here() const { return process() == 0; }
    /// Whether every process is ready for its share of the work (none failed before it: a trace
    /// its machine does not see). Called once by each process before its share, or by its
    /// fail_gather; when false, every process goes straight to the gather, which reports the
    /// failure.
    virtual bool all_ready() = 0;
    /// This process's channel to the processes `helpers`, which help it read one trace; they are
    /// released when it is destroyed.
    virtual std::unique_ptr<replay::ReadHelpers>
    read_helpers(const std::vector<std::uint32_t>& helpers) = 0;
    /// This process's asks from the process `reader`, which it helps read one trace
    /// (replay::help_read_paraver answers them).
    virtual std::unique_ptr<replay::ReadRequests> read_requests(std::uint32_t reader) = 0;
    /// Called by every process once its items are done: `results[i]` item i's result in bytes
    /// (empty on the reporting process, which keeps its own), `failures[i]` its error. Returns, on
    /// the reporting process, the results of the items done elsewhere (the others empty) and
    /// throws there the error of the first item that failed anywhere; elsewhere returns nothing.
    virtual std::vector<std::string> gather(const std::vector<std::string>& results,
                                            const std::vector<bool>& here,
                                            const std::vector<std::exception_ptr>& failures) = 0;
    /// Called by every process: the reporting process's `bytes` (none: it failed), on every
    /// process (the others pass none).
    virtual std::optional<std::string> share(std::optional<std::string> bytes) = 0;
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

/// gather_items for a process with no item of its own to hand in (the reporting process throws the
/// first failure met anywhere). Returns whether this process reports.
inline bool gather_nothing(WorkDivision& division) {
    return gather_items(
        division, {}, {}, [](std::size_t) { return std::string(); },
        [](std::size_t, const std::string&) {});
}

/// Whether other processes can help read the trace at `path`: an OTF2 archive (its locations), or a
/// .prv whose body they can read apart, plain or gzipped by bgzip with its index beside it
/// (replay/input/body_text.hpp); not a pipe. If not, a .prv's `why_not` says why.
bool dividable_trace(const std::string& path, std::string* why_not = nullptr);

/// A command one process does (simulate), its reading of the trace at `path` helped by the others:
/// once all are ready, the reporting process runs `work` with its helpers (null when the trace
/// cannot be divided) and the others help; then every process joins the gather, which throws on
/// the reporting process the error of another that failed. Returns whether this process reports.
template <class Work> bool run_helped(WorkDivision& division, const std::string& path, Work work) {
    if (division.all_ready()) read_helped(division, path, work);
    return gather_nothing(division);
}

/// On the reporting process, `read(helpers)`: its reading of the trace at `path` helped by every
/// other process (null when the trace cannot be divided), which are released when it returns or
/// throws; on the others, their help. Called by every process once all are ready.
template <class Read> void read_helped(WorkDivision& division, const std::string& path, Read read) {
    const bool helped = dividable_trace(path);
    if (division.reports_here()) {
        std::vector<std::uint32_t> others;
        for (std::uint32_t p = 1; p < division.processes(); ++p) others.push_back(p);
        const auto helpers = helped ? division.read_helpers(others) : nullptr;
        read(helpers.get());
    } else if (helped) {
        replay::help_read(path, *division.read_requests(0));
    }
}

/// Which items this process does, item i weighing `weights[i]` (bytes to read, or 1): the same
/// division on every process (divide_by_weight).
std::vector<bool> done_here(const WorkDivision& division,
                            const std::vector<std::uint64_t>& weights);

/// Which of `processes` processes does each item of `weights`: the heaviest first, each to the
/// process with the least weight so far (the lowest rank among equals); equal weights go round
/// robin.
std::vector<std::uint32_t> divide_by_weight(const std::vector<std::uint64_t>& weights,
                                            std::uint32_t processes);

/// The processes that help read each trace, given the process that reads it (`readers`) and
/// whether its body can be divided (a plain .prv): when no process reads more than one trace, the
/// processes that read none, shared round robin among the traces that can be divided (the
/// heaviest first); else none.
std::vector<std::vector<std::uint32_t>> helpers_of(const std::vector<std::uint32_t>& readers,
                                                   const std::vector<std::uint64_t>& weights,
                                                   const std::vector<bool>& dividable,
                                                   std::uint32_t processes);

/// Whether only the process that reports can read the trace at `path`: a pipe, or the process's
/// own standard input or descriptors (/dev/stdin: mpirun feeds the first process only).
bool read_by_reporting_process(const std::string& path);

/// The bytes a trace's analysis reads: the file, or an OTF2 archive's files (its anchor, e.g.
/// traces.otf2, and the folder of the same stem that holds its definitions and events); 0 when
/// unreadable (its analysis says why).
std::uint64_t trace_bytes(const std::string& path);

} // namespace popsim::pipeline

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim started by mpirun (built when CMake finds MPI: POPSIM_MPI). `mpirun -np K popsim analyze
// TRACES` divides the traces of the series among the K processes, each analysed by one, the
// processes left without a trace helping read a .prv's body; `whatif` its configurations, each
// replayed whole by one; `simulate` runs on the first process, the others helping it read
// (pipeline/processes/work_division.hpp). The first process shows and writes what a single process
// would, the others print nothing. Every other command runs on the first process alone.
#include "pipeline/processes/work_division.hpp"
#include "simulator/failure.hpp"

#include <cstddef>
#include <memory>
#include <mpi.h>
#include <optional>
#include <utility>

namespace popsim::simulator {

/// MPI, from MPI_Init to MPI_Finalize, and the division of work among its processes.
class MpiRun final : public pipeline::WorkDivision {
  public:
    MpiRun(int& argc, char**& argv);
    ~MpiRun() override;
    MpiRun(const MpiRun&) = delete;
    MpiRun& operator=(const MpiRun&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    /// On the first process, bound by mpirun to one of its machine's cores (Open MPI's default for
    /// one or two processes): a note that popsim's threads share that core, and how to free them.
    void note_binding() const;

    std::uint32_t process() const override { return static_cast<std::uint32_t>(rank_); }
    std::uint32_t processes() const override { return static_cast<std::uint32_t>(size_); }
    std::unique_ptr<replay::ReadHelpers>
    read_helpers(const std::vector<std::uint32_t>& helpers) override;
    std::unique_ptr<replay::ReadRequests> read_requests(std::uint32_t reader) override;
    bool all_ready() override { return agree(true); }
    std::vector<std::string> gather(const std::vector<std::string>& results,
                                    const std::vector<bool>& here,
                                    const std::vector<std::exception_ptr>& failures) override;
    std::optional<std::string> share(std::optional<std::string> bytes) override;
    /// For a process that failed before its command's gather (a trace only some machines see, a
    /// bad option found with the trace): tells the others it is not ready (all_ready) if it has
    /// not yet, and joins their gather with `failure`, which the reporting process then reports,
    /// so that none of them waits for it. Nothing once gathered.
    void fail_gather(const Failure& failure);

  private:
    /// all_ready, with this process's readiness: an MPI_Allreduce, once.
    bool agree(bool ready);
    /// The gather itself: this process's part in CBOR; the reporting process's results of the
    /// others, and the first failure met anywhere (by item; one before any item last).
    std::vector<std::string> exchange(const std::vector<std::uint8_t>& part, std::size_t items,
                                      std::optional<std::pair<std::size_t, Failure>> first_failure);

    bool agreed_ = false;
    bool gathered_ = false;
    int rank_ = 0;
    int size_ = 1;
    /// Whether MPI lets the reader's pipeline call it from its threads (one at a time).
    bool serialized_ = false;
    /// The divided reads' messages, apart from the gathers'.
    MPI_Comm reads_ = MPI_COMM_NULL;
};

} // namespace popsim::simulator

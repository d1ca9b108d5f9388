// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim started by mpirun (built when CMake finds MPI: POPSIM_MPI). `mpirun -np K popsim analyze
// TRACES` divides the traces of the series among the K processes, each analysed whole by one;
// `whatif` its configurations, each replayed whole by one (pipeline/work_division.hpp). The first
// process shows and writes what a single process would, the others print nothing. Every other
// command runs on the first process alone.
#include "pipeline/work_division.hpp"

namespace popsim::simulator {

/// Whether mpirun started this process (Open MPI's environment): only then is MPI initialised.
bool started_by_mpirun();

/// MPI, from MPI_Init to MPI_Finalize, and the division of work among its processes.
class MpiRun final : public pipeline::WorkDivision {
  public:
    MpiRun(int& argc, char**& argv);
    ~MpiRun() override;
    MpiRun(const MpiRun&) = delete;
    MpiRun& operator=(const MpiRun&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }

    std::vector<bool> done_here(const std::vector<std::uint64_t>& weights) const override;
    bool reports_here() const override { return rank_ == 0; }
    std::vector<std::string> gather(const std::vector<std::string>& results,
                                    const std::vector<bool>& here,
                                    const std::vector<std::exception_ptr>& failures) override;

  private:
    int rank_ = 0;
    int size_ = 1;
};

} // namespace popsim::simulator

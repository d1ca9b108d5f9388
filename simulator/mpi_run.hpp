// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim started by mpirun (built when CMake finds MPI: POPSIM_MPI). `mpirun -np K popsim analyze
// TRACES` divides the traces of the series among the K processes, each trace analysed whole by one
// (pipeline/trace_division.hpp); the first process shows and writes what a single process would,
// the others print nothing. Every other command runs on the first process alone.
#include "pipeline/trace_division.hpp"

namespace popsim::simulator {

/// Whether mpirun started this process (Open MPI's environment): only then is MPI initialised.
bool started_by_mpirun();

/// MPI, from MPI_Init to MPI_Finalize, and the division of analyze's traces among its processes.
class MpiRun final : public pipeline::TraceDivision {
  public:
    MpiRun(int& argc, char**& argv);
    ~MpiRun() override;
    MpiRun(const MpiRun&) = delete;
    MpiRun& operator=(const MpiRun&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }

    std::vector<bool> analysed_here(const std::vector<std::string>& paths) const override;
    bool reports_here() const override { return rank_ == 0; }
    void gather(pipeline::Analyzed& analyzed, const std::vector<bool>& here,
                const std::vector<std::exception_ptr>& failures) override;

  private:
    int rank_ = 0;
    int size_ = 1;
};

} // namespace popsim::simulator

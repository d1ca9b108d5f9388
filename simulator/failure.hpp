// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a failed command tells its user: the exit status and the message, one mapping for the
// program (main) and the library (include/popsim/popsim.hpp).
#include <stdexcept>
#include <string>
#include <utility>

namespace popsim::simulator {

struct Failure {
    int status;          // k_exit_usage, k_exit_bad_input, k_exit_failure or k_exit_regression
    std::string message; // printed after "popsim: error: " ("popsim: regression: " for 4)
};

/// The failure the exception being handled means; call it inside a catch block.
Failure current_failure();

/// A failure met by another process of an MPI run (simulator/mpi_run.hpp), thrown again on the
/// one that reports: current_failure() gives it back as it was.
class ForwardedFailure : public std::runtime_error {
  public:
    explicit ForwardedFailure(Failure failure)
        : std::runtime_error(failure.message), failure_(std::move(failure)) {}
    const Failure& failure() const { return failure_; }

  private:
    Failure failure_;
};

} // namespace popsim::simulator

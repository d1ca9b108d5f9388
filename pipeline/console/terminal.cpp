// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/console/terminal.hpp"

#include <cstdlib>
#include <unistd.h>

namespace popsim::pipeline {

bool started_by_mpirun() {
    return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
}

bool watched_terminal(int fd) {
    return isatty(fd) != 0 && !started_by_mpirun();
}

} // namespace popsim::pipeline

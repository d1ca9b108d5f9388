// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether what popsim prints goes to a terminal someone watches: only then does it colour the
// report, fit it to the terminal's width and draw the progress bar.

namespace popsim::pipeline {

/// Whether mpirun started this process (Open MPI's environment).
bool started_by_mpirun();

/// Whether `fd` (standard output or error) is a terminal someone watches. Not under mpirun, which
/// gives each process a terminal of its own whether or not its own output goes to one: a report
/// redirected to a file would hold colour codes and the progress bar's redraws.
bool watched_terminal(int fd);

} // namespace popsim::pipeline

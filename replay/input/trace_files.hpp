// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The files a trace consists of, known from its name: a Paraver trace's .pcf and .row beside it
// (and a gzipped one's indexes), an OTF2 archive's global definitions and folder of locations, a
// Dimemas trace alone. popsim writes over none of them (simulator/output_paths.hpp).
#include <string>
#include <vector>

namespace popsim::replay {

struct TraceFiles {
    std::vector<std::string> files;   // the trace's own path first
    std::vector<std::string> folders; // everything below them is the trace's
};

TraceFiles trace_files(const std::string& path);

} // namespace popsim::replay

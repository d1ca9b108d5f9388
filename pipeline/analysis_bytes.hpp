// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One trace's analysis as bytes, to carry it between the processes of an MPI run
// (work_division.hpp): what the streaming pass leaves (the pass, the summary, the hybrid run, the
// warnings, the repairs), in CBOR, every number exact.
#include "pipeline/analysis.hpp"

#include <string>
#include <string_view>

namespace popsim::pipeline {

/// Trace i of `analyzed` in bytes; and back into trace i of another Analyzed with as many traces.
std::string trace_to_bytes(const Analyzed& analyzed, std::size_t i);
void trace_from_bytes(std::string_view bytes, Analyzed& analyzed, std::size_t i);

} // namespace popsim::pipeline

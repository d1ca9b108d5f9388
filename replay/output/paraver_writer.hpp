// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writes Paraver files: the .prv header and records, and the .pcf/.row companions. Shared by the
// synthetic trace writer and the simulated-timeline output, so both open in Paraver alike.
#include "replay/focus/record_window.hpp"
#include "replay/input/paraver_header.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/output/output_file.hpp"
#include "replay/trace.hpp"

#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace popsim::replay {

class ParaverWriter final : public RecordSink {
  public:
    /// Opens `prv_path` (plain text, through an OutputFile) and writes the header; throws
    /// OutputError if it cannot.
    /// `comments`: lines after the header (each starting with '#', ending with a newline).
    ParaverWriter(const std::string& prv_path, const ParaverHeader& header,
                  std::string_view comments = {});
    ParaverWriter(const ParaverWriter&) = delete;
    ParaverWriter& operator=(const ParaverWriter&) = delete;

    void state(const RecordOwner& who, Time begin, Time end, std::uint32_t state);
    void state(const StateRecord& r) override { state(r.owner, r.begin, r.end, r.state); }
    void event(const RecordOwner& who, Time time, std::span<const EventPair> pairs) override;
    void comm(const CommRecord& r) override;
    /// Writes what is left and puts the file in place; throws OutputError on a write error. A
    /// writer destroyed without close() leaves no file behind.
    void close();

  private:
    void flush_if_full();
    OutputFile file_;
    std::string buffer_;
};

/// The header line for `header` (date, end time in ns, resources, applications, communicators).
std::string format_paraver_header(const ParaverHeader& header);

/// `labels` completed by the standard .pcf's: Extrae's states when it names none, and popsim's
/// event types (MPI calls, counters, OpenMP, the critical path) with their values where it lacks
/// them.
TraceLabels with_standard_labels(TraceLabels labels);
/// Whether a .pcf popsim writes declares the OpenMP event types: only for a trace with OpenMP, as
/// Extrae writes them (prv2dim takes a .pcf declaring OpenMP parallel regions for an OpenMP trace's
/// and maps its tasks differently).
enum class PcfOpenmp : std::uint8_t { without, with };
/// With OpenMP types when a task of `header` has several threads.
PcfOpenmp pcf_openmp_for(const ParaverHeader& header);
/// Writes the .pcf popsim uses for every trace it writes: Extrae's state table, the MPI call
/// events with their names, counters and, for `openmp`, OpenMP types.
void write_standard_pcf(const std::string& pcf_path, PcfOpenmp openmp);
/// Writes a .pcf holding `original_text` (another trace's .pcf, whose types are `declared`) and
/// popsim's own types it does not declare: the original's names carried into a derived trace.
void write_pcf_with_standard_types(const std::string& pcf_path, const std::string& original_text,
                                   const std::vector<std::uint32_t>& declared, PcfOpenmp openmp);
/// Writes a .pcf holding `labels` (states, event types and their values' names; Extrae's states
/// without any) and popsim's own types they lack.
void write_pcf_with_labels(const std::string& pcf_path, const TraceLabels& labels,
                           PcfOpenmp openmp);
/// Writes a .row naming CPUs, nodes and threads for `header`'s first application.
void write_row(const std::string& row_path, const ParaverHeader& header);

} // namespace popsim::replay

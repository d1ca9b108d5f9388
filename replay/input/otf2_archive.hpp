// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Score-P's OTF2 archives (docs/file-formats.md, "OTF2 archives"), read through the OTF2 library
// as the Paraver records Extrae would have written for the same run, so every command treats
// them as Paraver traces: per CPU thread of a process, Running outside MPI, each MPI call as its
// state between its entry and exit events (50000001-5, with the collective's sizes, root and
// communicator), tracing disabled where measurement was off, and one communication record per
// matched message. MPI ranks are the tasks; a process's CPU threads are its threads. Locations
// that are neither (GPU streams, metric locations) are left out with one warning.
//
// Example:
//   popsim::replay::Otf2Archive archive("scorep-run/traces.otf2");
//   trace.header = archive.header();
//   archive.feed(sink, trace.warnings); // the records, in time order
#include "replay/focus/record_window.hpp"
#include "replay/input/divided_read.hpp"
#include "replay/input/paraver_header.hpp"
#include "replay/trace.hpp"
#include "replay/warnings.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace popsim::replay {

/// Whether `path` names an OTF2 archive: its anchor file (*.otf2).
bool is_otf2_anchor(const std::string& path);

/// One location's OTF2 event records per kind (otf2-print's names: "ENTER", "MPI_SEND", ...).
struct Otf2LocationRecords {
    std::uint64_t location = 0; // its OTF2 reference
    std::string name;
    std::vector<std::pair<std::string_view, std::uint64_t>>
        records; // kinds it has, in OTF2's order
};

/// The names an archive gives what popsim reads as Paraver events (the .pcf of a Paraver trace):
/// its OpenMP parallel regions (60000018) and user functions (60000019), by region reference + 1.
/// Reads the definitions alone.
TraceLabels otf2_labels(const std::string& anchor);

/// A helper's work (replay/input/divided_read.hpp): each ask's locations of the archive at
/// `anchor` read (an ask's `begin` and `end` index its locations in reference order, `text_size`
/// is their count: a helper that sees another archive answers an error) and answered with their
/// records, until the reader releases it.
void help_read_otf2(const std::string& anchor, ReadRequests& requests);

class Otf2Archive {
  public:
    /// Opens the archive and reads its definitions and events, a part of its locations each by
    /// `helpers` when given (other processes of an MPI run: help_read_otf2). Throws TraceError
    /// naming the anchor file (and the location) for an archive the library cannot read.
    explicit Otf2Archive(const std::string& anchor, ReadHelpers* helpers = nullptr);
    ~Otf2Archive();
    Otf2Archive(const Otf2Archive&) = delete;
    Otf2Archive& operator=(const Otf2Archive&) = delete;

    /// The run as a Paraver header: one application, a task per MPI rank (or process) with its
    /// CPU threads, the end of the latest record, the MPI communicators.
    const ParaverHeader& header() const;
    /// Gives `sink` every record in time order, as a merged Paraver trace has them; says in
    /// `warnings` what was left out. Once: the records are handed over, not kept.
    void feed(RecordSink& sink, WarningLog& warnings);
    /// The names its definitions give (otf2_labels).
    TraceLabels labels() const;
    /// Each location's records per kind, by location reference.
    std::vector<Otf2LocationRecords> record_counts() const;

    struct Content; // what the archive holds, as the reader's callbacks fill it

  private:
    std::unique_ptr<Content> content_;
};

} // namespace popsim::replay

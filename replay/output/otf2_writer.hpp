// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writes Paraver records as an OTF2 archive through the OTF2 library (docs/file-formats.md, "OTF2
// archives written"), so Vampir, Scalasca, otf2-print and pipit open an Extrae run:
// - a process per task (MPI rank), a CPU thread location per thread;
// - each MPI call as a region named after it, with its messages as MpiSend/MpiIsend and
//   MpiRecv/MpiIrecvRequest/MpiIrecv records and its collective as MpiCollectiveBegin/End
//   (communicator, root, sizes);
// - each state as a region named from the .pcf, OpenMP parallel regions (60000018) and user
//   functions (60000019) as regions named from the .pcf;
// - hardware counters as accumulated metrics named after the PAPI counter, the other Paraver
//   event types as metrics, tracing on/off (40000012) as measurement on/off.
// The states and the Paraver event metrics are marked, so that popsim reads the archive back as
// the Paraver trace it came from (same metrics, same ideal runtime).
//
// The records are held in memory until close(): a thread's messages are written in the calls
// that send and receive them, which a record sorted by its send time does not know yet.
//
// Example:
//   popsim::replay::Otf2Writer writer("run.otf2", trace.header, trace.labels);
//   ... writer.state(record); writer.event(owner, time, pairs); writer.comm(message); ...
//   writer.close();
#include "replay/focus/record_window.hpp"
#include "replay/input/paraver_header.hpp"
#include "replay/otf2_library.hpp"
#include "replay/trace.hpp"

#include <memory>
#include <string>

namespace popsim::replay {

/// What close() wrote.
struct Otf2WriteCounts {
    std::uint64_t locations = 0;
    std::uint64_t events = 0;            // OTF2 event records
    std::uint64_t messages = 0;          // written with both their halves
    std::uint64_t messages_left_out = 0; // a half in no call that can send or receive it
    std::uint64_t unnested_regions = 0;  // states or functions crossing an MPI call's edge
};

class Otf2Writer final : public RecordSink {
  public:
    /// `anchor`: the archive's anchor file, e.g. "out/run.otf2" (its run.def and folder run/ go
    /// beside it; an earlier archive of the name is replaced). `header`: the threads, of one
    /// application (the records' owners name it as application 1), and the communicators. `labels`:
    /// the .pcf's names of states and event values (completed by the standard .pcf's where it lacks
    /// them).
    Otf2Writer(std::string anchor, ParaverHeader header, TraceLabels labels);
    ~Otf2Writer() override;
    Otf2Writer(const Otf2Writer&) = delete;
    Otf2Writer& operator=(const Otf2Writer&) = delete;

    void state(const StateRecord& record) override;
    void event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) override;
    void comm(const CommRecord& record) override;

    /// Writes the archive, first under a temporary name then in place; throws OutputError
    /// (naming the anchor and the library's cause) if it cannot. A writer destroyed without
    /// close() leaves nothing behind.
    Otf2WriteCounts close();

    struct Held; // the records, per thread

  private:
    std::string anchor_;
    ParaverHeader header_;
    TraceLabels labels_;
    std::unique_ptr<Held> held_;
};

} // namespace popsim::replay

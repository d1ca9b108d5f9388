// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A Paraver trace's records as written, one by one, to a RecordSink: for the commands that copy
// every record (popsim cut, convert to OTF2), where the trace model keeps only what analyses use.
#include "replay/focus/record_window.hpp"
#include "replay/input/paraver_header.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace popsim::replay {

/// What comes before a trace's records: the header line, its communicators, its comment lines
/// (each ending with a newline).
struct ParaverPreamble {
    ParaverHeader header;
    std::string comments;
};

/// Reads `path` (.prv or .prv.gz): gives `sink_for` the preamble, then the sink it returns
/// every state, event and communication record in file order (global `4:` records are not
/// used). Returns the lines read. Throws TraceError naming the file and line of a record it
/// cannot parse, or that names a thread the header does not declare; the trace should have
/// been read once (popsim's reader checks what this pass does not).
std::uint64_t
stream_paraver_records(const std::string& path,
                       const std::function<RecordSink&(const ParaverPreamble&)>& sink_for);

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/paraver_record_stream.hpp"

#include "replay/focus/record_window.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/input/parse_error.hpp"
#include "replay/trace_error.hpp"

#include <fmt/format.h>

namespace popsim::replay {

std::uint64_t
stream_paraver_records(const std::string& path,
                       const std::function<RecordSink&(const ParaverPreamble&)>& sink_for) {
    LineReader in(path);
    std::string_view line;
    try {
        ParaverPreamble preamble;
        preamble.header = read_header_line(in);
        bool more = in.next(line);
        for (; more && (line.empty() || line[0] == '#' || line[0] == 'c' || line[0] == 'C');
             more = in.next(line)) {
            if (line.starts_with("c:") || line.starts_with("C:"))
                add_communicator(preamble.header.communicators, parse_communicator_line(line));
            else if (!line.empty())
                preamble.comments += fmt::format("{}\n", line);
        }
        RecordSink& sink = sink_for(preamble);
        const Time unit = preamble.header.ns_per_unit;
        EventRecord event;
        for (; more; more = in.next(line)) {
            if (line.empty() || line[0] == '#') continue;
            switch (line[0]) {
            case '1':
                sink.state(parse_state_record(line, unit));
                break;
            case '2':
                parse_event_record(line, unit, event);
                sink.event(event.owner, event.time, event.pairs);
                break;
            case '3':
                sink.comm(parse_comm_record(line, unit));
                break;
            default: // global communications (4:): popsim has no use for them
                break;
            }
        }
    } catch (const ParseError& e) {
        throw TraceError(path, in.number(), e.what());
    } catch (const UnsortedRecords& e) {
        throw TraceError(path, in.number(), e.what());
    } catch (const std::out_of_range&) {
        throw TraceError(path, in.number(),
                         "the record names a thread the header does not declare");
    }
    return in.number();
}

} // namespace popsim::replay

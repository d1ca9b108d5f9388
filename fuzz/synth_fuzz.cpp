// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: arbitrary text as a `popsim synth` description; a small program is also written
// and read back, which must succeed. Only TraceError may come out of the parser and writer.
#include "replay/input/paraver_reader.hpp"
#include "replay/synth.hpp"
#include "replay/trace_error.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {
/// A scratch folder for this process's traces (one file, rewritten by every input).
const std::string& scratch_trace() {
    static const std::string path = [] {
        char folder[] = "/tmp/popsim-synth-fuzz-XXXXXX";
        if (!mkdtemp(folder)) std::abort();
        return std::string(folder) + "/t.prv";
    }();
    return path;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace popsim::replay;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    bool declared_end = false; // a `declared_end` after the last operation makes a truncated trace
    try {
        const auto program = synth::parse_description(text, "fuzz.synth");
        std::size_t ops = 0;
        bool raw_mpi_events = false; // `event 50000001 4` (MPI types 50xxxxxx) writes what the
                                     // reader may rightly refuse
        for (const auto& t : program.threads) {
            ops += t.size();
            for (const auto& op : t)
                raw_mpi_events = raw_mpi_events || (op.kind == synth::Op::Kind::event &&
                                                    op.event_type / 1000000 == 50);
        }
        if (program.threads.size() > 64 || ops > 10'000 || program.other_application_tasks > 64)
            return 0; // keep each input cheap
        synth::write_paraver(program, scratch_trace());
        declared_end = program.declared_end.has_value();
        if (raw_mpi_events) return 0;
    } catch (const TraceError&) {
        return 0; // an inconsistent description, refused with its cause
    }
    ReadOptions options;
    options.read_labels = false;
    options.threads = 1;
    options.allow_truncated = declared_end;
    try {
        read_paraver(scratch_trace(), options); // what synth writes, popsim reads
    } catch (const TraceError&) {
        __builtin_trap();
    }
    return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reads a Paraver trace (.prv or .prv.gz, with the .pcf and .row beside it) into the Trace model.
//
// Example:
//   popsim::replay::Trace trace = popsim::replay::read_paraver("run.prv.gz");
//   fmt::print("{} threads, {} records\n", trace.thread_count(), trace.counts.records());
//
// The body is streamed in blocks that are parsed in parallel (oneTBB) and applied in file order,
// so memory holds the compact model, never the text. Any malformed or contradictory input throws
// TraceError("file:line: cause").
#include "replay/focus/time_window.hpp"
#include "replay/input/timeline_observer.hpp"
#include "replay/trace.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace popsim::replay {

class ReadHelpers;

struct ReadOptions {
    /// Worker threads for parsing; 0 = all cores, 1 = sequential.
    unsigned threads = 0;
    /// Text parsed at once; unset: k_block_bytes, or k_member_range_bytes for a .prv.gz read in
    /// ranges with its index (each range decompressed from the gzip member that holds its first
    /// byte, or from the restart point before it). The blocks under way (2 x threads + 1, each with
    /// its parsed records and its callbacks for an observer) are most of a streamed analysis'
    /// memory.
    std::optional<std::size_t> block_bytes;
    /// 256 KiB: as fast as 2 MiB on the bench traces, at 16 MB instead of 41 (bench/README.md,
    /// session 31): the blocks under way also leave more of the caches to the analysis.
    static constexpr std::size_t k_block_bytes = 256u << 10;
    /// 2 MiB: a range restarts in the middle of a 64 KiB member; at 256 KiB that repeated
    /// decompression cost 13 % of the time. With restart points every MiB (gztool -s 1) it costs
    /// 4 % more CPU than bgzip's members, every 10 MiB (gztool's default) 22 % (bench/README.md).
    static constexpr std::size_t k_member_range_bytes = 2u << 20;
    /// The text parsed at once: block_bytes if set, else the default for the text's kind.
    std::size_t text_bytes(bool bgzip_ranges) const {
        return block_bytes.value_or(bgzip_ranges ? k_member_range_bytes : k_block_bytes);
    }
    /// Event types whose values are kept per thread (see ThreadTimeline::tracked_events).
    std::vector<std::uint32_t> tracked_event_types = default_tracked_event_types();
    /// The application to analyse in a trace with several (1-based; 0 = the one calling MPI).
    std::uint32_t application = 0;
    /// Re-pair communication records that break MPI's matching rules (communication_repair.hpp);
    /// false refuses such a trace.
    bool repair_communications = true;
    /// Analyse a trace whose records stop before the end its header declares (or whose last line
    /// is cut) up to its last record, with a warning; false refuses it.
    bool allow_truncated = false;
    /// A trace whose header alone would need more memory than this is refused up front.
    std::uint64_t max_memory_bytes = physical_memory_bytes();
    /// Read the .pcf/.row beside the trace (a missing one only adds a warning).
    bool read_labels = true;
    /// Read only this window of the trace (times from its start), as `popsim cut` would cut it:
    /// replay/focus/record_window.hpp. Its end must not pass the header's.
    std::optional<TimeWindow> window;
    /// Called with the bytes of the file read so far, compressed ones for a gzip file (for
    /// progress bars against the file's size); may be empty.
    std::function<void(std::uint64_t)> on_progress;
    /// Whether to record where prv2dim cuts each thread's CPU bursts (ThreadTimeline::burst_cuts,
    /// or TimelineObserver::burst_cut when streamed), asked once the header is read; empty: no.
    /// A replay on a Dimemas network needs them (docs/network-model.md).
    std::function<bool(const ParaverHeader&)> cut_bursts_if;
    /// Other processes that read and parse ranges of a plain .prv's body (replay/input/
    /// divided_read.hpp); not owned. The trace read is the same; null or none: read here alone.
    ReadHelpers* helpers = nullptr;

    static std::vector<std::uint32_t> default_tracked_event_types();
    /// The machine's memory (sysconf), the default of max_memory_bytes.
    static std::uint64_t physical_memory_bytes();
};

Trace read_paraver(const std::string& path, const ReadOptions& options = {});

/// Reads the trace as read_paraver does, but hands its states, calls, tracked events and
/// communications over to the observer `observe` gives (called once, when the header is read and
/// the threads named) instead of keeping them: the Trace has its header, counts, counters,
/// labels and warnings, and no records. For analyses in memory bounded by the trace's width
/// (replay/streaming/). `options.window` must be empty.
Trace stream_paraver(const std::string& path, const ReadOptions& options,
                     const std::function<TimelineObserver&(const Trace&)>& observe);

/// The names of a trace's states and events: its .pcf's, or an OTF2 archive's definitions'
/// (replay/input/otf2_archive.hpp); empty without a .pcf. Throws TraceError for a malformed .pcf
/// or an archive the OTF2 library cannot open.
TraceLabels read_trace_labels(const std::string& path);
/// `run.prv.gz` and `run.prv` -> `run`; used to find the .pcf and .row.
std::string trace_base_name(const std::string& path);

} // namespace popsim::replay

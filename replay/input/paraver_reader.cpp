// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/paraver_reader.hpp"

#include "replay/extrae_events.hpp"
#include "replay/focus/record_window.hpp"
#include "replay/focus/trace_cut.hpp"
#include "replay/input/application_choice.hpp"
#include "replay/input/byte_source.hpp"
#include "replay/input/communication_repair.hpp"
#include "replay/input/divided_read.hpp"
#include "replay/input/input_file.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_labels.hpp"
#include "replay/input/parse_error.hpp"
#include "replay/input/parsed_block.hpp"
#include "replay/input/trace_builder.hpp"
#include "replay/spare_buffers.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <new>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/task_arena.h>
#include <optional>
#include <stdexcept>
#include <unistd.h>
#include <utility>

namespace popsim::replay {

namespace {

class BlockReader {
  public:
    static constexpr std::size_t k_min_block_bytes =
        64; // each read must make progress past a partial line

    BlockReader(const std::string& path, std::size_t block_bytes)
        : source_(path), block_bytes_(std::max<std::size_t>(block_bytes, k_min_block_bytes)) {}

    /// The next block of whole lines; false at the end of the file.
    bool next(TextBlock& out) {
        if (done_) return false;
        out.read_error.reset();
        fill(out); // the carried start of a line, then what follows it
        out.ends_mid_line =
            done_ && !out.read_error && !out.text.empty() && out.text.back() != '\n';
        // Where the unfinished line begins: the carried start of a line holds no line end, so
        // only what follows it is searched.
        const std::size_t nl = std::string_view(out.text).substr(carry_.size()).rfind('\n');
        const std::size_t line_start = nl == std::string::npos ? 0 : carry_.size() + nl + 1;
        if (out.text.size() - line_start > k_max_line_bytes) { // e.g. NUL bytes: not records
            out.text.resize(line_start);
            carry_.clear();
            out.read_error = k_line_too_long;
            out.ends_mid_line = false;
            done_ = true;
        }
        // At the end the last line is parsed as it is (a cut one is reported as such); after a
        // read error it is left out, so that the error is reported at the line it broke, not a
        // record error on the part of that line that came before it.
        const std::size_t cut = done_ && !out.read_error ? out.text.size() : line_start;
        carry_.assign(out.text, cut);
        out.text.resize(cut);
        out.file_bytes = source_.file_bytes_read();
        bytes_ += out.text.size();
        return !out.text.empty() || out.read_error || !done_;
    }

    std::uint64_t bytes() const { return bytes_; }
    bool compressed() const { return source_.compressed(); }
    ByteSource::Ending ending() const { return source_.ending(); }

  private:
    void fill(TextBlock& out) {
        std::size_t have = carry_.size();
        // A long unfinished line doubles what is read: copying it again each time stays linear.
        const std::size_t target = std::max({block_bytes_, have + block_bytes_ / 2, 2 * have});
        // The block's buffer, used again, only grows: its old bytes are overwritten. Shrunk to the
        // carried line first, it was zero-filled up to the target for every block (a memset of
        // the whole file, 2.4 % of analyze's instructions).
        if (out.text.size() < target) out.text.resize(target);
        std::copy(carry_.begin(), carry_.end(), out.text.begin());
        try {
            while (have < target) {
                const std::size_t n =
                    source_.read(std::span<char>(out.text.data() + have, target - have));
                if (n == 0) {
                    done_ = true;
                    break;
                }
                have += n;
            }
        } catch (const TraceError& e) {
            out.read_error = e.cause();
            done_ = true;
        }
        out.text.resize(have);
    }

    ByteSource source_;
    std::size_t block_bytes_;
    std::string carry_;
    std::uint64_t bytes_ = 0;
    bool done_ = false;
};

/// From how many threads a record's thread state is loaded ahead: their state (about 500 bytes
/// each, in the builder and the summary beside it) then outgrows a core's L2 cache. Measured on the
/// 1.1 GB bench traces: 4-8 % less CPU time at 16,384 ranks, none gained at 1,024, and 5 % more at
/// 64 ranks where nothing is missed.
constexpr std::size_t k_load_ahead_from_threads = 1024;

/// Feeds a block's records to `target` (the builder's input, or a RecordWindow in front of it).
template <class Target>
void feed_records(const ParsedBlock& block, std::uint64_t first_line, Target& target,
                  BuilderInput& input, const Trace& trace) {
    // With thousands of threads each record's thread state is a cache miss: it is loaded a few
    // records ahead (TraceBuilder::prefetch).
    constexpr std::size_t k_ahead = 8;
    const bool load_ahead = trace.threads.size() >= k_load_ahead_from_threads;
    const std::size_t records = block.order.size();
    for (std::size_t i = 0; i < records; ++i) {
        const auto& ref = block.order[i];
        if (load_ahead && i + k_ahead < records)
            input.builder().prefetch(block.owner(block.order[i + k_ahead]));
        input.line = first_line + ref.line_offset;
        try {
            switch (ref.kind) {
            case ParsedBlock::Kind::state:
                target.state(block.states[ref.index]);
                break;
            case ParsedBlock::Kind::event: {
                const auto& e = block.events[ref.index];
                target.event(e.owner, e.time,
                             std::span(block.pairs).subspan(e.first_pair, e.pair_count));
                break;
            }
            case ParsedBlock::Kind::comm:
                target.comm(block.comms[ref.index]);
                break;
            }
        } catch (const UnsortedRecords& e) {
            throw TraceError(trace.path, input.line, e.what());
        } catch (const std::out_of_range&) { // RecordWindow's lookup of the record's thread
            throw TraceError(trace.path, input.line,
                             "the record names an application, task or thread the header does "
                             "not declare");
        }
    }
}

void apply_block(const ParsedBlock& block, BuilderInput& input, RecordWindow* window,
                 Trace& trace) {
    const std::uint64_t first_line = trace.counts.lines + 1; // every line before is counted
    if (window)
        feed_records(block, first_line, *window, input, trace);
    else
        feed_records(block, first_line, input, input, trace);
    if (block.error)
        throw TraceError(trace.path, first_line + block.error->first, block.error->second);
    if (block.ends_unfinished) input.builder().ends_mid_line(first_line + block.lines);
    trace.counts.lines += block.lines;
    trace.counts.skipped += block.skipped;
    trace.counts.bytes += block.bytes;
}

std::string_view take_line(std::string_view& text) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

bool is_header_section_line(std::string_view line) {
    return line.empty() || line[0] == '#' || line[0] == 'c' || line[0] == 'C' || line[0] == 'i' ||
           line[0] == 'I';
}

/// Each declared thread costs memory before any of its records is read (its timeline, the
/// builder's and the metrics' per-thread state): a short header can declare millions.
void check_memory_for_threads(const Trace& trace, std::uint64_t max_memory_bytes) {
    constexpr std::uint64_t k_bytes_per_thread = 400; // measured: 4194304 threads, 1.49 GB RSS
    const std::uint64_t threads = trace.header.total_threads();
    if (threads * k_bytes_per_thread <= max_memory_bytes) return;
    throw TraceError(trace.path, 1,
                     fmt::format("the header declares {} threads, which need about {:.1f} GB "
                                 "before any record is read; --max-memory is {:.1f} GB (default: "
                                 "the machine's memory)",
                                 threads, static_cast<double>(threads * k_bytes_per_thread) / 1e9,
                                 static_cast<double>(max_memory_bytes) / 1e9));
}

/// Parses the header and the communicator lines after it, reading on past `first` while they fill
/// whole blocks (traces with many communicators); leaves the body's first block in `first`.
void read_header(BlockReader& reader, TextBlock& first, Trace& trace,
                 std::uint64_t max_memory_bytes) {
    // A header declaring millions of tasks is one line of tens of MB: read on until it ends (or
    // passes k_max_line_bytes).
    for (bool more = true; more && first.text.empty() && !first.read_error;)
        more = reader.next(first);
    if (first.read_error) throw TraceError(trace.path, 1, *first.read_error);
    std::string_view text = first.text;
    std::uint64_t line_no = 1; // of the line being read
    if (text.empty()) throw TraceError(trace.path, 1, "empty file: no Paraver header");
    std::string_view line = take_line(text);
    try {
        line = paraver_first_line(line);
    } catch (const ParseError& e) {
        throw TraceError(trace.path, 1, e.what());
    }
    if (line.find('\r') != std::string_view::npos) {
        throw TraceError(trace.path, 1,
                         "lines end with a lone carriage return (\\r, old Mac line ends), not "
                         "\\n or \\r\\n: convert them, e.g. with tr '\\r' '\\n'");
    }
    if (line == "new format") {
        line = take_line(text);
        ++line_no;
    }
    try {
        trace.header = parse_paraver_header(line);
    } catch (const ParseError& e) {
        throw TraceError(trace.path, line_no, e.what());
    }
    check_memory_for_threads(trace, max_memory_bytes);
    ++line_no;
    for (;;) {
        while (!text.empty()) {
            std::string_view probe = text;
            const std::string_view next = take_line(probe);
            if (!is_header_section_line(next)) break;
            // Paraver's cutter (and popsim cut) mark a cut trace: collectives that other tasks
            // reached after its end complete without them.
            if (next.starts_with('#') && next.find(":CUTTER:") != std::string_view::npos)
                trace.cut_at_end = true;
            // popsim's cuts last exactly their window (Paraver's end at their last record).
            if (const auto mark = parse_cutter_mark(next);
                mark && mark->offset == mark->begin &&
                (mark->end - mark->begin) * trace.header.ns_per_unit == trace.header.end_time)
                trace.window_end = true;
            try {
                if (auto before = parse_collectives_before_cut(next)) {
                    before->line = line_no;
                    trace.collectives_before_cut.push_back(*before);
                }
            } catch (const ParseError& e) {
                throw TraceError(trace.path, line_no, e.what());
            }
            if (next.starts_with("c:") || next.starts_with("C:")) {
                try {
                    add_communicator(trace.header.communicators, parse_communicator_line(next));
                } catch (const ParseError& e) {
                    throw TraceError(trace.path, line_no, e.what());
                }
            }
            ++line_no;
            text = probe;
        }
        if (!text.empty()) break;
        trace.counts.bytes += first.text.size(); // the whole block was header: read on
        if (first.read_error) throw TraceError(trace.path, line_no, *first.read_error);
        if (!reader.next(first)) {
            first.text.clear(); // the file ends with its header
            text = first.text;
            break;
        }
        text = first.text;
    }
    // popsim cut writes its counts under the cutter's line: without it they would be read as a
    // cut's by one reader and not by another.
    if (!trace.collectives_before_cut.empty() && !trace.cut_at_end)
        throw TraceError(trace.path, trace.collectives_before_cut.front().line,
                         "a collectives-before-cut line in a trace that is not a cut (no CUTTER "
                         "line, as popsim cut and Paraver's cutter write)");
    if (trace.header.communicators.size() < trace.header.declared_communicators) {
        throw TraceError(
            trace.path, line_no,
            fmt::format("the header declares {} communicators, but {} communicator lines follow it",
                        trace.header.declared_communicators, trace.header.communicators.size()));
    }
    trace.counts.bytes += first.text.size() - text.size();
    first.text.erase(0, first.text.size() - text.size());
    trace.counts.lines += line_no - 1;
}

/// A block on its way through the reader's pipeline: text to parse, or parsed by a helper
/// (divided_read.hpp).
struct BlockUnderWay {
    std::shared_ptr<TextBlock> text;
    std::shared_ptr<ParsedBlock> parsed;
    std::optional<BodyRange> range; // of a divided body, to read before parsing
};

void read_body(BlockReader& reader, TextBlock first, Trace& trace, BuilderInput& input,
               RecordWindow* window, DividedBody* divided, const ReadOptions& options) {
    const Time unit = trace.header.ns_per_unit;
    bool have_first = true;
    // An error in an ordered stage stops the reading and is thrown once the blocks under way are
    // through: thrown across the pipeline, it would leave them allocated (oneTBB does not destroy
    // the items of a cancelled pipeline).
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    auto fail = [&] { // from any ordered stage, which may run at once: the first is kept
        if (bool expected = false; failed.compare_exchange_strong(expected, true))
            failure = std::current_exception();
    };
    // The blocks, text and parsed, are used again once through: a streamed analysis then holds
    // no more than the blocks under way, and allocates nothing per block.
    SpareBuffers<std::shared_ptr<TextBlock>> spare_text;
    SpareBuffers<std::shared_ptr<ParsedBlock>> spare_parsed;
    auto spare_parsed_block = [&] {
        std::shared_ptr<ParsedBlock> parsed;
        if (!spare_parsed.try_pop(parsed)) parsed = std::make_shared<ParsedBlock>();
        return parsed;
    };
    // The next block, read here or parsed by a helper; false past the last.
    auto next_block = [&](BlockUnderWay& block) {
        if (!divided) return reader.next(*block.text);
        auto parsed = spare_parsed_block();
        if (!divided->next(block.range, *parsed)) return false;
        if (block.range) {
            spare_parsed.push(std::move(parsed));
        } else { // parsed by a helper
            spare_text.push(std::exchange(block.text, nullptr));
            block.parsed = std::move(parsed);
        }
        return true;
    };
    // Each pipeline thread reads a divided body's ranges with its own reader of the file.
    oneapi::tbb::enumerable_thread_specific<std::optional<BodyText>> range_readers;
    auto produce = [&](oneapi::tbb::flow_control& fc) -> BlockUnderWay {
        BlockUnderWay block;
        if (!spare_text.try_pop(block.text)) block.text = std::make_shared<TextBlock>();
        if (failed) {
            fc.stop();
            return {};
        }
        if (have_first) {
            *block.text = std::move(first);
            have_first = false;
            return block;
        }
        try {
            if (next_block(block)) return block;
        } catch (...) { // a helper's answer that is not a parsed block
            fail();
        }
        fc.stop();
        return {};
    };
    auto parse = [&](const BlockUnderWay& block) {
        if (block.parsed) return block.parsed;
        if (block.range) {
            auto& own = range_readers.local();
            if (!own) own.emplace(divided->text().another());
            read_body_range(*own, *block.range, *block.text);
        }
        auto parsed = spare_parsed_block();
        parse_block(*block.text, unit, *parsed);
        spare_text.push(block.text);
        return parsed;
    };
    auto apply = [&](const std::shared_ptr<ParsedBlock>& block) -> std::function<void()> {
        if (failed) return {};
        try {
            apply_block(*block, input, window, trace);
            if (options.on_progress) options.on_progress(block->file_bytes);
            spare_parsed.push(block);
            return input.builder().work_after_block();
        } catch (...) {
            fail();
            return {};
        }
    };
    // The observer's work (the streaming replay): in order, beside the parsing of later blocks,
    // on the pipeline's threads rather than on a thread of its own that would contend with them.
    auto work_after = [&](const std::function<void()>& work) {
        if (failed || !work) return;
        try {
            work();
        } catch (...) {
            fail();
        }
    };
    if (const auto work = input.builder().work_after_block()) work(); // the pipeline's announced
    const unsigned threads =
        options.threads == 0 ? oneapi::tbb::info::default_concurrency() : options.threads;
    oneapi::tbb::task_arena arena(static_cast<int>(threads));
    arena.execute([&] {
        oneapi::tbb::parallel_pipeline(
            2 * threads + 1,
            oneapi::tbb::make_filter<void, BlockUnderWay>(oneapi::tbb::filter_mode::serial_in_order,
                                                          produce) &
                oneapi::tbb::make_filter<BlockUnderWay, std::shared_ptr<ParsedBlock>>(
                    oneapi::tbb::filter_mode::parallel, parse) &
                oneapi::tbb::make_filter<std::shared_ptr<ParsedBlock>, std::function<void()>>(
                    oneapi::tbb::filter_mode::serial_in_order, apply) &
                oneapi::tbb::make_filter<std::function<void()>, void>(
                    oneapi::tbb::filter_mode::serial_in_order, work_after));
    });
    if (failure) std::rethrow_exception(failure);
}

} // namespace

std::vector<std::uint32_t> ReadOptions::default_tracked_event_types() {
    return {extrae::k_tracing_on_off, extrae::k_omp_parallel,          extrae::k_omp_worksharing,
            extrae::k_omp_barrier,    extrae::k_omp_outlined_function, extrae::k_omp_task_function};
}

std::uint64_t ReadOptions::physical_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0
               ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
               : std::numeric_limits<std::uint64_t>::max();
}

TraceLabels read_trace_labels(const std::string& path) {
    return is_otf2_anchor(path) ? otf2_labels(path) : read_pcf_labels(trace_base_name(path));
}

std::string trace_base_name(const std::string& path) {
    std::string base = path;
    if (base.ends_with(".gz")) base.resize(base.size() - 3);
    if (base.ends_with(".prv")) base.resize(base.size() - 4);
    return base;
}

namespace {
using Observe = std::function<TimelineObserver&(const Trace&)>;

/// What gzip(1) would say about how the data ended.
void note_gzip_ending(ByteSource::Ending ending, WarningLog& warnings) {
    if (ending == ByteSource::Ending::trailing_garbage)
        warnings.add("gzip-trailing-garbage",
                     "bytes after the gzip data are not another gzip member: ignored, as gzip -d "
                     "ignores them ('trailing garbage ignored')");
    if (ending == ByteSource::Ending::truncated)
        warnings.add("gzip-truncated",
                     "the gzip stream stops inside its data (the file was cut short): the data "
                     "before the cut is read, as a truncated trace");
}

Trace read_trace(const std::string& path, const ReadOptions& options, const Observe& observe) {
    Trace trace;
    trace.path = path;
    trace.stamp = file_stamp(path);
    // Paraver text, or an OTF2 archive read as the Paraver records of the same run.
    std::optional<BlockReader> reader;
    std::optional<Otf2Archive> archive;
    TextBlock first;
    if (is_otf2_anchor(path)) {
        archive.emplace(path, options.helpers);
        trace.header = archive->header();
        check_memory_for_threads(trace, options.max_memory_bytes);
    } else {
        reader.emplace(path, options.text_bytes(false));
        reader->next(first);
        read_header(*reader, first, trace, options.max_memory_bytes);
    }
    std::optional<ParaverHeader> whole; // with a window: the header as the records name threads
    if (options.window) {
        if (options.window->to > trace.header.end_time)
            throw TraceError(path, 1, "the window ends after the end the header declares");
        whole = trace.header;
        trace.header.end_time = options.window->length();
        trace.window_end = trace.cut_at_end = true;
    }
    TraceBuilder builder(trace, options.tracked_event_types, options.allow_truncated);
    if (observe) builder.hand_over_to(observe(trace));
    if (options.cut_bursts_if && options.cut_bursts_if(trace.header))
        builder.cut_bursts_as_prv2dim();
    BuilderInput input(builder);
    std::optional<RecordWindow> window;
    if (whole) window.emplace(*whole, *options.window, input);
    if (archive) {
        archive->feed(window ? static_cast<RecordSink&>(*window) : input, trace.warnings);
    } else {
        // The rest of the body in ranges, when the file can be read at any offset (a plain one,
        // or a gzipped one with an index): divided among the helpers if there are any, or a
        // bgzip file's members decompressed on every core (a file read from restart points is
        // read as one stream: a range far from a point would decompress the text before it too).
        std::optional<DividedBody> divided;
        const bool helped = options.helpers && options.helpers->count() > 0;
        const bool points = reader->compressed() && BodyText::restarts_from_points(path);
        if ((helped || reader->compressed()) && BodyText::readable(path)) {
            try {
                if (helped || !points)
                    divided.emplace(path, options.helpers, reader->bytes(),
                                    trace.header.ns_per_unit,
                                    options.text_bytes(reader->compressed()));
                else // read as one stream, its index checked as helpers would check it
                    (void)BodyText(path);
            } catch (const TraceError& e) { // an index that does not fit the file
                trace.warnings.add("gzip-index",
                                   fmt::format("{}: the trace is read as one stream", e.what()));
            }
        }
        read_body(*reader, std::move(first), trace, input, window ? &*window : nullptr,
                  divided ? &*divided : nullptr, options);
        note_gzip_ending(divided ? divided->ending() : reader->ending(), trace.warnings);
    }
    if (window) {
        window->finish();
        for (const auto& before : window->collectives_before())
            trace.collectives_before_cut.push_back(before);
    }
    builder.finish(trace.counts.lines);
    if (options.read_labels) { // an archive's names are in its definitions
        trace.labels = archive ? archive->labels()
                               : read_paraver_labels(trace_base_name(path), trace.thread_count(),
                                                     trace.warnings);
    }
    keep_one_application(trace, options.application);
    drop_duplicate_records(trace);
    trace.repairs = repair_communications(trace);
    if (!options.repair_communications && trace.repairs.any()) {
        throw TraceError(path, 0,
                         fmt::format("communication records break MPI's matching rules: {} are "
                                     "received before they are sent, {} receives were "
                                     "cancelled (refused by --strict; without it popsim "
                                     "re-pairs them)",
                                     trace.repairs.backward_records,
                                     trace.repairs.cancelled_receives));
    }
    return trace;
}

Trace read_or_say_out_of_memory(const std::string& path, const ReadOptions& options,
                                const Observe& observe) {
    try {
        return read_trace(path, options, observe);
    } catch (const std::bad_alloc&) { // say which trace did not fit, not just "std::bad_alloc"
        throw std::runtime_error(
            fmt::format("{}: out of memory while reading the trace (the memory of the machine or "
                        "the process limit, ulimit -v, is too small for it)",
                        path));
    }
}
} // namespace

Trace read_paraver(const std::string& path, const ReadOptions& options) {
    return read_or_say_out_of_memory(path, options, {});
}

Trace stream_paraver(const std::string& path, const ReadOptions& options,
                     const std::function<TimelineObserver&(const Trace&)>& observe) {
    if (options.window) throw std::invalid_argument("stream_paraver reads whole traces");
    return read_or_say_out_of_memory(path, options, observe);
}

} // namespace popsim::replay

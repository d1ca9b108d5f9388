// SPDX-License-Identifier: BSD-3-Clause
#include "replay/focus/trace_cut.hpp"

#include "replay/focus/record_window.hpp"
#include "replay/input/input_file.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/input/paraver_header.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/input/paraver_record_stream.hpp"
#include "replay/input/parse_error.hpp"
#include "replay/output/output_file.hpp"
#include "replay/output/paraver_writer.hpp"
#include "replay/trace_error.hpp"

#include <array>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace popsim::replay {

std::optional<CutterMark> parse_cutter_mark(std::string_view line) {
    if (!line.starts_with('#') || line.find(":CUTTER:") == std::string_view::npos) return {};
    std::array<Time, 3> times{}; // the last three fields
    for (std::size_t i = times.size(); i-- > 0;) {
        const std::size_t colon = line.rfind(':');
        if (colon == std::string_view::npos) return {};
        const std::string_view field = line.substr(colon + 1);
        const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), times[i]);
        if (ec != std::errc{} || end != field.data() + field.size() || field.empty()) return {};
        line = line.substr(0, colon);
    }
    return CutterMark{times[0], times[1], times[2]};
}

std::optional<CollectivesBeforeCut> parse_collectives_before_cut(std::string_view line) {
    if (!line.starts_with(k_collectives_before_cut_mark)) return std::nullopt;
    std::string_view rest = line.substr(k_collectives_before_cut_mark.size());
    std::array<std::string_view, 4> fields;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::size_t colon = rest.find(':');
        fields[i] = rest.substr(0, colon);
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        if (colon == std::string_view::npos && i + 1 < fields.size())
            throw ParseError("a collectives-before-cut line needs APP:TASK:COMM:CALLS");
    }
    auto number = [](std::string_view text) {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || text.empty())
            throw ParseError(
                fmt::format("'{}' is not a number in a collectives-before-cut line", text));
        return v;
    };
    const auto application = number(fields[0]), task = number(fields[1]);
    if (application == 0 || task == 0 || application > 0xffffffffu || task > 0xffffffffu)
        throw ParseError("a collectives-before-cut line names application or task 0");
    return CollectivesBeforeCut{.application = static_cast<std::uint32_t>(application),
                                .task = static_cast<std::uint32_t>(task),
                                .communicator =
                                    fields[2] == "-" ? k_default_communicator : number(fields[2]),
                                .calls = number(fields[3])};
}

std::string companion_path(const std::string& prv_path, const std::string& extension) {
    return trace_base_name(prv_path) + extension;
}

namespace {

class WriterSink final : public RecordSink {
  public:
    explicit WriterSink(ParaverWriter& writer) : writer_(writer) {}
    void state(const StateRecord& r) override {
        writer_.state(r.owner, r.begin, r.end, r.state);
        ++records;
    }
    void event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) override {
        writer_.event(owner, time, pairs);
        ++records;
    }
    void comm(const CommRecord& r) override {
        writer_.comm(r);
        ++records;
    }
    std::uint64_t records = 0;

  private:
    ParaverWriter& writer_;
};

/// Paraver's cutter mark: the cut's date, the original trace, the offset of the times, the
/// window (in the original's ns).
std::string cutter_mark(const std::string& path, TimeWindow window) {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    return fmt::format("#{:%Y%m%d%H%M%S}:CUTTER:ORIGINAL:\"{}\":{}:{}:{}\n", fmt::gmtime(now), path,
                       window.from, window.from, window.to);
}

} // namespace

std::string cut_marks(const std::string& path, TimeWindow window,
                      const std::vector<CollectivesBeforeCut>& before) {
    std::string marks = cutter_mark(path, window);
    for (const auto& b : before) {
        marks +=
            fmt::format("{}{}:{}:{}:{}\n", k_collectives_before_cut_mark, b.application, b.task,
                        b.communicator == k_default_communicator ? std::string("-")
                                                                 : std::to_string(b.communicator),
                        b.calls);
    }
    return marks;
}

namespace {

/// Copies the trace's .pcf or .row; without one, writes popsim's own (an earlier cut's companion
/// under the output's name would contradict the new trace).
void copy_companion(const std::string& from_prv, const std::string& to_prv,
                    const std::string& extension, const ParaverHeader& header) {
    const std::string from = companion_path(from_prv, extension);
    const std::string to = companion_path(to_prv, extension);
    if (!readable_input_file(from)) {
        if (extension == ".pcf")
            write_standard_pcf(to, pcf_openmp_for(header));
        else
            write_row(to, header);
        return;
    }
    std::ifstream in(from, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    write_whole_file(to, text.str());
}

} // namespace

CutCounts cut_paraver(const std::string& path, TimeWindow window, const std::string& out_prv,
                      const std::vector<CollectivesBeforeCut>& before) {
    std::optional<ParaverWriter> writer;
    std::optional<WriterSink> sink;
    std::optional<RecordWindow> cut;
    ParaverHeader header;
    const auto lines =
        stream_paraver_records(path, [&](const ParaverPreamble& preamble) -> RecordSink& {
            header = preamble.header;
            // The header section's comments kept as they are (earlier cuts' marks), then the cut's.
            header.end_time = window.length();
            writer.emplace(out_prv, header, preamble.comments + cut_marks(path, window, before));
            sink.emplace(*writer);
            return cut.emplace(header, window, *sink);
        });
    try {
        cut->finish();
    } catch (const UnsortedRecords& e) {
        throw TraceError(path, lines, e.what());
    }
    writer->close();
    copy_companion(path, out_prv, ".pcf", header);
    copy_companion(path, out_prv, ".row", header);
    return {.lines_read = lines, .records_written = sink->records};
}

} // namespace popsim::replay

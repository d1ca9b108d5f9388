// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/paraver_header.hpp"

#include "replay/input/field_scanner.hpp"
#include "replay/input/parse_error.hpp"

#include <charconv>
#include <fmt/format.h>

namespace popsim::replay {

namespace {

constexpr std::uint64_t k_max_threads = 1u << 22;

// A cursor over the header text with the few token readers its grammar needs.
class HeaderCursor {
  public:
    /// `column_offset`: where `text` starts in the line, so errors give columns of the whole line.
    HeaderCursor(std::string_view text, std::size_t column_offset)
        : text_(text), offset_(column_offset) {}

    bool done() const { return pos_ >= text_.size(); }
    char peek() const { return done() ? '\0' : text_[pos_]; }

    void expect(char c, const char* where) {
        if (peek() != c) {
            throw ParseError(fmt::format("malformed Paraver header: expected '{}' {} at column {}",
                                         c, where, column()));
        }
        ++pos_;
    }

    bool accept(char c) {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }

    std::uint64_t number(const char* what) {
        std::uint64_t value = 0;
        const char* begin = text_.data() + pos_;
        const auto [end, ec] = std::from_chars(begin, text_.data() + text_.size(), value);
        if (ec != std::errc{} || end == begin) {
            throw ParseError(
                fmt::format("malformed Paraver header: expected {} at column {}", what, column()));
        }
        pos_ += static_cast<std::size_t>(end - begin);
        return value;
    }

    std::uint32_t count(const char* what) {
        const std::uint64_t v = number(what);
        if (v > 10'000'000)
            throw ParseError(
                fmt::format("malformed Paraver header: {} {} is implausibly large", what, v));
        return static_cast<std::uint32_t>(v);
    }

    std::string_view until(char c, const char* what) {
        const std::size_t end = text_.find(c, pos_);
        if (end == std::string_view::npos) {
            throw ParseError(
                fmt::format("malformed Paraver header: missing '{}' after {}", c, what));
        }
        std::string_view out = text_.substr(pos_, end - pos_);
        pos_ = end;
        return out;
    }

    std::string_view rest() const { return text_.substr(std::min(pos_, text_.size())); }

  private:
    std::size_t column() const { return offset_ + pos_ + 1; }

    std::string_view text_;
    std::size_t offset_;
    std::size_t pos_ = 0;
};

Time unit_factor(std::string_view suffix) {
    if (suffix == "_ns") return 1;
    if (suffix == "_us" || suffix.empty()) return k_ns_per_us;
    if (suffix == "_ms") return k_ns_per_ms;
    throw ParseError(fmt::format(
        "malformed Paraver header: unknown time unit '{}' (expected _ns, _us or _ms)", suffix));
}

void parse_end_time(HeaderCursor& in, ParaverHeader& header) {
    const std::uint64_t end = in.number("the trace end time");
    const std::string_view suffix = in.until(':', "the trace end time");
    header.unit_suffix = std::string(suffix);
    header.ns_per_unit = unit_factor(suffix);
    const auto end_ns = units_to_ns(end, header.ns_per_unit);
    if (!end_ns) {
        throw ParseError(
            "malformed Paraver header: the trace end time overflows 64-bit nanoseconds");
    }
    header.end_time = *end_ns;
    in.expect(':', "after the trace end time");
}

void parse_resources(HeaderCursor& in, ParaverHeader& header) {
    const std::uint32_t nodes = in.count("the number of nodes");
    if (in.accept('(')) {
        for (std::uint32_t n = 0; n < nodes; ++n) {
            if (n > 0) in.expect(',', "between CPU counts");
            header.cpus_per_node.push_back(in.count("a node's CPU count"));
        }
        in.expect(')', "after the CPU counts");
    } else {
        header.cpus_per_node.assign(nodes, 1);
    }
    in.expect(':', "after the resources");
}

ApplicationLayout parse_application(HeaderCursor& in, const ParaverHeader& header) {
    ApplicationLayout app;
    const std::uint32_t tasks = in.count("the number of tasks");
    if (tasks == 0) throw ParseError("malformed Paraver header: an application has 0 tasks");
    in.expect('(', "before the task list");
    for (std::uint32_t t = 0; t < tasks; ++t) {
        if (t > 0) in.expect(',', "between tasks");
        TaskLayout task;
        task.threads = in.count("a task's thread count");
        if (task.threads == 0)
            throw ParseError(fmt::format("malformed Paraver header: task {} has 0 threads", t + 1));
        in.expect(':', "between a task's threads and node");
        task.node = in.count("a task's node");
        if (task.node > header.cpus_per_node.size()) {
            throw ParseError(fmt::format("malformed Paraver header: task {} runs on node {}, but "
                                         "the header declares {} nodes",
                                         t + 1, task.node, header.cpus_per_node.size()));
        }
        app.tasks.push_back(task);
    }
    in.expect(')', "after the task list");
    return app;
}

} // namespace

std::uint32_t ParaverHeader::total_cpus() const {
    std::uint32_t n = 0;
    for (auto c : cpus_per_node) n += c;
    return n;
}

std::uint64_t ParaverHeader::total_threads() const {
    std::uint64_t n = 0;
    for (const auto& app : applications)
        for (const auto& task : app.tasks) n += task.threads;
    return n;
}

ParaverHeader parse_paraver_header(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    constexpr std::string_view k_magic = "#Paraver (";
    if (!line.starts_with(k_magic)) {
        throw ParseError("not a Paraver trace: the first line does not start with '#Paraver ('");
    }
    HeaderCursor in(line.substr(k_magic.size()), k_magic.size());
    ParaverHeader header;
    header.date = std::string(in.until(')', "the date")); // the date contains ':'
    in.expect(')', "after the date");
    in.expect(':', "after the date");
    parse_end_time(in, header);
    parse_resources(in, header);
    const std::uint32_t apps = in.count("the number of applications");
    if (apps == 0) throw ParseError("malformed Paraver header: 0 applications");
    in.expect(':', "after the number of applications");
    for (std::uint32_t a = 0; a < apps; ++a) {
        if (a > 0 && !in.accept(',')) in.expect(':', "between applications");
        header.applications.push_back(parse_application(in, header));
    }
    if (in.accept(',')) header.declared_communicators = in.count("the number of communicators");
    if (header.total_threads() > k_max_threads) {
        throw ParseError(
            fmt::format("the header declares {} threads; popsim reads traces of up to {} threads",
                        header.total_threads(), k_max_threads));
    }
    if (!in.done()) {
        throw ParseError(
            fmt::format("malformed Paraver header: unexpected text '{}' at its end", in.rest()));
    }
    return header;
}

Communicator parse_communicator_line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    detail::FieldScanner in(line.substr(2), "communicator line");
    Communicator comm;
    comm.application = in.next_u32("application");
    comm.id = in.next_uint("communicator id");
    const std::uint32_t n = in.next_u32("number of tasks");
    for (std::uint32_t i = 0; i < n; ++i) comm.tasks.push_back(in.next_u32("task"));
    if (!in.at_end())
        throw ParseError(fmt::format("communicator line lists more than its {} tasks", n));
    return comm;
}

ThreadNumbering::ThreadNumbering(const ParaverHeader& header) {
    std::uint32_t next = 0;
    for (const auto& app : header.applications) {
        auto& first = first_.emplace_back();
        for (const auto& task : app.tasks) {
            first.push_back(next);
            next += task.threads;
        }
        first.push_back(next);
    }
}

std::optional<std::uint32_t> ThreadNumbering::find(std::uint32_t application, std::uint32_t task,
                                                   std::uint32_t thread) const {
    if (application == 0 || application > first_.size()) return std::nullopt;
    const auto& first = first_[application - 1];
    if (task == 0 || task >= first.size() || thread == 0 || thread > first[task] - first[task - 1])
        return std::nullopt;
    return number(application, task, thread);
}

} // namespace popsim::replay

namespace popsim::replay {

void add_communicator(std::vector<Communicator>& communicators, Communicator c) {
    for (const auto& known : communicators) {
        if (known.application != c.application || known.id != c.id) continue;
        if (known.tasks == c.tasks) break;
        throw ParseError(fmt::format("communicator {} of application {} is defined twice, with "
                                     "other tasks (its c: lines differ)",
                                     c.id, c.application));
    }
    communicators.push_back(std::move(c));
}

} // namespace popsim::replay

namespace popsim::replay {

std::string_view paraver_first_line(std::string_view line) {
    const std::pair<std::string_view, std::string_view> formats[] = {
        {"\x7f"
         "ELF",
         "an executable (ELF), not a trace"},
        {"BZh",
         "bzip2-compressed data: decompress it first (popsim reads plain and gzip-compressed "
         "traces)"},
        {"\xfd"
         "7zXZ",
         "xz-compressed data: decompress it first (popsim reads plain and "
         "gzip-compressed traces)"},
        {"\x28\xb5\x2f\xfd", "zstd-compressed data: decompress it first (popsim reads plain and "
                             "gzip-compressed traces)"},
        {"PK\x03\x04", "a zip archive: extract the trace first"}};
    for (const auto& [magic, what] : formats)
        if (line.starts_with(magic)) throw ParseError(std::string(what));
    if (line.find('\0') != std::string_view::npos)
        throw ParseError("binary data (a NUL byte), not a Paraver trace");
    if (line.starts_with("\xef\xbb\xbf")) line.remove_prefix(3); // a UTF-8 byte-order mark
    return line;
}

} // namespace popsim::replay

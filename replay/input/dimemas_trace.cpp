// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/dimemas_trace.hpp"

#include "replay/input/field_scanner.hpp"
#include "replay/output/output_file.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <tuple>
#include <utility>

namespace popsim::replay {

namespace {

std::uint16_t call_of_global_op(std::uint32_t glop) {
    for (std::uint16_t id = 1; id < 256; ++id)
        if (dimemas_global_op_id(id) == glop) return id;
    return 0;
}

void write_op(std::string& out, const ReplayProgram& p, std::uint32_t task, OpIndex op) {
    const std::uint32_t ref = p.op_ref[op];
    switch (p.op_kind[op]) {
    case OpKind::burst:
        fmt::format_to(std::back_inserter(out), "1:{}:0:{:.9f}\n", task,
                       static_cast<double>(p.burst_duration(op)) * 1e-9);
        break;
    case OpKind::send: {
        const auto& m = p.messages[ref];
        fmt::format_to(std::back_inserter(out), "2:{}:0:{}:-1:{}:{}:{}:{}\n", task, m.receiver,
                       m.bytes, m.tag, ref + 1, m.immediate_send ? 2 : 1);
        break;
    }
    case OpKind::recv_post: {
        const auto& m = p.messages[ref];
        fmt::format_to(std::back_inserter(out), "3:{}:0:{}:-1:{}:{}:{}:1\n", task, m.sender,
                       m.bytes, m.tag, ref + 1);
        break;
    }
    case OpKind::recv_wait:
        for (auto i = p.wait_first[ref]; i < p.wait_first[ref + 1]; ++i) {
            const MessageIndex mi = p.wait_messages[i];
            const auto& m = p.messages[mi];
            fmt::format_to(std::back_inserter(out), "3:{}:0:{}:-1:{}:{}:{}:2\n", task, m.sender,
                           m.bytes, m.tag, mi + 1);
        }
        break;
    case OpKind::collective: {
        const auto& c = p.collectives[ref];
        fmt::format_to(std::back_inserter(out), "10:{}:0:{}:{}:{}:0:{}:{}:1\n", task,
                       dimemas_global_op_id(c.call_id).value_or(0), c.communicator,
                       c.root_task == task ? 1 : 0, c.send_bytes, c.recv_bytes);
        break;
    }
    }
}

} // namespace

void write_dimemas_trace(const ReplayProgram& p, const std::vector<Communicator>& communicators,
                         const std::string& path) {
    if (p.thread_count() != p.tasks) {
        throw TraceError(path, 0,
                         "a Dimemas trace holds one thread per task: build the program without "
                         "OpenMP threads (ProgramOptions::threads)");
    }
    std::string body;
    for (const auto& c : communicators) {
        fmt::format_to(std::back_inserter(body), "d:1:{}:{}", c.id, c.tasks.size());
        for (auto t : c.tasks) fmt::format_to(std::back_inserter(body), ":{}", t - 1);
        body += '\n';
    }
    std::vector<std::size_t> task_offset;
    std::string streams;
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
        task_offset.push_back(streams.size());
        for (OpIndex op = p.thread_first_op[t]; op < p.thread_end_op(t); ++op)
            write_op(streams, p, t, op);
    }
    std::string threads;
    for (std::uint32_t t = 0; t < p.tasks; ++t) threads += t ? ",1" : "1";
    // The header holds the offset of the offset table: format it to a fixed width, then fill it in.
    const std::string header_template = fmt::format("#DIMEMAS:\"popsim\":1,{:012}:{}({}),{}\n", 0,
                                                    p.tasks, threads, communicators.size());
    const std::size_t table_offset = header_template.size() + body.size() + streams.size();
    const std::size_t first_stream = header_template.size() + body.size();
    std::string out = fmt::format("#DIMEMAS:\"popsim\":1,{:012}:{}({}),{}\n", table_offset, p.tasks,
                                  threads, communicators.size()) +
                      body + streams;
    for (std::uint32_t t = 0; t < p.tasks; ++t)
        fmt::format_to(std::back_inserter(out), "s:{}:{}\n", t, first_stream + task_offset[t]);
    write_whole_file(path, out);
}

namespace {

class DimReader {
  public:
    DimReader(std::string path, const ProgramOptions& options)
        : path_(std::move(path)), options_(options) {}

    ReplayProgram read() {
        std::ifstream in(path_);
        if (!in) throw TraceError(path_, 0, "cannot open");
        std::string line;
        std::uint64_t& n = line_;
        while (std::getline(in, line)) {
            ++n;
            if (in.eof()) // the last line has no newline: the file may end anywhere in a record
                throw TraceError(path_, n,
                                 "the trace is truncated: its last line has no newline "
                                 "(cut mid-line)");
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.empty()) continue;
            try {
                n == 1 ? read_header(line) : read_record(line);
            } catch (const ParseError& e) {
                throw TraceError(path_, n, e.what());
            }
        }
        if (n == 0) throw TraceError(path_, 1, "empty file: no #DIMEMAS header");
        check_offset_table();
        return finish();
    }

  private:
    /// The header places the offset table (the "s:" lines, after every record): a file shorter
    /// than that was cut.
    void check_offset_table() const {
        std::error_code error;
        const auto size = std::filesystem::file_size(path_, error);
        if (!error && table_offset_ > size)
            throw TraceError(path_, line_,
                             fmt::format("the trace is truncated: its header places the offset "
                                         "table at byte {}, but the file has {} bytes",
                                         table_offset_, size));
    }

    void read_header(const std::string& line) {
        if (line.rfind("#DIMEMAS:", 0) != 0)
            throw ParseError("not a Dimemas trace: the first line does not start with '#DIMEMAS:'");
        const auto tasks_at = line.find(':', line.rfind('"') + 2);
        const auto paren = line.find('(', tasks_at);
        if (tasks_at == std::string::npos || paren == std::string::npos)
            throw ParseError("malformed #DIMEMAS header");
        // ":MACHINES,OFFSET:" before the task count; an offset that is no number is not checked.
        if (const auto comma = line.find(',', line.rfind('"')); comma < tasks_at)
            std::from_chars(line.data() + comma + 1, line.data() + tasks_at, table_offset_);
        const std::string_view count =
            std::string_view(line).substr(tasks_at + 1, paren - tasks_at - 1);
        std::uint64_t tasks = 0;
        const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), tasks);
        if (ec != std::errc{} || end != count.data() + count.size())
            throw ParseError(
                fmt::format("the #DIMEMAS header's task count '{}' is not a number", count));
        tasks_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(tasks, 1u << 23));
        if (tasks_ == 0 || tasks_ > 1u << 22)
            throw ParseError("the #DIMEMAS header declares an implausible number of tasks");
        ops_.resize(tasks_);
    }

    void read_record(const std::string& line) {
        if (line[0] == 'd') return read_communicator(line);
        if (line[0] == 's' || line[0] == '#') return; // offset table, comments
        detail::FieldScanner in(line, "Dimemas record");
        const auto kind = in.next_uint("record kind");
        switch (kind) {
        case 0:
            (void)task(in);
            return; // NOOP
        case 1:
            return read_burst(line);
        case 2:
            return read_send(in);
        case 3:
            return read_receive(in);
        case 10:
            return read_global_op(in);
        case 20:
            return; // user events and blocks do not change the replay
        default:
            throw ParseError(
                fmt::format("record kind {} is not supported (0, 1, 2, 3, 10, 20)", kind));
        }
    }

    std::uint32_t task(detail::FieldScanner& in) {
        const auto t = in.next_u32("task");
        if (t >= tasks_)
            throw ParseError(
                fmt::format("task {} does not exist (the header declares {})", t, tasks_));
        if (in.next_uint("thread") != 0)
            throw ParseError("popsim replays thread 0 of each task only");
        return t;
    }

    void read_communicator(const std::string& line) {
        if (!line.starts_with("d:")) throw ParseError("a communicator record starts with 'd:'");
        detail::FieldScanner in(std::string_view(line).substr(2), "communicator record");
        (void)in.next_uint("machine");
        Communicator c;
        c.id = in.next_uint("communicator");
        const auto n = in.next_u32("size");
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto t = in.next_u32("task");
            if (t >= tasks_)
                throw ParseError(fmt::format("communicator {} names task {}, which does not exist "
                                             "(the header declares {})",
                                             c.id, t, tasks_));
            c.tasks.push_back(t + 1);
        }
        communicators_.push_back(std::move(c));
    }

    void read_burst(const std::string& line) {
        if (line.find(':', 2) == std::string::npos)
            throw ParseError("burst record has too few fields");
        // `1:task:thread:seconds`: the seconds are a decimal, so split by hand.
        const auto last = line.rfind(':');
        detail::FieldScanner head(std::string_view(line).substr(0, last), "burst record");
        (void)head.next_uint("kind");
        const std::uint32_t t = task(head);
        // from_chars, not stod: a decimal and nothing else (no hex float, no trailing text).
        const std::string_view text = std::string_view(line).substr(last + 1);
        double seconds = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds,
                                               std::chars_format::general);
        if (ec != std::errc{} || end != text.data() + text.size())
            throw ParseError(
                fmt::format("burst duration '{}' is not a decimal number of seconds", text));
        if (!std::isfinite(seconds))
            throw ParseError(fmt::format("burst duration '{}' is not a finite number of seconds",
                                         line.substr(last + 1)));
        if (seconds < 0) throw ParseError("negative burst duration");
        if (seconds * 1e9 > static_cast<double>(k_max_time))
            throw ParseError(fmt::format("burst duration {} s is longer than 2^62 ns", seconds));
        ops_[t].push_back({OpKind::burst, static_cast<Time>(std::llround(seconds * 1e9)), 0});
    }

    /// `2:`/`3:` records: task, thread, partner task, partner thread, size, tag, id, mode.
    struct P2p {
        std::uint32_t task, partner;
        std::uint64_t bytes, tag, id, mode;
    };
    P2p read_p2p(detail::FieldScanner& in, const char* partner_name) {
        P2p r;
        r.task = task(in);
        r.partner = in.next_u32(partner_name);
        if (r.partner >= tasks_)
            throw ParseError(fmt::format("{} {} does not exist", partner_name, r.partner));
        in.skip_field(); // the partner thread, -1 for "any"
        r.bytes = in.next_uint("size");
        r.tag = in.next_uint("tag");
        r.id = in.next_uint("communicator/message id");
        r.mode = in.next_uint("synchronism");
        return r;
    }

    void read_send(detail::FieldScanner& in) {
        const auto r = read_p2p(in, "destination task");
        auto& m = message(r.task, r.partner, r.tag, r.id, r.bytes);
        if (m.send_seen)
            throw ParseError("a second send of the same message (same tasks, tag and id)");
        m.send_seen = true;
        m.immediate = r.mode >= 2;
        ops_[r.task].push_back({OpKind::send, 0, m.index});
    }

    void read_receive(detail::FieldScanner& in) {
        const auto r = read_p2p(in, "source task");
        auto& m = message(r.partner, r.task, r.tag, r.id, r.bytes);
        if (r.mode > 2)
            throw ParseError(
                fmt::format("receive type {} is not 0 (Recv), 1 (Irecv) or 2 (Wait)", r.mode));
        // A message is received once: a second receive would make the replays disagree.
        const auto first_post = r.mode != 2 ? std::exchange(m.post_line, line_) : 0;
        if (first_post != 0)
            throw ParseError(fmt::format("a second receive of the same message (same tasks, tag "
                                         "and id; the first on line {})",
                                         first_post));
        const auto first_wait = r.mode != 1 ? std::exchange(m.wait_line, line_) : 0;
        if (first_wait != 0)
            throw ParseError(fmt::format("a second wait for the same message (same tasks, tag "
                                         "and id; the first on line {})",
                                         first_wait));
        if (r.mode == 2 && m.post_line == 0)
            throw ParseError("a wait for a message whose receive was not posted before it (its "
                             "Irecv, type 1)");
        if (r.mode == 0 || r.mode == 1) ops_[r.task].push_back({OpKind::recv_post, 0, m.index});
        if (r.mode == 0 || r.mode == 2) ops_[r.task].push_back({OpKind::recv_wait, 0, m.index});
    }

    void read_global_op(detail::FieldScanner& in) {
        const std::uint32_t t = task(in);
        const auto glop = in.next_u32("global operation");
        GlobalOpRecord g{t,
                         call_of_global_op(glop),
                         in.next_uint("communicator"),
                         in.next_uint("is root") != 0,
                         0,
                         0,
                         line_};
        in.skip_field(); // root thread
        g.send = in.next_uint("bytes sent");
        g.recv = in.next_uint("bytes received");
        if (g.call == 0) throw ParseError(fmt::format("global operation {} is unknown", glop));
        ops_[t].push_back({OpKind::collective, 0, static_cast<std::uint32_t>(globals_.size())});
        globals_.push_back(g);
    }

    struct PendingMessage {
        std::uint32_t index;
        std::uint32_t from, to;
        std::uint64_t bytes, tag;
        bool send_seen = false, immediate = false;
        std::uint64_t post_line = 0, wait_line = 0; // of its receive's post and wait (0: none)
    };
    PendingMessage& message(std::uint32_t from, std::uint32_t to, std::uint64_t tag,
                            std::uint64_t id, std::uint64_t bytes) {
        const auto key = std::tuple{from, to, tag, id};
        auto it = messages_.find(key);
        if (it == messages_.end()) {
            it = messages_
                     .emplace(key, PendingMessage{static_cast<std::uint32_t>(messages_.size()),
                                                  from, to, bytes, tag})
                     .first;
        }
        return it->second;
    }

    ReplayProgram finish();

    struct OpRecord {
        OpKind kind;
        Time duration;
        std::uint32_t ref; // message index or global-op record
    };
    struct GlobalOpRecord {
        std::uint32_t task;
        std::uint16_t call;
        std::uint64_t communicator;
        bool root;
        std::uint64_t send, recv;
        std::uint64_t line;
    };

    std::string path_;
    std::uint64_t line_ = 0; // being read
    const ProgramOptions& options_;
    std::uint32_t tasks_ = 0;
    std::uint64_t table_offset_ = 0; // where the header says the offset table begins
    std::vector<std::vector<OpRecord>> ops_;
    std::vector<GlobalOpRecord> globals_;
    std::vector<Communicator> communicators_;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::uint64_t>, PendingMessage>
        messages_;
};

ReplayProgram DimReader::finish() {
    ReplayProgram p;
    p.tasks = tasks_;
    p.one_thread_per_task();
    p.resize_messages(messages_.size());
    for (const auto& [key, m] : messages_) {
        auto& out = p.messages[m.index];
        out.sender = m.from;
        out.receiver = m.to;
        out.bytes = m.bytes;
        out.tag = static_cast<std::uint32_t>(m.tag);
        out.immediate_send = m.immediate;
        out.rendezvous = m.bytes >= options_.eager_limit_bytes;
        out.record = m.index;
    }
    std::map<std::uint64_t, std::vector<std::uint32_t>> members; // communicator -> tasks
    for (const auto& c : communicators_)
        for (auto t : c.tasks) members[c.id].push_back(t - 1);
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint32_t> sequence;
    std::map<std::uint64_t, std::vector<CollectiveIndex>> by_comm;
    std::vector<std::vector<OpIndex>> member_ops;
    p.wait_first.push_back(0);
    for (std::uint32_t t = 0; t < tasks_; ++t) {
        p.thread_first_op.push_back(static_cast<OpIndex>(p.op_count()));
        for (const auto& r : ops_[t]) {
            const auto op = static_cast<OpIndex>(p.op_count());
            std::uint32_t ref = r.ref;
            if (r.kind == OpKind::recv_wait) {
                ref = static_cast<std::uint32_t>(p.wait_first.size() - 1);
                p.wait_messages.push_back(r.ref);
                p.wait_first.push_back(static_cast<std::uint32_t>(p.wait_messages.size()));
            }
            if (r.kind == OpKind::collective) {
                const auto& g = globals_[r.ref];
                if (!communicators_.empty() && !members.contains(g.communicator))
                    throw TraceError(path_, g.line,
                                     fmt::format("a global operation on communicator {}, which "
                                                 "no d: line defines",
                                                 g.communicator));
                auto& seq = sequence[{g.communicator, t}];
                auto& list = by_comm[g.communicator];
                if (seq == list.size()) {
                    list.push_back(static_cast<CollectiveIndex>(p.collectives.size()));
                    p.collectives.push_back(
                        Collective{.call_id = g.call, .communicator = g.communicator});
                    member_ops.emplace_back();
                }
                ref = list[seq++];
                auto& c = p.collectives[ref];
                c.send_bytes = std::max(c.send_bytes, g.send);
                c.recv_bytes = std::max(c.recv_bytes, g.recv);
                if (g.root) c.root_task = t;
                member_ops[ref].push_back(op);
            }
            if (r.kind == OpKind::burst)
                p.add_burst(r.duration);
            else
                p.add_op(r.kind, ref, k_none);
        }
    }
    p.thread_first_op.push_back(static_cast<OpIndex>(p.op_count()));
    const MessageOps message_op = message_ops(p);
    for (MessageIndex mi = 0; mi < p.messages.size(); ++mi) {
        const auto& m = p.messages[mi];
        if (message_op.send[mi] == k_none || message_op.wait[mi] == k_none) {
            throw TraceError(
                path_, 0,
                fmt::format("message {} from task {} to task {} ({} bytes, tag {}) lacks its {}",
                            m.record + 1, m.sender, m.receiver, m.bytes, m.tag,
                            message_op.send[mi] == k_none ? "send" : "receive"));
        }
    }
    for (CollectiveIndex c = 0; c < p.collectives.size(); ++c) {
        auto& coll = p.collectives[c];
        const auto it = members.find(coll.communicator);
        const std::size_t expected = it == members.end() ? tasks_ : it->second.size();
        if (member_ops[c].size() != expected) {
            throw TraceError(
                path_, 0,
                fmt::format("global operation #{} on communicator {} has {} of its {} tasks", c + 1,
                            coll.communicator, member_ops[c].size(), expected));
        }
        coll.first_member = static_cast<std::uint32_t>(p.collective_members.size());
        coll.member_count = static_cast<std::uint32_t>(expected);
        p.collective_members.insert(p.collective_members.end(), member_ops[c].begin(),
                                    member_ops[c].end());
    }
    return p;
}

} // namespace

ReplayProgram read_dimemas_trace(const std::string& path, const ProgramOptions& options) {
    return DimReader(path, options).read();
}

} // namespace popsim::replay

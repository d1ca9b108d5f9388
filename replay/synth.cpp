// SPDX-License-Identifier: BSD-3-Clause
#include "replay/synth.hpp"

#include "replay/extrae_events.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/output/paraver_writer.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/trace_error.hpp"
#include "replay/units.hpp"

#include <algorithm>
#include <charconv>
#include <deque>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <queue>
#include <sstream>
#include <tuple>

namespace popsim::replay::synth {

Program::Program(std::uint32_t r, std::uint32_t t)
    : ranks(r), threads_per_rank(t), threads(std::size_t{r} * t) {}

namespace {

// ---------------------------------------------------------------------------------------------
// Description parser

class DescriptionParser {
  public:
    explicit DescriptionParser(std::string name) : name_(std::move(name)) {}

    Program parse(std::string_view text) {
        std::uint64_t line_no = 0;
        while (!text.empty()) {
            const std::size_t nl = text.find('\n');
            std::string_view line = text.substr(0, nl);
            text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
            ++line_no;
            line_ = line_no;
            if (const auto hash = line.find('#'); hash != std::string_view::npos)
                line = line.substr(0, hash);
            const auto words = split(line);
            if (!words.empty()) parse_line(words);
        }
        if (!program_) fail("empty description: the first line must be 'ranks N [threads M]'");
        program_->source = name_;
        return std::move(*program_);
    }

  private:
    static std::vector<std::string_view> split(std::string_view line) {
        std::vector<std::string_view> words;
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            const std::size_t start = i;
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            if (i > start) words.push_back(line.substr(start, i - start));
        }
        return words;
    }

    [[noreturn]] void fail(const std::string& cause) const {
        throw TraceError(name_, line_, cause);
    }

    std::uint64_t number(std::string_view word, const char* what) const {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
        if (ec != std::errc{} || end != word.data() + word.size())
            fail(fmt::format("{} '{}' is not a whole number", what, word));
        return v;
    }

    Time duration(std::string_view word) const {
        const auto d = parse_duration(word);
        if (!d)
            fail(fmt::format("'{}' is not a duration of at most 2^62 ns (e.g. 8s, 250ms, 3us, "
                             "12ns)",
                             word));
        return *d;
    }

    void parse_line(const std::vector<std::string_view>& w) {
        if (w[0] == "ranks") return parse_ranks(w);
        if (!program_) fail("the first line must be 'ranks N [threads M]'");
        if (w[0] == "end") {
            if (w.size() != 2) fail("expected 'end DURATION'");
            program_->end = duration(w[1]);
            return;
        }
        if (w[0] == "declared_end") {
            if (w.size() != 2) fail("expected 'declared_end DURATION'");
            program_->declared_end = duration(w[1]);
            return;
        }
        if (w[0] == "application") {
            if (w.size() != 2) fail("expected 'application TASKS'");
            const auto tasks = number(w[1], "task count");
            if (tasks == 0 || tasks > 1'000'000) fail("an application has 1 to 1e6 tasks");
            program_->other_application_tasks = static_cast<std::uint32_t>(tasks);
            return;
        }
        if (w.size() < 2)
            fail(fmt::format("'{}' is not a directive; expected 'RANK[.THREAD] OPERATION ...'",
                             w[0]));
        auto& ops = thread_ops(w[0]);
        ops.push_back(parse_op(w));
        ops.back().line = line_;
    }

    void parse_ranks(const std::vector<std::string_view>& w) {
        if (program_) fail("'ranks' appears twice");
        if (w.size() != 2 && !(w.size() == 4 && w[2] == "threads"))
            fail("expected 'ranks N [threads M]'");
        const auto ranks = number(w[1], "rank count");
        const auto threads = w.size() == 4 ? number(w[3], "thread count") : 1;
        if (ranks == 0 || threads == 0 || ranks * threads > 1'000'000)
            fail("rank and thread counts must be 1 or more (and at most 1e6 threads)");
        program_.emplace(static_cast<std::uint32_t>(ranks), static_cast<std::uint32_t>(threads));
        requests_.resize(program_->threads.size());
    }

    std::vector<Op>& thread_ops(std::string_view who) {
        const auto dot = who.find('.');
        const auto rank = number(who.substr(0, dot), "rank");
        const auto thread =
            dot == std::string_view::npos ? 0 : number(who.substr(dot + 1), "thread");
        if (rank >= program_->ranks)
            fail(
                fmt::format("rank {} does not exist (ranks are 0..{})", rank, program_->ranks - 1));
        if (thread >= program_->threads_per_rank)
            fail(fmt::format("thread {} does not exist (threads are 0..{})", thread,
                             program_->threads_per_rank - 1));
        current_thread_ = static_cast<std::uint32_t>(rank * program_->threads_per_rank + thread);
        return program_->threads[current_thread_];
    }

    void need(const std::vector<std::string_view>& w, std::size_t n, const char* usage) const {
        if (w.size() != n) fail(fmt::format("expected '{}'", usage));
    }

    Op parse_op(const std::vector<std::string_view>& w) {
        Op op;
        const std::string_view name = w[1];
        if (name == "compute") {
            if (w.size() < 3) fail("expected 'compute DURATION [ins=N] [cyc=N]'");
            op.duration = duration(w[2]);
            parse_options(w, 3, op);
        } else if (name == "state") {
            need(w, 4, "state VALUE DURATION");
            op.kind = Op::Kind::state;
            op.state = static_cast<std::uint32_t>(number(w[2], "state value"));
            if (op.state > 254) fail("state values go up to 254");
            op.duration = duration(w[3]);
        } else if (name == "idle") {
            need(w, 3, "idle DURATION");
            op.kind = Op::Kind::state;
            op.state = extrae::k_state_idle;
            op.duration = duration(w[2]);
        } else if (name == "at") {
            need(w, 3, "at TIME");
            op.kind = Op::Kind::jump;
            op.duration = duration(w[2]);
        } else if (name == "event") {
            need(w, 4, "event TYPE VALUE");
            op.kind = Op::Kind::event;
            op.event_type = static_cast<std::uint32_t>(number(w[2], "event type"));
            op.event_value = number(w[3], "event value");
        } else {
            parse_mpi(w, op);
        }
        return op;
    }

    void parse_mpi(const std::vector<std::string_view>& w, Op& op) {
        const auto call = mpi_call_by_name(w[1]);
        if (!call)
            fail(fmt::format(
                "unknown operation '{}' (compute, state, idle, at, event or an MPI call)", w[1]));
        if (w.size() < 3) fail(fmt::format("expected '{} DURATION [options]'", w[1]));
        op.kind = Op::Kind::mpi;
        op.call = call->id;
        op.duration = duration(w[2]);
        parse_options(w, 3, op);
    }

    void parse_options(const std::vector<std::string_view>& w, std::size_t first, Op& op) {
        for (std::size_t i = first; i < w.size(); ++i) {
            const auto eq = w[i].find('=');
            if (eq == std::string_view::npos)
                fail(fmt::format("option '{}' is not KEY=VALUE", w[i]));
            const std::string_view key = w[i].substr(0, eq);
            const std::string_view value = w[i].substr(eq + 1);
            if (key == "ins")
                op.instructions = number(value, "ins");
            else if (key == "cyc")
                op.cycles = number(value, "cyc");
            else if (key == "to")
                op.to = rank_option(value);
            else if (key == "from")
                op.from = rank_option(value);
            else if (key == "size")
                op.bytes = number(value, "size");
            else if (key == "tag")
                op.tag = static_cast<std::uint32_t>(number(value, "tag"));
            else if (key == "root")
                op.root = rank_option(value);
            else if (key == "comm")
                op.communicator = number(value, "comm");
            else if (key == "req")
                parse_requests(value, op);
            else
                fail(fmt::format(
                    "unknown option '{}' (ins, cyc, to, from, size, tag, root, comm, req)", key));
        }
    }

    std::int32_t rank_option(std::string_view value) const {
        const auto r = number(value, "rank");
        if (r >= program_->ranks) fail(fmt::format("rank {} does not exist", r));
        return static_cast<std::int32_t>(r);
    }

    void parse_requests(std::string_view value, Op& op) {
        auto& names = requests_[current_thread_];
        const auto cls = mpi_call_by_id(op.call)->cls;
        const bool creates = cls == CallClass::immediate_send || cls == CallClass::immediate_recv;
        while (!value.empty()) {
            const auto comma = value.find(',');
            const std::string name(value.substr(0, comma));
            value.remove_prefix(comma == std::string_view::npos ? value.size() : comma + 1);
            if (!creates && !names.contains(name))
                fail(fmt::format("req={} names a request that no earlier Irecv or Isend of this "
                                 "thread creates",
                                 name));
            const auto [it, inserted] =
                names.emplace(name, static_cast<std::uint32_t>(names.size()));
            op.requests.push_back(it->second);
        }
    }

    std::string name_;
    std::uint64_t line_ = 0;
    std::optional<Program> program_;
    std::uint32_t current_thread_ = 0;
    std::vector<std::map<std::string, std::uint32_t>> requests_;
};

// ---------------------------------------------------------------------------------------------
// Writer: timing, message matching, then a time-ordered merge of the threads' records.

struct OpTimes {
    std::vector<std::vector<Time>> begin;
    std::vector<std::vector<Time>> end;
};

struct OpRef {
    std::uint32_t thread;
    std::uint32_t op;
};

std::string describe(const Program& p, const OpRef& r) {
    return fmt::format("rank {} thread {} operation {}", r.thread / p.threads_per_rank,
                       r.thread % p.threads_per_rank, r.op + 1);
}

/// The Paraver record owner of program thread `thread` (CPU = thread + 1, application 1).
RecordOwner owner_of(const Program& p, std::uint32_t thread) {
    return {thread + 1, 1, thread / p.threads_per_rank + 1, thread % p.threads_per_rank + 1};
}

/// An operation that contradicts the others, named by the description's file and line (or by
/// the output trace, for generated programs).
[[noreturn]] void fail_at(const Program& p, const OpRef& r, const std::string& output,
                          const std::string& cause) {
    throw TraceError(p.source.empty() ? output : p.source, p.threads[r.thread][r.op].line, cause);
}

/// The ranks that call collectives on each communicator (1, MPI_COMM_WORLD, is every rank), each
/// with its collective operations on it; every member must call each of them (as MPI requires: a
/// trace where one does not is refused by every reader).
std::map<std::uint64_t, std::map<std::uint32_t, std::vector<OpRef>>>
collectives_by_communicator(const Program& p, const std::string& path) {
    std::map<std::uint64_t, std::map<std::uint32_t, std::vector<OpRef>>> out;
    for (std::uint32_t r = 0; r < p.ranks; ++r) out[1][r];
    for (std::uint32_t th = 0; th < p.threads.size(); ++th) {
        for (std::uint32_t i = 0; i < p.threads[th].size(); ++i) {
            const auto& op = p.threads[th][i];
            if (op.kind != Op::Kind::mpi) continue;
            const auto cls = mpi_call_by_id(op.call)->cls;
            if (cls == CallClass::collective || cls == CallClass::immediate_collective)
                out[op.communicator][th / p.threads_per_rank].push_back({th, i});
        }
    }
    for (const auto& [comm, members] : out) {
        const auto most = std::ranges::max_element(
            members, {}, [](const auto& member) { return member.second.size(); });
        for (const auto& [rank, ops] : members) {
            if (ops.size() != most->second.size())
                fail_at(p, most->second[ops.size()], path,
                        fmt::format("rank {} makes {} collectives on communicator {}, rank {} "
                                    "makes {}: every rank of a communicator calls each of its "
                                    "collectives",
                                    most->first, most->second.size(), comm, rank, ops.size()));
            for (std::size_t k = 0; k < ops.size(); ++k) {
                const auto& mine = p.threads[ops[k].thread][ops[k].op];
                const auto& first = members.begin()->second[k];
                if (mine.call != p.threads[first.thread][first.op].call)
                    fail_at(
                        p, ops[k], path,
                        fmt::format("collective {} on communicator {} is MPI_{} on rank {} "
                                    "and MPI_{} on rank {}",
                                    k + 1, comm, mpi_call_by_id(mine.call)->name, rank,
                                    mpi_call_by_id(p.threads[first.thread][first.op].call)->name,
                                    members.begin()->first));
            }
        }
    }
    return out;
}

OpTimes compute_times(const Program& p, const std::string& path) {
    OpTimes t;
    for (std::size_t th = 0; th < p.threads.size(); ++th) {
        auto& b = t.begin.emplace_back();
        auto& e = t.end.emplace_back();
        Time clock = 0;
        for (const auto& op : p.threads[th]) {
            const OpRef here{static_cast<std::uint32_t>(th), static_cast<std::uint32_t>(b.size())};
            if (op.kind == Op::Kind::jump) {
                if (op.duration < clock)
                    fail_at(p, here, path,
                            fmt::format("{} jumps back in time to {} ns", describe(p, here),
                                        op.duration));
                clock = op.duration;
            }
            b.push_back(clock);
            if (op.kind != Op::Kind::jump && op.kind != Op::Kind::event) {
                if (op.duration > k_max_time - clock)
                    fail_at(p, here, path,
                            fmt::format("{} ends after 2^62 ns, the longest time popsim handles",
                                        describe(p, here)));
                clock += op.duration;
            }
            e.push_back(clock);
        }
    }
    return t;
}

/// The completion time of each immediate receive: the end of the Wait* that names its request.
Time completion_of(const Program& p, const OpTimes& t, const OpRef& irecv,
                   const std::string& path) {
    const auto& ops = p.threads[irecv.thread];
    const auto& request = ops[irecv.op].requests;
    if (request.size() != 1)
        fail_at(p, irecv, path,
                describe(p, irecv) + ": an immediate receive needs exactly one req=NAME");
    for (std::uint32_t i = irecv.op + 1; i < ops.size(); ++i) {
        const auto call = mpi_call_by_id(ops[i].call);
        if (ops[i].kind != Op::Kind::mpi || !call || call->cls != CallClass::wait) continue;
        for (auto r : ops[i].requests)
            if (r == request[0]) return t.end[irecv.thread][i];
    }
    fail_at(p, irecv, path, describe(p, irecv) + ": no later Wait/Test completes its request");
}

/// An immediate receive whose request a later MPI_Cancel names before anything completes it.
bool is_cancelled(const Program& p, const OpRef& irecv) {
    const auto& ops = p.threads[irecv.thread];
    const auto& request = ops[irecv.op].requests;
    if (request.size() != 1) return false;
    for (std::uint32_t i = irecv.op + 1; i < ops.size(); ++i) {
        if (ops[i].kind != Op::Kind::mpi ||
            std::find(ops[i].requests.begin(), ops[i].requests.end(), request[0]) ==
                ops[i].requests.end())
            continue;
        return mpi_call_by_id(ops[i].call)->name == "Cancel";
    }
    return false;
}

// As Extrae's merger writes them: a cancelled receive still takes the next send of its channel,
// first in, first out, so the channel's last receive is left without one (and not written).
std::vector<std::vector<CommRecord>> match_messages(const Program& p, const OpTimes& t,
                                                    const std::string& path) {
    using Key = std::tuple<std::uint32_t, std::uint32_t,
                           std::uint32_t>; // source rank, destination rank, tag
    std::map<Key, std::deque<OpRef>> sends, recvs;
    for (std::uint32_t th = 0; th < p.threads.size(); ++th) {
        const std::uint32_t rank = th / p.threads_per_rank;
        for (std::uint32_t i = 0; i < p.threads[th].size(); ++i) {
            const auto& op = p.threads[th][i];
            if (op.kind != Op::Kind::mpi) continue;
            if (op.to >= 0)
                sends[{rank, static_cast<std::uint32_t>(op.to), op.tag}].push_back({th, i});
            if (op.from >= 0)
                recvs[{static_cast<std::uint32_t>(op.from), rank, op.tag}].push_back({th, i});
        }
    }
    // Per sending thread, (its sending operation, record): sorted below so that each thread's
    // records come in its operation order, the order in which the emitter writes them.
    std::vector<std::vector<std::pair<std::uint32_t, CommRecord>>> by_op(p.threads.size());
    for (auto& [key, queue] : sends) {
        auto& matching = recvs[key];
        const auto cancelled = static_cast<std::size_t>(std::count_if(
            matching.begin(), matching.end(), [&](const OpRef& r) { return is_cancelled(p, r); }));
        if (matching.size() != queue.size() + cancelled) {
            // Named at the first operation of the longer side left without a partner.
            const OpRef unmatched = matching.size() > queue.size() + cancelled
                                        ? matching[queue.size() + cancelled]
                                        : queue[matching.size() - cancelled];
            fail_at(
                p, unmatched, path,
                fmt::format("rank {} sends {} messages with tag {} to rank {}, which receives {}{}",
                            std::get<0>(key), queue.size(), std::get<2>(key), std::get<1>(key),
                            matching.size() - cancelled,
                            cancelled > 0 ? fmt::format(" and cancels {}", cancelled) : ""));
        }
        for (std::size_t m = 0; m < queue.size(); ++m) {
            const OpRef s = queue[m], r = matching[m];
            const auto& sop = p.threads[s.thread][s.op];
            const auto& rop = p.threads[r.thread][r.op];
            const auto rcls = mpi_call_by_id(rop.call)->cls;
            CommRecord c;
            c.sender = owner_of(p, s.thread);
            c.receiver = owner_of(p, r.thread);
            c.logical_send = t.begin[s.thread][s.op];
            c.physical_send = mpi_call_by_id(sop.call)->cls == CallClass::sendrecv
                                  ? c.logical_send
                                  : t.end[s.thread][s.op];
            const bool immediate = rcls == CallClass::immediate_recv;
            c.logical_recv = immediate ? t.end[r.thread][r.op] : t.begin[r.thread][r.op];
            c.physical_recv = immediate ? completion_of(p, t, r, path) : t.end[r.thread][r.op];
            c.size = rop.bytes;
            c.tag = std::get<2>(key);
            by_op[s.thread].emplace_back(s.op, c);
        }
    }
    for (const auto& [key, queue] : recvs) {
        if (!queue.empty() && !sends.contains(key)) {
            fail_at(p, queue.front(), path,
                    fmt::format(
                        "rank {} receives {} messages with tag {} from rank {}, which sends none",
                        std::get<1>(key), queue.size(), std::get<2>(key), std::get<0>(key)));
        }
    }
    std::vector<std::vector<CommRecord>> out(p.threads.size());
    for (std::size_t th = 0; th < by_op.size(); ++th) {
        std::ranges::sort(by_op[th], {}, &std::pair<std::uint32_t, CommRecord>::first);
        for (auto& [op, record] : by_op[th]) out[th].push_back(record);
    }
    return out;
}

/// Emits one thread's records in its own time order, one operation at a time.
class ThreadEmitter {
  public:
    ThreadEmitter(const Program& p, const OpTimes& t, std::vector<CommRecord> sends,
                  std::uint32_t thread)
        : p_(p), t_(t), sends_(std::move(sends)), thread_(thread), who_(owner_of(p, thread)) {}

    /// True once every record is emitted (operations of zero length emit none).
    bool done() {
        fill();
        return pending_.empty();
    }
    Time next_time() {
        fill();
        return pending_.front().time;
    }

    void emit_next(ParaverWriter& w) {
        fill();
        const Pending r = std::move(pending_.front());
        pending_.pop_front();
        switch (r.kind) {
        case 1:
            w.state(who_, r.time, r.end, r.state);
            break;
        case 2:
            w.event(who_, r.time, r.pairs);
            break;
        default:
            w.comm(sends_[r.comm]);
            break;
        }
    }

  private:
    struct Pending {
        int kind;
        Time time;
        Time end = 0;
        std::uint32_t state = 0;
        std::vector<EventPair> pairs;
        std::size_t comm = 0;
    };

    void fill() {
        while (pending_.empty() && next_op_ < p_.threads[thread_].size()) expand(next_op_++);
    }

    void expand(std::size_t i) {
        const Op& op = p_.threads[thread_][i];
        const Time b = t_.begin[thread_][i], e = t_.end[thread_][i];
        switch (op.kind) {
        case Op::Kind::compute:
            if (e > b) pending_.push_back({1, b, e, extrae::k_state_running, {}, 0});
            if (op.instructions || op.cycles) {
                pending_.push_back({2,
                                    e,
                                    0,
                                    0,
                                    {{extrae::k_papi_total_instructions, op.instructions},
                                     {extrae::k_papi_total_cycles, op.cycles}},
                                    0});
            }
            break;
        case Op::Kind::state:
            if (e > b) pending_.push_back({1, b, e, op.state, {}, 0});
            break;
        case Op::Kind::event:
            pending_.push_back({2, b, 0, 0, {{op.event_type, op.event_value}}, 0});
            break;
        case Op::Kind::jump:
            break;
        case Op::Kind::mpi:
            expand_mpi(op, b, e);
            break;
        }
    }

    void expand_mpi(const Op& op, Time b, Time e) {
        const MpiCall call = *mpi_call_by_id(op.call);
        std::vector<EventPair> entry{{call.event_type, call.id}};
        if (call.cls == CallClass::collective || call.cls == CallClass::immediate_collective) {
            const bool is_root =
                call.rooted && op.root == static_cast<std::int32_t>(thread_ / p_.threads_per_rank);
            entry.push_back({extrae::k_collective_send_size, op.bytes});
            entry.push_back({extrae::k_collective_recv_size, op.bytes});
            if (is_root) entry.push_back({extrae::k_collective_root, 1});
            entry.push_back({extrae::k_collective_communicator, op.communicator});
        }
        pending_.push_back({2, b, 0, 0, std::move(entry), 0});
        if (op.to >= 0) pending_.push_back({3, b, 0, 0, {}, next_send_++});
        if (e > b) pending_.push_back({1, b, e, call.state, {}, 0});
        pending_.push_back({2, e, 0, 0, {{call.event_type, 0}}, 0});
    }

    const Program& p_;
    const OpTimes& t_;
    std::vector<CommRecord> sends_;
    std::uint32_t thread_;
    RecordOwner who_;
    std::size_t next_op_ = 0;
    std::size_t next_send_ = 0;
    std::deque<Pending> pending_;
};

/// Threads, or OpenMP events on one thread (a one-thread OpenMP run).
bool uses_openmp(const Program& p) {
    if (p.threads_per_rank > 1) return true;
    for (const auto& ops : p.threads)
        for (const auto& op : ops)
            if (op.kind == Op::Kind::event && extrae::is_openmp_event(op.event_type)) return true;
    return false;
}

/// `communicators`: the ranks of each (collectives_by_communicator); world, 1, first.
ParaverHeader header_for(
    const Program& p, Time end,
    const std::map<std::uint64_t, std::map<std::uint32_t, std::vector<OpRef>>>& communicators) {
    ParaverHeader h;
    h.end_time = end;
    h.cpus_per_node.assign(p.ranks, p.threads_per_rank);
    auto& app = h.applications.emplace_back();
    for (std::uint32_t r = 0; r < p.ranks; ++r) app.tasks.push_back({p.threads_per_rank, r + 1});
    for (const auto& [id, members] : communicators) {
        Communicator c{1, id, {}};
        for (const auto& member : members) c.tasks.push_back(member.first + 1);
        h.communicators.push_back(std::move(c));
    }
    if (p.other_application_tasks > 0) {
        auto& other = h.applications.emplace_back();
        for (std::uint32_t r = 0; r < p.other_application_tasks; ++r) other.tasks.push_back({1, 1});
    }
    return h;
}

} // namespace

Program parse_description(std::string_view text, const std::string& name) {
    return DescriptionParser(name).parse(text);
}

Program read_description(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw TraceError(path, 0, "cannot open");
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parse_description(buffer.str(), path);
}

void write_paraver(const Program& p, const std::string& prv_path) {
    const auto communicators = collectives_by_communicator(p, prv_path);
    const OpTimes times = compute_times(p, prv_path);
    auto sends = match_messages(p, times, prv_path);
    Time end = 0;
    for (const auto& e : times.end)
        if (!e.empty()) end = std::max(end, e.back());
    if (p.end) {
        if (*p.end < end)
            throw TraceError(
                p.source.empty() ? prv_path : p.source, 0,
                fmt::format("'end {}ns' is before the last operation ends ({} ns)", *p.end, end));
        end = *p.end;
    }
    const ParaverHeader header = header_for(p, p.declared_end.value_or(end), communicators);
    ParaverWriter writer(prv_path, header);
    for (std::uint32_t task = 1; task <= p.other_application_tasks; ++task)
        writer.state({1, 2, task, 1}, 0, end, extrae::k_state_running);
    std::vector<ThreadEmitter> emitters;
    for (std::uint32_t th = 0; th < p.threads.size(); ++th)
        emitters.emplace_back(p, times, std::move(sends[th]), th);
    using Head = std::pair<Time, std::uint32_t>; // (time, thread): ties go to the lower thread
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (std::uint32_t th = 0; th < emitters.size(); ++th)
        if (!emitters[th].done()) heads.push({emitters[th].next_time(), th});
    while (!heads.empty()) {
        const auto [time, th] = heads.top();
        heads.pop();
        emitters[th].emit_next(writer);
        if (!emitters[th].done()) heads.push({emitters[th].next_time(), th});
    }
    // A traced run has records up to its end (else it reads as truncated): threads idle from
    // their last operation until an `end` later than it.
    for (std::uint32_t th = 0; th < p.threads.size() && p.end; ++th) {
        const Time last = times.end[th].empty() ? 0 : times.end[th].back();
        if (last < end) writer.state(owner_of(p, th), last, end, extrae::k_state_idle);
    }
    writer.close();
    const std::string base = trace_base_name(prv_path);
    write_standard_pcf(base + ".pcf", uses_openmp(p) ? PcfOpenmp::with : PcfOpenmp::without);
    write_row(base + ".row", header);
}

namespace {

Op event_op(std::uint32_t type, std::uint64_t value) {
    return {.kind = Op::Kind::event, .requests = {}, .event_type = type, .event_value = value};
}

/// A compute burst of `length` on rank `r` as a parallel region of its threads: the workers
/// (idle since the last region, `since` before it) work `length - shortfall[k]`.
void parallel_burst(Program& p, std::uint32_t r, Time length, Time since,
                    const std::vector<Time>& shortfall) {
    constexpr std::uint64_t k_region = 1, k_outlined = 0x401a2b; // an outlined function's address
    auto& master = p.thread(r);
    master.push_back(event_op(extrae::k_omp_parallel, k_region));
    master.push_back(event_op(extrae::k_omp_outlined_function, k_outlined));
    master.push_back({.duration = length, .requests = {}});
    master.push_back(event_op(extrae::k_omp_outlined_function, 0));
    master.push_back(event_op(extrae::k_omp_parallel, 0));
    for (std::uint32_t k = 1; k < p.threads_per_rank; ++k) {
        auto& worker = p.thread(r, k);
        if (since > 0)
            worker.push_back(
                {.kind = Op::Kind::state, .duration = since, .state = 0, .requests = {}});
        worker.push_back(event_op(extrae::k_omp_outlined_function, k_outlined));
        worker.push_back({.duration = length - shortfall[k], .requests = {}});
        worker.push_back({.kind = Op::Kind::state,
                          .duration = shortfall[k],
                          .state = extrae::k_state_synchronization,
                          .requests = {}});
        worker.push_back(event_op(extrae::k_omp_outlined_function, 0));
    }
}

} // namespace

Program halo_exchange(std::uint32_t ranks, std::uint64_t steps, std::uint32_t threads,
                      std::uint64_t seed) {
    Program p(ranks, threads);
    std::uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
    auto next_jitter = [&state]() { // a small LCG: reproducible imbalance without <random>'s weight
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<Time>((state >> 33) % 20'000);
    };
    const auto irecv = *mpi_call_by_name("Irecv"), isend = *mpi_call_by_name("Isend");
    const auto waitall = *mpi_call_by_name("Waitall"), allreduce = *mpi_call_by_name("Allreduce");
    constexpr Time k_post = 800, k_send = 1500, k_min_wait = 5'000;
    // Extrae's own time between two MPI calls (its exit and entry probes): without it an Irecv's
    // exit, where its record's logical receive lies, would be the next call's entry, which
    // prv2dim cannot tell apart, and Dimemas could not replay the trace.
    // Extrae reads the counters there too (at the next entry), as at the end of a compute burst.
    constexpr Time k_gap = 300;
    const std::uint64_t gap_work = threads == 1 ? 2 * k_gap : 0;
    const auto gap = [gap_work](std::vector<Op>& ops) {
        ops.push_back(
            {.duration = k_gap, .requests = {}, .instructions = gap_work, .cycles = gap_work});
    };
    // Lockstep, so the trace is causally consistent like a real one: every rank's Waitall lasts
    // until the slowest rank of the step has sent, and an Allreduce ends when its last member
    // arrives.
    std::vector<Time> burst(ranks), idle_after(ranks); // workers: from a region to the next
    for (std::uint64_t s = 0; s < steps; ++s) {
        Time slowest = 0;
        for (auto& b : burst) slowest = std::max(slowest, b = 100'000 + next_jitter());
        for (std::uint32_t r = 0; r < ranks; ++r) {
            auto& ops = p.thread(r);
            const auto left = static_cast<std::int32_t>((r + ranks - 1) % ranks),
                       right = static_cast<std::int32_t>((r + 1) % ranks);
            const auto work = static_cast<std::uint64_t>(burst[r]) * 2;
            if (threads == 1) {
                ops.push_back(
                    {.duration = burst[r], .requests = {}, .instructions = work, .cycles = work});
            } else {
                std::vector<Time> shortfall(threads);
                for (auto& f : shortfall) f = next_jitter() / 4;
                parallel_burst(p, r, burst[r], s == 0 ? 0 : idle_after[r], shortfall);
            }
            ops.push_back({.kind = Op::Kind::mpi,
                           .duration = k_post,
                           .call = irecv.id,
                           .from = left,
                           .bytes = 4096,
                           .requests = {0}});
            gap(ops);
            ops.push_back({.kind = Op::Kind::mpi,
                           .duration = k_post,
                           .call = irecv.id,
                           .from = right,
                           .bytes = 4096,
                           .tag = 1,
                           .requests = {1}});
            gap(ops);
            ops.push_back({.kind = Op::Kind::mpi,
                           .duration = k_send,
                           .call = isend.id,
                           .to = right,
                           .bytes = 4096,
                           .requests = {2}});
            gap(ops);
            ops.push_back({.kind = Op::Kind::mpi,
                           .duration = k_send,
                           .call = isend.id,
                           .to = left,
                           .bytes = 4096,
                           .tag = 1,
                           .requests = {3}});
            gap(ops);
            ops.push_back({.kind = Op::Kind::mpi,
                           .duration = k_min_wait + slowest - burst[r],
                           .call = waitall.id,
                           .requests = {0, 1, 2, 3}});
            if (s % 10 == 9) {
                gap(ops);
                ops.push_back({.kind = Op::Kind::mpi,
                               .duration = 20'000,
                               .call = allreduce.id,
                               .bytes = 8,
                               .requests = {}});
            }
            idle_after[r] = 2 * k_post + 2 * k_send + 4 * k_gap + k_min_wait + slowest - burst[r] +
                            (s % 10 == 9 ? k_gap + 20'000 : 0);
        }
    }
    return p;
}

} // namespace popsim::replay::synth

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/simulated_trace.hpp"

#include "replay/extrae_events.hpp"
#include "replay/focus/trace_cut.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_labels.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/input/parse_error.hpp"
#include "replay/output/otf2_writer.hpp"
#include "replay/output/paraver_writer.hpp"
#include "replay/output/spill_file.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <queue>
#include <tuple>
#include <variant>

namespace popsim::replay {

namespace {

struct StateOut {
    Time begin, end;
    std::uint32_t state;
};
struct EventOut {
    Time time;
    std::uint32_t type;
    std::uint64_t value;
    /// The pairs of one original record stay one record: its first pair, then further ones.
    enum class Part : std::uint8_t { own, record_first, record_more } part = Part::own;
};
/// A message, sent at `time` by its send operation `op`: its communication record is made when
/// it is written.
struct MessageOut {
    Time time;
    OpIndex op;
};
using RecordOut = std::variant<StateOut, EventOut, MessageOut>;

Time time_of(const RecordOut& r) {
    return std::visit(
        [](const auto& x) -> Time {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, StateOut>)
                return x.begin;
            else
                return x.time;
        },
        r);
}

/// An original event as spilled, on its replay thread, at its traced time (24 bytes).
struct SpilledEvent {
    Time time;
    std::uint64_t value;
    std::uint32_t type;
    EventOut::Part part;
};

/// A replay thread as a Paraver record owner: CPU (one per replay thread), application, task,
/// thread.
RecordOwner owner_of(const ReplayProgram& p, ReplayThread th) {
    const std::uint32_t task = p.thread_task[th];
    return {th + 1, 1, task + 1, th - p.master_thread(task) + 1};
}

/// A replay thread's operations step by step: a burst, a fork or join barrier, or an MPI call
/// with all its operations and its traced times.
class ThreadSteps {
  public:
    ThreadSteps(const ReplayProgram& p, ReplayThread th, const TracedCalls& calls)
        : p_(p), op_(p.thread_first_op[th]), end_(p.thread_end_op(th)),
          calls_(calls.cursor(p.trace_thread[th])) {}

    struct Step {
        OpIndex first, last;
        std::optional<TracedCall> call; // none for a burst or a barrier
    };
    bool next(Step& step) {
        if (op_ == end_) return false;
        step.first = step.last = op_;
        step.call.reset();
        if (p_.op_kind[op_] == OpKind::burst || p_.is_thread_barrier(op_)) {
            ++op_;
            return true;
        }
        const std::uint32_t call = p_.op_call[op_];
        while (step.last + 1 < end_ && p_.op_call[step.last + 1] == call &&
               !p_.is_thread_barrier(step.last + 1))
            ++step.last;
        step.call = traced_call(call);
        op_ = step.last + 1;
        return true;
    }

  private:
    /// Call `number` of the thread: the program refers to a thread's calls in their order.
    const TracedCall& traced_call(std::uint32_t number) {
        while (calls_read_ <= number) {
            if (!calls_->next(call_))
                throw std::logic_error(fmt::format("simulated trace: no call {}", number));
            ++calls_read_;
        }
        if (calls_read_ != number + 1)
            throw std::logic_error("simulated trace: a thread's calls out of order");
        return call_;
    }

    const ReplayProgram& p_;
    OpIndex op_, end_;
    std::unique_ptr<CallCursor> calls_;
    TracedCall call_;
    std::uint32_t calls_read_ = 0;
};

/// Where the original trace's times land in the simulation, on one replay thread: piecewise
/// linear through (entry, simulated entry) and (exit, simulated exit) of every replayed call, so
/// an event at a call's entry or exit lands at its simulated one and one inside a burst keeps its
/// place in it. Asked for times in order (a thread's events are), it walks the thread's calls
/// once, holding two points.
class TimeMap {
  public:
    TimeMap(ThreadSteps steps, const ReplayResult& r, Time last_traced, Time simulated_end)
        : steps_(std::move(steps)), r_(r), final_(last_traced, simulated_end) {}

    /// `t` on the simulated clock; past the last point, no later than its simulated time.
    Time operator()(Time t) {
        if (!started_) {
            started_ = true;
            b_ = next_point();
        }
        while (b_ && b_->first <= t) {
            a_ = *b_;
            b_ = next_point();
        }
        if (t < a_.first) return t;
        const auto& [a, a_sim] = a_;
        if (!b_) return a_sim;
        const auto& [b, b_sim] = *b_;
        const long double share = static_cast<long double>(t - a) / static_cast<long double>(b - a);
        return a_sim +
               static_cast<Time>(std::llround(share * static_cast<long double>(b_sim - a_sim)));
    }

  private:
    using Point = std::pair<Time, Time>; // (traced, simulated)
    /// The next point that keeps the map monotone (others are passed over), or none.
    std::optional<Point> next_point() {
        while (true) {
            Point candidate;
            if (pending_ < 2 && step_.call) {
                candidate = pending_ == 0 ? Point{step_.call->begin, r_.op_begin[step_.first]}
                                          : Point{step_.call->end, r_.op_end[step_.last]};
                ++pending_;
            } else if (steps_.next(step_)) {
                pending_ = 0;
                continue;
            } else if (!final_taken_) {
                // The thread's last record ends its simulated run: what follows its last call
                // (MPI_Finalize's exit, the flush at the end) stays within the simulated runtime.
                final_taken_ = true;
                candidate = final_;
            } else {
                return std::nullopt;
            }
            if (candidate.first < last_.first || candidate.second < last_.second) continue;
            last_ = candidate;
            return candidate;
        }
    }

    ThreadSteps steps_;
    const ReplayResult& r_;
    Point final_;
    ThreadSteps::Step step_{}; // its call's two points are handed out one by one
    int pending_ = 0;          // how many of them are
    bool final_taken_ = false, started_ = false;
    Point last_{0, 0}, a_{0, 0};
    std::optional<Point> b_;
};

/// One replay thread's records in its time order: bursts as Running, OpenMP fork/join waits as
/// Synchronization with the parallel region's events (60000001) where they end, each MPI call (all
/// its operations) as one interval in the call's state between its entry and exit events; merged
/// with the original's events (at their simulated times) and popsim's added events.
class ThreadRecords {
  public:
    ThreadRecords(const ReplayProgram& p, const ReplayResult& r, ReplayThread th,
                  const TracedCalls& calls, bool call_events, std::optional<TimeMap> map,
                  std::optional<Spill<SpilledEvent>::Reader> events,
                  std::span<const AddedEvent> added)
        : p_(p), r_(r), steps_(p, th, calls), call_events_(call_events), map_(std::move(map)),
          events_(std::move(events)), added_(added) {
        refill_own();
        refill_event();
    }

    bool empty() const { return !head_ && !own_head() && !event_ && added_.empty(); }
    /// The next record (not empty()).
    const RecordOut& head() {
        if (!head_) head_ = take();
        return *head_;
    }
    void pop() { head_.reset(); }

  private:
    const RecordOut* own_head() const { return at_ < own_.size() ? &own_[at_] : nullptr; }

    /// The records of the next step of the program.
    void refill_own() {
        own_.clear();
        at_ = 0;
        ThreadSteps::Step step;
        while (own_.empty() && steps_.next(step)) {
            const OpIndex op = step.first;
            if (!step.call) {
                const bool burst = p_.op_kind[op] == OpKind::burst;
                if (r_.op_end[op] > r_.op_begin[op]) {
                    own_.push_back(StateOut{r_.op_begin[op], r_.op_end[op],
                                            burst ? extrae::k_state_running
                                                  : extrae::k_state_synchronization});
                }
                if (!burst) {
                    in_region_ = !in_region_; // a thread's barriers alternate: fork, join
                    own_.push_back(
                        EventOut{r_.op_end[op], extrae::k_omp_parallel, in_region_ ? 1u : 0u});
                }
                continue;
            }
            const Time begin = r_.op_begin[op], end = r_.op_end[step.last];
            const auto info = mpi_call_by_id(step.call->id);
            const std::uint32_t type = info ? info->event_type : extrae::k_mpi_other;
            if (call_events_) own_.push_back(EventOut{begin, type, step.call->id});
            for (OpIndex o = op; o <= step.last; ++o)
                if (p_.op_kind[o] == OpKind::send) own_.push_back(MessageOut{r_.op_begin[o], o});
            if (end > begin) own_.push_back(StateOut{begin, end, info ? info->state : 15u});
            if (call_events_) own_.push_back(EventOut{end, type, 0});
        }
    }
    void refill_event() {
        SpilledEvent e;
        if (events_ && events_->next(e))
            event_ = EventOut{(*map_)(e.time), e.type, e.value, e.part};
        else
            event_.reset();
    }

    /// The program's records merged with the original's events, then with the added events, as
    /// std::merge does (the first list's record first at equal times).
    RecordOut take() {
        const RecordOut* own = own_head();
        const bool event_first = event_ && (!own || event_->time < time_of(*own));
        const Time merged_time = event_first ? event_->time : own ? time_of(*own) : 0;
        if (!added_.empty() && (!(own || event_) || added_.front().time < merged_time)) {
            const auto& a = added_.front();
            added_ = added_.subspan(1);
            return EventOut{a.time, a.type, a.value};
        }
        if (event_first) {
            RecordOut out = *event_;
            refill_event();
            return out;
        }
        RecordOut out = *own;
        if (++at_ == own_.size()) refill_own();
        return out;
    }

    const ReplayProgram& p_;
    const ReplayResult& r_;
    ThreadSteps steps_;
    bool call_events_, in_region_ = false;
    std::vector<RecordOut> own_; // the current step's
    std::size_t at_ = 0;
    std::optional<TimeMap> map_;
    std::optional<Spill<SpilledEvent>::Reader> events_;
    std::optional<EventOut> event_;
    std::span<const AddedEvent> added_;
    std::optional<RecordOut> head_;
};

/// The communication record of the message send operation `op` sends, at its simulated times.
CommRecord comm_record(const ReplayProgram& p, const MessageOps& ops, const ReplayResult& r,
                       OpIndex op) {
    const MessageIndex mi = p.op_ref[op];
    const auto& m = p.messages[mi];
    CommRecord c;
    c.sender = owner_of(p, m.sender);
    c.receiver = owner_of(p, m.receiver);
    c.logical_send = r.op_begin[op];
    c.physical_send = r.op_end[op];
    c.logical_recv = r.op_begin[ops.post[mi]];
    c.physical_recv = r.op_end[ops.wait[mi]];
    c.size = m.bytes;
    c.tag = m.tag;
    return c;
}

/// The original trace's events (all but those the simulation writes itself: the OpenMP parallel
/// region events where it replays fork/join), per replay thread in the file's order: the MPI call
/// events, the counters read at a burst's end, the callers, the user functions. Their records are
/// read again from the trace file (the trace model keeps only what the metrics use) and spilled to
/// disk beside the output, since the file orders them by traced time and the output by simulated
/// time.
void spill_original_events(const Trace& original, const ReplayProgram& p,
                           const std::optional<TimeWindow>& window, Spill<SpilledEvent>& spill,
                           const std::atomic<bool>& stop) {
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, ReplayThread> replay_thread;
    for (ReplayThread th = 0; th < p.thread_count(); ++th) {
        const auto& name = original.threads[p.trace_thread[th]].name;
        replay_thread[{name.application, name.task, name.thread}] = th;
    }
    bool forks = false; // the simulation writes the parallel regions' events itself
    for (OpIndex op = 0; op < p.op_count() && !forks; ++op) forks = p.is_thread_barrier(op);
    // The events are read again from the file: it must be the one the replay was built from (an
    // incomplete or foreign simulated trace would be written otherwise).
    auto require_unchanged = [&original] {
        if (original.stamp && file_stamp(original.path) != original.stamp)
            throw TraceError(original.path, 0,
                             "changed while it was being simulated (its size, modification time or "
                             "inode differ from the first read's): its events cannot be carried "
                             "into the simulated trace; nothing was written");
    };
    require_unchanged();
    LineReader in(original.path);
    std::string_view line;
    EventRecord record;
    while (in.next(line) && !stop.load(std::memory_order_relaxed)) {
        if (!line.starts_with("2:")) continue;
        try {
            parse_event_record(line, original.header.ns_per_unit, record);
        } catch (const ParseError&) {
            continue; // what the reader refused or left out (a truncated last line)
        }
        const auto it =
            replay_thread.find({record.owner.application, record.owner.task, record.owner.thread});
        if (it == replay_thread.end()) continue;
        auto part = EventOut::Part::record_first;
        for (const auto& [type, value] : record.pairs) {
            if (type == extrae::k_omp_parallel && forks) continue;
            Time t = record.time;
            if (window) {
                const bool kept = extrae::is_counter_type(type) ? window->keeps_counter_read(t)
                                                                : window->keeps_event(t);
                if (!kept) continue;
                t = window->rebase(t);
            }
            spill.append(it->second, SpilledEvent{t, value, type, part});
            part = EventOut::Part::record_more;
        }
    }
    require_unchanged();
    spill.finish_writing();
}

/// The original's .pcf (its function, caller and counter names) with popsim's types it lacks; the
/// standard one without an original .pcf.
void write_simulated_pcf(const Trace& original, const std::string& pcf_path) {
    const std::string original_pcf = trace_base_name(original.path) + ".pcf";
    std::ifstream in(original_pcf, std::ios::binary);
    const PcfOpenmp openmp = pcf_openmp_for(original.header);
    if (!in) {
        write_standard_pcf(pcf_path, openmp);
        return;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    std::vector<std::uint32_t> declared;
    for (const auto& [type, name] : read_pcf_labels(trace_base_name(original.path)).event_types)
        declared.push_back(type);
    write_pcf_with_standard_types(pcf_path, text, declared, openmp);
}

ParaverHeader simulated_header(const Trace& original, const ReplayProgram& p, Time end) {
    ParaverHeader h;
    h.date = original.header.date;
    h.end_time = end;
    auto& app = h.applications.emplace_back();
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
        const std::uint32_t threads = p.task_first_thread[t + 1] - p.task_first_thread[t];
        h.cpus_per_node.push_back(threads);
        app.tasks.push_back({threads, t + 1});
    }
    for (const auto& c : original.header.communicators)
        if (c.application == 1) h.communicators.push_back(c);
    return h;
}

} // namespace

struct SimulatedTraceWriter::Impl {
    Impl(const Trace& original_trace, const ReplayProgram& program, std::string output,
         const TracedCalls* original_calls)
        : original(original_trace), p(program), path(std::move(output)), calls(original_calls) {}

    const Trace& original;
    const ReplayProgram& p;
    std::string path;
    const TracedCalls* calls;
    std::optional<TimeWindow> window; // the original's, read in it (--from/--to)
    /// Whether the original's events are carried: read again from its file. A trace that came
    /// through a pipe cannot be, nor an OTF2 archive (not yet), and gets popsim's own MPI call
    /// events instead.
    bool carry = false;
    std::optional<Spill<SpilledEvent>> events;
    std::atomic<bool> stop{false};
    std::future<void> spilled;
};

SimulatedTraceWriter::SimulatedTraceWriter(const Trace& original, const ReplayProgram& program,
                                           std::string path, const SimulatedTraceOptions& options)
    : impl_(std::make_unique<Impl>(original, program, std::move(path), options.calls)) {
    Impl& x = *impl_;
    x.window = options.window;
    std::error_code error;
    x.carry =
        std::filesystem::is_regular_file(original.path, error) && !is_otf2_anchor(original.path);
    if (!x.carry) return;
    x.events.emplace(x.path, program.thread_count());
    x.spilled = std::async(std::launch::async, [&x, window = options.window] {
        spill_original_events(x.original, x.p, window, *x.events, x.stop);
    });
}

SimulatedTraceWriter::~SimulatedTraceWriter() {
    impl_->stop = true; // not written: the spill is not needed
    if (impl_->spilled.valid()) impl_->spilled.wait();
}

void write_simulated_paraver(const Trace& original, const ReplayProgram& program,
                             const ReplayResult& result, const std::string& path,
                             const SimulatedTraceOptions& options,
                             const std::vector<std::vector<AddedEvent>>& added) {
    SimulatedTraceWriter(original, program, path, options).write(result, added);
}

void SimulatedTraceWriter::write(const ReplayResult& r,
                                 const std::vector<std::vector<AddedEvent>>& added) {
    const Trace& original = impl_->original;
    const ReplayProgram& p = impl_->p;
    const std::string& prv_path = impl_->path;
    const bool carry = impl_->carry;
    if (impl_->spilled.valid()) impl_->spilled.get(); // rethrows what reading them threw
    const ParaverHeader header = simulated_header(original, p, r.runtime);
    const MessageOps ops = message_ops(p);
    const CallsInTrace calls_in_trace(original);
    const TracedCalls& calls = impl_->calls ? *impl_->calls : calls_in_trace;
    std::vector<ThreadRecords> threads;
    threads.reserve(p.thread_count());
    for (ReplayThread t = 0; t < p.thread_count(); ++t) {
        std::optional<TimeMap> map;
        std::optional<Spill<SpilledEvent>::Reader> thread_events;
        if (carry) {
            const auto& traced = original.threads[p.trace_thread[t]];
            map.emplace(ThreadSteps(p, t, calls), r,
                        std::max(traced.states_end, traced.last_record), r.threads[t].end);
            thread_events.emplace(impl_->events->reader(t));
        }
        const auto thread_added = t < added.size() ? std::span<const AddedEvent>(added[t])
                                                   : std::span<const AddedEvent>();
        threads.emplace_back(p, r, t, calls, !carry, std::move(map), std::move(thread_events),
                             thread_added);
    }
    // Merge the threads' time-ordered streams so the file is globally ordered by time.
    using Head = std::pair<Time, ReplayThread>; // ties go to the lower thread
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (ReplayThread t = 0; t < p.thread_count(); ++t)
        if (!threads[t].empty()) heads.push({time_of(threads[t].head()), t});
    // An OTF2 archive, or a Paraver trace marked as simulated for popsim analyze (a series of
    // traced runs leaves it out).
    std::vector<EventPair> pairs;
    const bool otf2 = is_otf2_anchor(prv_path);
    std::optional<Otf2Writer> archive;
    std::optional<ParaverWriter> paraver;
    if (otf2) {
        archive.emplace(prv_path, header, original.labels); // with popsim's types' names
    } else {
        paraver.emplace(prv_path, header,
                        fmt::format("{}{}\n", k_simulated_trace_mark, original.path) +
                            (impl_->window ? cut_marks(original.path, *impl_->window,
                                                       original.collectives_before_cut)
                                           : std::string()));
    }
    RecordSink& writer = otf2 ? static_cast<RecordSink&>(*archive) : *paraver;
    while (!heads.empty()) {
        const ReplayThread thread = heads.top().second;
        heads.pop();
        const RecordOwner who = owner_of(p, thread);
        auto& records = threads[thread];
        const RecordOut record = records.head();
        records.pop();
        std::visit(
            [&](const auto& x) {
                using X = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<X, StateOut>)
                    writer.state(StateRecord{who, x.begin, x.end, x.state});
                else if constexpr (std::is_same_v<X, EventOut>) {
                    pairs.assign(1, EventPair{x.type, x.value});
                    while (x.part != EventOut::Part::own && !records.empty()) {
                        const auto* more = std::get_if<EventOut>(&records.head());
                        if (more == nullptr || more->part != EventOut::Part::record_more) break;
                        pairs.push_back(EventPair{more->type, more->value});
                        records.pop();
                    }
                    writer.event(who, x.time, pairs);
                } else {
                    writer.comm(comm_record(p, ops, r, x.op));
                }
            },
            record);
        if (!records.empty()) heads.push({time_of(records.head()), thread});
    }
    if (otf2) {
        archive->close();
        return;
    }
    paraver->close();
    const std::string base = trace_base_name(prv_path);
    write_simulated_pcf(original, base + ".pcf");
    write_row(base + ".row", header);
}

} // namespace popsim::replay

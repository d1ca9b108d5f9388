#include "replay/output/simulated_trace.hpp"

#include "replay/extrae_events.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_labels.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/input/paraver_records.hpp"
#include "replay/input/parse_error.hpp"
#include "replay/output/otf2_writer.hpp"
#include "replay/output/paraver_writer.hpp"
#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
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
    std::uint64_t record = 0; // the pairs of one original record stay one record; 0: its own
};
/// A message, sent at `time` by its send operation `op`: its communication record is made when
/// it is written (the records are held until then: 40 bytes each, not a CommRecord's 80).
struct MessageOut {
    Time time;
    OpIndex op;
};
using RecordOut = std::variant<StateOut, EventOut, MessageOut>;
static_assert(sizeof(RecordOut) <= 40);

Time time_of(const RecordOut& r) {
    return std::visit(
        [](const auto& x) -> Time {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, StateOut>)
                return x.begin;
            else if constexpr (std::is_same_v<X, EventOut>)
                return x.time;
            else
                return x.time;
        },
        r);
}

/// A replay thread as a Paraver record owner: CPU (one per replay thread), application, task,
/// thread.
RecordOwner owner_of(const ReplayProgram& p, ReplayThread th) {
    const std::uint32_t task = p.thread_task[th];
    return {th + 1, 1, task + 1, th - p.master_thread(task) + 1};
}

/// Where the original trace's times land in the simulation, on one replay thread: piecewise
/// linear through (entry, simulated entry) and (exit, simulated exit) of every replayed call, so
/// an event at a call's entry or exit lands at its simulated one and one inside a burst keeps its
/// place in it.
class TimeMap {
  public:
    void add(Time original, Time simulated) {
        if (!points_.empty() &&
            (original < points_.back().first || simulated < points_.back().second))
            return; // keeps the map monotone
        points_.emplace_back(original, simulated);
    }
    /// `t` on the simulated clock; past the last point, no later than its simulated time.
    Time operator()(Time t) const {
        auto next = std::upper_bound(points_.begin(), points_.end(), t,
                                     [](Time x, const auto& p) { return x < p.first; });
        if (next == points_.begin()) return t;
        const auto& [a, a_sim] = *(next - 1);
        if (next == points_.end()) return a_sim;
        const auto& [b, b_sim] = *next;
        const long double share = static_cast<long double>(t - a) / static_cast<long double>(b - a);
        return a_sim +
               static_cast<Time>(std::llround(share * static_cast<long double>(b_sim - a_sim)));
    }

  private:
    std::vector<std::pair<Time, Time>> points_{{0, 0}};
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

/// One replay thread's records in its time order: bursts as Running, OpenMP fork/join waits as
/// Synchronization with the parallel region's events (60000001) where they end, each MPI call (all
/// its operations) as one interval in the call's state between its entry and exit events.
std::vector<RecordOut> thread_records(const Trace& original, const ReplayProgram& p,
                                      const ReplayResult& r, ReplayThread th, bool call_events,
                                      TimeMap& map) {
    std::vector<RecordOut> out;
    const auto& calls = original.threads[p.trace_thread[th]];
    bool in_region = false; // a thread's barriers alternate: fork, join
    for (OpIndex op = p.thread_first_op[th]; op < p.thread_end_op(th);) {
        if (p.op_kind[op] == OpKind::burst || p.is_thread_barrier(op)) {
            const bool burst = p.op_kind[op] == OpKind::burst;
            if (r.op_end[op] > r.op_begin[op]) {
                out.push_back(
                    StateOut{r.op_begin[op], r.op_end[op],
                             burst ? extrae::k_state_running : extrae::k_state_synchronization});
            }
            if (!burst) {
                in_region = !in_region;
                out.push_back(EventOut{r.op_end[op], extrae::k_omp_parallel, in_region ? 1u : 0u});
            }
            ++op;
            continue;
        }
        const std::uint32_t call = p.op_call[op];
        const Time begin = r.op_begin[op];
        OpIndex last = op;
        while (last + 1 < p.thread_end_op(th) && p.op_call[last + 1] == call &&
               !p.is_thread_barrier(last + 1))
            ++last;
        const Time end = r.op_end[last];
        const auto info = mpi_call_by_id(calls.call_id[call]);
        const std::uint32_t type = info ? info->event_type : extrae::k_mpi_other;
        map.add(calls.call_begin[call], begin);
        map.add(calls.call_end[call], end);
        if (call_events) out.push_back(EventOut{begin, type, calls.call_id[call]});
        for (OpIndex o = op; o <= last; ++o)
            if (p.op_kind[o] == OpKind::send) out.push_back(MessageOut{r.op_begin[o], o});
        if (end > begin) out.push_back(StateOut{begin, end, info ? info->state : 15u});
        if (call_events) out.push_back(EventOut{end, type, 0});
        op = last + 1;
    }
    // The thread's last record ends its simulated run: what follows its last call (MPI_Finalize's
    // exit, the flush at the end) stays within the simulated runtime.
    map.add(std::max(calls.states_end, calls.last_record), r.threads[th].end);
    out.shrink_to_fit(); // every thread's records are held until the merge by time
    return out;
}

/// Merges `events`, in time order, into a thread's `records`, records first at equal times.
void merge_records(std::vector<RecordOut>& records, const std::vector<RecordOut>& events) {
    std::vector<RecordOut> merged;
    merged.reserve(records.size() + events.size());
    std::merge(records.begin(), records.end(), events.begin(), events.end(),
               std::back_inserter(merged),
               [](const RecordOut& a, const RecordOut& b) { return time_of(a) < time_of(b); });
    records = std::move(merged);
}

/// The original trace's events (all but those the simulation writes itself: the OpenMP parallel
/// region events where it replays fork/join), each at its simulated time on its replay thread: the
/// MPI call events, the counters read at a burst's end, the callers, the user functions. Their
/// records are read again from the trace file (the trace model keeps only what the metrics use).
void add_original_events(const Trace& original, const ReplayProgram& p,
                         const std::optional<TimeWindow>& window, const std::vector<TimeMap>& maps,
                         std::vector<std::vector<RecordOut>>& threads) {
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, ReplayThread> replay_thread;
    for (ReplayThread th = 0; th < p.thread_count(); ++th) {
        const auto& name = original.threads[p.trace_thread[th]].name;
        replay_thread[{name.application, name.task, name.thread}] = th;
    }
    bool forks = false; // the simulation writes the parallel regions' events itself
    for (OpIndex op = 0; op < p.op_count() && !forks; ++op) forks = p.is_thread_barrier(op);
    std::vector<std::vector<RecordOut>> events(threads.size());
    LineReader in(original.path);
    std::string_view line;
    EventRecord record;
    while (in.next(line)) {
        if (!line.starts_with("2:")) continue;
        try {
            parse_event_record(line, original.header.ns_per_unit, record);
        } catch (const ParseError&) {
            continue; // what the reader refused or left out (a truncated last line)
        }
        const auto it =
            replay_thread.find({record.owner.application, record.owner.task, record.owner.thread});
        if (it == replay_thread.end()) continue;
        for (const auto& [type, value] : record.pairs) {
            if (type == extrae::k_omp_parallel && forks) continue;
            Time t = record.time;
            if (window) {
                const bool kept = extrae::is_counter_type(type) ? window->keeps_counter_read(t)
                                                                : window->keeps_event(t);
                if (!kept) continue;
                t = window->rebase(t);
            }
            events[it->second].push_back(EventOut{maps[it->second](t), type, value, in.number()});
        }
    }
    // Each thread's events follow its own order in the file, which the map keeps.
    for (std::size_t th = 0; th < threads.size(); ++th) {
        merge_records(threads[th], events[th]);
        std::vector<RecordOut>().swap(events[th]); // freed at once: every thread's are held
    }
}

/// The original's .pcf (its function, caller and counter names) with popsim's types it lacks; the
/// standard one without an original .pcf.
void write_simulated_pcf(const Trace& original, const std::string& pcf_path) {
    const std::string original_pcf = trace_base_name(original.path) + ".pcf";
    std::ifstream in(original_pcf, std::ios::binary);
    if (!in) {
        write_standard_pcf(pcf_path);
        return;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    std::vector<std::uint32_t> declared;
    for (const auto& [type, name] : read_pcf_labels(trace_base_name(original.path)).event_types)
        declared.push_back(type);
    write_pcf_with_standard_types(pcf_path, text, declared);
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

void write_simulated_paraver(const Trace& original, const ReplayProgram& p, const ReplayResult& r,
                             const std::string& prv_path, const std::optional<TimeWindow>& window,
                             const std::vector<std::vector<AddedEvent>>& added) {
    const ParaverHeader header = simulated_header(original, p, r.runtime);
    const MessageOps ops = message_ops(p);
    // The original's events are read again from its file; a trace that came through a pipe
    // cannot be, nor an OTF2 archive (not yet), and gets popsim's own MPI call events instead.
    std::error_code error;
    const bool carry =
        std::filesystem::is_regular_file(original.path, error) && !is_otf2_anchor(original.path);
    std::vector<std::vector<RecordOut>> threads;
    std::vector<TimeMap> maps(p.thread_count());
    for (ReplayThread t = 0; t < p.thread_count(); ++t)
        threads.push_back(thread_records(original, p, r, t, !carry, maps[t]));
    if (carry) add_original_events(original, p, window, maps, threads);
    for (ReplayThread t = 0; t < std::min<std::size_t>(added.size(), p.thread_count()); ++t) {
        std::vector<RecordOut> events;
        for (const auto& e : added[t]) events.push_back(EventOut{e.time, e.type, e.value});
        merge_records(threads[t], events);
    }
    // Merge the threads' time-ordered streams so the file is globally ordered by time.
    std::vector<std::size_t> next(p.thread_count(), 0);
    using Head = std::pair<Time, ReplayThread>; // ties go to the lower thread
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (ReplayThread t = 0; t < p.thread_count(); ++t)
        if (!threads[t].empty()) heads.push({time_of(threads[t][0]), t});
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
                        fmt::format("{}{}\n", k_simulated_trace_mark, original.path));
    }
    RecordSink& writer = otf2 ? static_cast<RecordSink&>(*archive) : *paraver;
    while (!heads.empty()) {
        const ReplayThread thread = heads.top().second;
        heads.pop();
        const RecordOwner who = owner_of(p, thread);
        std::visit(
            [&](const auto& x) {
                using X = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<X, StateOut>)
                    writer.state(StateRecord{who, x.begin, x.end, x.state});
                else if constexpr (std::is_same_v<X, EventOut>) {
                    // The pairs of one original record stay one record.
                    pairs.assign(1, EventPair{x.type, x.value});
                    auto& list = threads[thread];
                    while (next[thread] < list.size()) {
                        const auto* more = std::get_if<EventOut>(&list[next[thread]]);
                        if (more == nullptr || x.record == 0 || more->record != x.record) break;
                        pairs.push_back(EventPair{more->type, more->value});
                        ++next[thread];
                    }
                    writer.event(who, x.time, pairs);
                } else {
                    writer.comm(comm_record(p, ops, r, x.op));
                }
            },
            threads[thread][next[thread]++]);
        if (next[thread] < threads[thread].size())
            heads.push({time_of(threads[thread][next[thread]]), thread});
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

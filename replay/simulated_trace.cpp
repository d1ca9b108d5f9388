#include "replay/simulated_trace.hpp"

#include "replay/extrae_events.hpp"
#include "replay/mpi_calls.hpp"
#include "replay/paraver_reader.hpp"
#include "replay/paraver_writer.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <queue>
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
};
using RecordOut = std::variant<StateOut, EventOut, CommRecord>;

Time time_of(const RecordOut& r) {
    return std::visit(
        [](const auto& x) -> Time {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, StateOut>)
                return x.begin;
            else if constexpr (std::is_same_v<X, EventOut>)
                return x.time;
            else
                return x.logical_send;
        },
        r);
}

/// A replay thread as a Paraver record owner: CPU (one per replay thread), application, task,
/// thread.
RecordOwner owner_of(const ReplayProgram& p, ReplayThread th) {
    const std::uint32_t task = p.thread_task[th];
    return {th + 1, 1, task + 1, th - p.master_thread(task) + 1};
}

/// One replay thread's records in its time order: bursts as Running, OpenMP fork/join waits as
/// Synchronization with the parallel region's events (60000001) where they end, each MPI call (all
/// its operations) as one interval in the call's state between its entry and exit events.
std::vector<RecordOut> thread_records(const Trace& original, const ReplayProgram& p,
                                      const MessageOps& ops, const ReplayResult& r,
                                      ReplayThread th) {
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
        out.push_back(EventOut{begin, type, calls.call_id[call]});
        for (OpIndex o = op; o <= last; ++o) {
            if (p.op_kind[o] != OpKind::send) continue;
            const MessageIndex mi = p.op_ref[o];
            const auto& m = p.messages[mi];
            CommRecord c;
            c.sender = owner_of(p, m.sender);
            c.receiver = owner_of(p, m.receiver);
            c.logical_send = r.op_begin[o];
            c.physical_send = r.op_end[o];
            c.logical_recv = r.op_begin[ops.post[mi]];
            c.physical_recv = r.op_end[ops.wait[mi]];
            c.size = m.bytes;
            c.tag = m.tag;
            out.push_back(c);
        }
        if (end > begin) out.push_back(StateOut{begin, end, info ? info->state : 15u});
        out.push_back(EventOut{end, type, 0});
        op = last + 1;
    }
    return out;
}

ParaverHeader simulated_header(const Trace& original, const ReplayProgram& p, Time end) {
    ParaverHeader h;
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
                             const std::string& prv_path) {
    const ParaverHeader header = simulated_header(original, p, r.runtime);
    const MessageOps ops = message_ops(p);
    std::vector<std::vector<RecordOut>> threads;
    for (ReplayThread t = 0; t < p.thread_count(); ++t)
        threads.push_back(thread_records(original, p, ops, r, t));
    // Merge the threads' time-ordered streams so the file is globally ordered by time.
    std::vector<std::size_t> next(p.thread_count(), 0);
    using Head = std::pair<Time, ReplayThread>; // ties go to the lower thread
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (ReplayThread t = 0; t < p.thread_count(); ++t)
        if (!threads[t].empty()) heads.push({time_of(threads[t][0]), t});
    // Marks the trace as simulated for popsim analyze (a series of traced runs leaves it out).
    ParaverWriter writer(prv_path, header,
                         fmt::format("{}{}\n", k_simulated_trace_mark, original.path));
    while (!heads.empty()) {
        const ReplayThread thread = heads.top().second;
        heads.pop();
        const RecordOwner who = owner_of(p, thread);
        std::visit(
            [&](const auto& x) {
                using X = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<X, StateOut>)
                    writer.state(who, x.begin, x.end, x.state);
                else if constexpr (std::is_same_v<X, EventOut>) {
                    const EventPair pair{x.type, x.value};
                    writer.event(who, x.time, std::span(&pair, 1));
                } else
                    writer.comm(x);
            },
            threads[thread][next[thread]++]);
        if (next[thread] < threads[thread].size())
            heads.push({time_of(threads[thread][next[thread]]), thread});
    }
    writer.close();
    const std::string base = trace_base_name(prv_path);
    write_standard_pcf(base + ".pcf");
    write_row(base + ".row", header);
}

} // namespace popsim::replay

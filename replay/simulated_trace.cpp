#include "replay/simulated_trace.hpp"

#include "replay/extrae_events.hpp"
#include "replay/mpi_calls.hpp"
#include "replay/paraver_reader.hpp"
#include "replay/paraver_writer.hpp"

#include <algorithm>
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
    return std::visit([](const auto& x) -> Time {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, StateOut>) return x.begin;
        else if constexpr (std::is_same_v<X, EventOut>) return x.time;
        else return x.logical_send;
    }, r);
}

/// One task's records in its time order: bursts as Running, each MPI call (all its operations)
/// as one interval in the call's state between its entry and exit events.
std::vector<RecordOut> task_records(const Trace& original, const ReplayProgram& p, const ReplayResult& r, std::uint32_t task) {
    std::vector<RecordOut> out;
    const auto& calls = original.threads[p.task_thread[task]];
    for (OpIndex op = p.task_first_op[task]; op < p.task_end_op(task);) {
        if (p.op_kind[op] == OpKind::burst) {
            out.push_back(StateOut{r.op_begin[op], r.op_end[op], extrae::k_state_running});
            ++op;
            continue;
        }
        const std::uint32_t call = p.op_call[op];
        const Time begin = r.op_begin[op];
        OpIndex last = op;
        while (last + 1 < p.task_end_op(task) && p.op_call[last + 1] == call) ++last;
        const Time end = r.op_end[last];
        const auto info = mpi_call_by_id(calls.call_id[call]);
        const std::uint32_t type = info ? info->event_type : extrae::k_mpi_other;
        out.push_back(EventOut{begin, type, calls.call_id[call]});
        for (OpIndex o = op; o <= last; ++o) {
            if (p.op_kind[o] != OpKind::send) continue;
            const auto& m = p.messages[p.op_ref[o]];
            CommRecord c;
            c.sender = {task + 1, 1, m.sender_task + 1, 1};
            c.receiver = {m.receiver_task + 1, 1, m.receiver_task + 1, 1};
            c.logical_send = r.op_begin[o];
            c.physical_send = r.op_end[o];
            c.logical_recv = r.op_begin[m.post_op];
            c.physical_recv = r.op_end[m.wait_op];
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

ParaverHeader simulated_header(const Trace& original, Time end) {
    ParaverHeader h;
    h.end_time = end;
    h.cpus_per_node.assign(original.task_count(), 1);
    auto& app = h.applications.emplace_back();
    for (std::uint32_t t = 0; t < original.task_count(); ++t) app.tasks.push_back({1, t + 1});
    for (const auto& c : original.header.communicators)
        if (c.application == 1) h.communicators.push_back(c);
    return h;
}

} // namespace

void write_simulated_paraver(const Trace& original, const ReplayProgram& p, const ReplayResult& r, const std::string& prv_path) {
    const ParaverHeader header = simulated_header(original, r.runtime);
    std::vector<std::vector<RecordOut>> tasks;
    for (std::uint32_t t = 0; t < p.tasks; ++t) tasks.push_back(task_records(original, p, r, t));
    // Merge the tasks' time-ordered streams so the file is globally ordered by time.
    std::vector<std::size_t> next(p.tasks, 0);
    using Head = std::pair<Time, std::uint32_t>; // ties go to the lower task
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (std::uint32_t t = 0; t < p.tasks; ++t)
        if (!tasks[t].empty()) heads.push({time_of(tasks[t][0]), t});
    ParaverWriter writer(prv_path, header);
    while (!heads.empty()) {
        const std::uint32_t task = heads.top().second;
        heads.pop();
        const RecordOwner who{task + 1, 1, task + 1, 1};
        std::visit([&](const auto& x) {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, StateOut>) writer.state(who, x.begin, x.end, x.state);
            else if constexpr (std::is_same_v<X, EventOut>) {
                const EventPair pair{x.type, x.value};
                writer.event(who, x.time, std::span(&pair, 1));
            } else writer.comm(x);
        }, tasks[task][next[task]++]);
        if (next[task] < tasks[task].size()) heads.push({time_of(tasks[task][next[task]]), task});
    }
    writer.close();
    const std::string base = trace_base_name(prv_path);
    write_standard_pcf(base + ".pcf");
    write_row(base + ".row", header);
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/trace_builder.hpp"

#include "replay/extrae_events.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <utility>

namespace popsim::replay {

TraceBuilder::TraceBuilder(Trace& trace, std::vector<std::uint32_t> tracked_event_types,
                           bool allow_truncated)
    : trace_(trace), tracked_types_(std::move(tracked_event_types)),
      allow_truncated_(allow_truncated),
      tracks_counters_(
          std::any_of(tracked_types_.begin(), tracked_types_.end(), extrae::is_counter_type)),
      task_threads_(task_threads(trace_.header)), total_cpus_(trace_.header.total_cpus()) {
    std::uint32_t app_number = 1;
    for (const auto& app : trace_.header.applications) {
        std::uint32_t task_number = 1;
        for (const auto& task : app.tasks) {
            for (std::uint32_t t = 1; t <= task.threads; ++t) {
                auto& timeline = trace_.threads.emplace_back();
                timeline.name = {app_number, task_number, t};
            }
            ++task_number;
        }
        ++app_number;
    }
    scratch_.resize(trace_.threads.size());
}

std::string TraceBuilder::where(const ThreadTimeline& tl, Time time, std::uint64_t line) {
    return fmt::format("thread {} at {} (line {})", to_string(tl.name), seconds(time), line);
}

void TraceBuilder::fail(std::uint64_t line, const std::string& cause) const {
    throw TraceError(trace_.path, line, cause);
}

std::vector<TraceBuilder::ApplicationThreads>
TraceBuilder::task_threads(const ParaverHeader& header) {
    const ThreadNumbering numbering(header);
    std::vector<ApplicationThreads> out(header.applications.size());
    for (std::uint32_t a = 0; a < out.size(); ++a) {
        const auto& tasks = header.applications[a].tasks;
        auto& app = out[a];
        for (std::uint32_t t = 0; t < tasks.size(); ++t)
            app.tasks.push_back({numbering.number(a + 1, t + 1, 1), tasks[t].threads});
        app.first = app.tasks.empty() ? 0 : app.tasks.front().first;
        app.one_per_task = std::ranges::all_of(app.tasks, [&](const TaskThreads& task) {
            return task.count == 1 && task.first == app.first + (&task - app.tasks.data());
        });
    }
    return out;
}

ThreadIndex TraceBuilder::declared_thread(const RecordOwner& owner) const {
    if (owner.application - 1 >= task_threads_.size()) return k_undeclared; // 0 wraps around
    const auto& app = task_threads_[owner.application - 1];
    if (owner.task - 1 >= app.tasks.size()) return k_undeclared;
    const TaskThreads task = app.of_task(owner.task);
    if (owner.thread - 1 >= task.count) return k_undeclared;
    return task.first + owner.thread - 1;
}

ThreadIndex TraceBuilder::resolve(const RecordOwner& owner, std::uint64_t line) const {
    const ThreadIndex thread = declared_thread(owner);
    if (thread == k_undeclared) refuse_owner(owner, line);
    if (total_cpus_ > 0 && owner.cpu > total_cpus_) {
        fail(line, fmt::format("record names CPU {}, but the header declares {} CPUs", owner.cpu,
                               total_cpus_));
    }
    return thread;
}

void TraceBuilder::refuse_owner(const RecordOwner& owner, std::uint64_t line) const {
    if (owner.application - 1 >= task_threads_.size()) {
        fail(line, fmt::format("record names application {}, but the header declares {}",
                               owner.application, task_threads_.size()));
    }
    const auto& app = task_threads_[owner.application - 1];
    if (owner.task - 1 >= app.tasks.size()) {
        fail(line,
             fmt::format("record names task {} of application {}, but the header declares {} tasks",
                         owner.task, owner.application, app.tasks.size()));
    }
    const TaskThreads task = app.of_task(owner.task);
    fail(line, fmt::format("record names thread {} of task {}, but the header declares {} threads",
                           owner.thread, owner.task, task.count));
}

void TraceBuilder::prefetch(const RecordOwner& owner) const {
    const ThreadIndex thread = declared_thread(owner);
    if (thread == k_undeclared) return; // refused when its record comes
    const auto* scratch = reinterpret_cast<const char*>(&scratch_[thread]);
    for (std::size_t line = 0; line < sizeof(ThreadScratch); line += 64)
        __builtin_prefetch(scratch + line);
    __builtin_prefetch(&trace_.threads[thread]);
    if (observer_) observer_->prefetch(thread);
}

// Paraver's cutter leaves records after the end it writes in the header (the cut's end): the
// trace is taken to end at its last record, with a warning (finish()).
void TraceBuilder::note_time(Time time, std::uint64_t line) {
    last_record_ = std::max(last_record_, time);
    if (time <= trace_.header.end_time) return;
    if (records_after_end_++ == 0)
        first_after_end_ = fmt::format("line {} at {}", line, seconds(time));
}

// Replaying needs each thread's calls and states in time order; the records of different threads
// and the communications may interleave freely.
void TraceBuilder::check_order(Time time, Time& latest, const char* record, ThreadIndex t,
                               std::uint64_t line) {
    if (time < latest) {
        fail(line, fmt::format("records out of time order: this {} of thread {} is at {} ns, "
                               "after one at {} ns (each thread's records must come in time "
                               "order, as Extrae and Paraver write them)",
                               record, to_string(trace_.threads[t].name), time, latest));
    }
    latest = time;
}

void TraceBuilder::add_state(const StateRecord& r, std::uint64_t line) {
    const ThreadIndex t = resolve(r.owner, line);
    note_time(r.end, line);
    check_order(r.begin, scratch_[t].latest_state_begin, "state", t, line);
    if (r.state >= k_no_state)
        fail(line, fmt::format("state value {} is out of range (0-254)", r.state));
    ++trace_.counts.states;
    auto& tl = trace_.threads[t];
    auto& s = scratch_[t];
    if (!cutters_.empty()) {
        cutters_[t].record(r.begin, new_cuts_);
        keep_cuts(t);
    }
    // Dimemas writes some intervals twice (Running, then the block's state): the earlier record
    // keeps the overlap, and the overlap is reported.
    const Time begin = std::max(r.begin, tl.states_end);
    if (r.begin < tl.states_end && s.any_state) note_overlap(tl, r, line);
    if (begin < r.end) {
        if (begin > tl.states_end) keep_state(t, tl.states_end, begin, k_no_state); // a gap
        keep_state(t, begin, r.end, static_cast<std::uint8_t>(r.state));
        tl.last_record = std::max(tl.last_record, r.end);
    }
    if (observer_) observer_->reached(r.begin);
    if (begin >= r.end) return;
    if (r.state == extrae::k_state_running) {
        for (PendingReads* p : {&s.instructions, &s.cycles}) {
            p->earlier += p->latest ? 1 : 0;
            p->latest = true;
        }
        s.latest_running_begin = begin;
    }
}

void TraceBuilder::keep_state(ThreadIndex t, Time begin, Time end, std::uint8_t value) {
    auto& tl = trace_.threads[t];
    auto& s = scratch_[t];
    s.any_state = true;
    s.last_state_begin = begin;
    s.last_state_value = value;
    tl.states_end = end;
    if (observer_) return observer_->state(t, begin, end, value);
    tl.state_begin.push_back(begin);
    tl.state_value.push_back(value);
}

void TraceBuilder::keep_call(ThreadIndex t) {
    const ObservedCall& call = scratch_[t].latest_call;
    if (observer_) return observer_->call(t, call);
    auto& tl = trace_.threads[t];
    tl.call_begin.push_back(call.begin);
    tl.call_end.push_back(call.end);
    tl.call_id.push_back(call.id);
    if (call.attributes) tl.collectives.push_back(*call.attributes);
}

void TraceBuilder::note_overlap(const ThreadTimeline& tl, const StateRecord& r,
                                std::uint64_t line) {
    if (overlaps_++ > 0) return;
    first_overlap_ = fmt::format(
        "line {}: state {} [{}, {}) of thread {} overlaps the previous state, which ends at {}",
        line, r.state, r.begin, r.end, to_string(tl.name), tl.states_end);
}

// Counters are deltas read at state boundaries. A Running burst [b, e) gets the value of the
// first read after b, like Paraver's "Next Evt Val" in modelfactors' cfgs: when one time has
// several reads (split lines), only the first counts, and a burst with no read of its own shares
// the next one. This reproduces the published modelfactors numbers exactly.
void TraceBuilder::add_count(std::uint64_t& total, std::uint64_t reads, std::uint64_t value,
                             std::uint64_t line) const {
    std::uint64_t added = 0;
    if (__builtin_mul_overflow(reads, value, &added) ||
        __builtin_add_overflow(total, added, &total)) {
        fail(line, fmt::format("hardware counter reads add up past 2^64 (this read: {})", value));
    }
}

void TraceBuilder::attribute_counter(ThreadIndex t, Time time, const EventPair& pair,
                                     std::uint64_t line) {
    auto& tl = trace_.threads[t];
    tl.has_counters = true;
    auto& s = scratch_[t];
    const bool instructions = pair.type == extrae::k_papi_total_instructions;
    PendingReads& pending = instructions ? s.instructions : s.cycles;
    std::uint64_t bursts = pending.earlier;
    pending.earlier = 0;
    if (time > s.latest_running_begin && pending.latest) {
        ++bursts;
        pending.latest = false;
    }
    add_count(instructions ? tl.useful_instructions : tl.useful_cycles, bursts, pair.value, line);
    const bool inside_running = s.any_state && time > s.last_state_begin && time < tl.states_end &&
                                s.last_state_value == extrae::k_state_running;
    if (inside_running)
        add_count(instructions ? s.sampled_instructions : s.sampled_cycles, 1, pair.value, line);
}

// Counters read only at sample points inside bursts give nothing at burst ends: then the reads
// that fall in Running bursts are summed instead; when even those are 0, no counter is shown.
void TraceBuilder::use_sampled_counters_if_needed() {
    bool any_reads = false, at_ends = false, sampled = false;
    for (ThreadIndex t = 0; t < trace_.threads.size(); ++t) {
        const auto& tl = trace_.threads[t];
        at_ends = at_ends || tl.useful_instructions > 0 || tl.useful_cycles > 0;
        sampled = sampled || scratch_[t].sampled_instructions > 0 || scratch_[t].sampled_cycles > 0;
        any_reads = any_reads || tl.has_counters;
    }
    if (!any_reads || at_ends) return;
    for (ThreadIndex t = 0; t < trace_.threads.size(); ++t) {
        auto& tl = trace_.threads[t];
        tl.useful_instructions = scratch_[t].sampled_instructions;
        tl.useful_cycles = scratch_[t].sampled_cycles;
        tl.has_counters = sampled;
    }
    trace_.warnings.add(
        "sampled-counters",
        sampled ? "hardware counters are read at sample points, not at the ends of useful "
                  "bursts: useful instructions and cycles are the sums of the reads that "
                  "fall inside Running bursts"
                : "hardware counters are read, but no read falls in a useful burst: "
                  "instructions, cycles and IPC are not available");
}

void TraceBuilder::keep_cuts(ThreadIndex t) {
    for (const Time cut : new_cuts_) {
        if (observer_)
            observer_->burst_cut(t, cut);
        else
            trace_.threads[t].burst_cuts.push_back(cut);
    }
    new_cuts_.clear();
}

void TraceBuilder::enter_call(ThreadIndex t, Time time, const EventPair& pair, std::uint64_t line) {
    auto& s = scratch_[t];
    if (s.call_open) {
        fail(line,
             fmt::format(
                 "thread {} enters MPI call {} at {} while call {} entered at {} is still open",
                 to_string(trace_.threads[t].name), pair.value, time, s.latest_call.id,
                 s.latest_call.begin));
    }
    if (pair.value > 0xffff) fail(line, fmt::format("MPI call id {} is out of range", pair.value));
    s.latest_call = {.begin = time,
                     .end = time,
                     .id = static_cast<std::uint16_t>(pair.value),
                     .attributes = std::nullopt};
    ++s.calls;
    s.call_open = true;
    if (observer_) observer_->entered(t, time, s.latest_call.id);
}

// A cut trace begins with an exit for each thread that was inside a call at the cut (or a
// record resetting every event type to 0), and ends with a record resetting every open type: an
// exit from no call is read as Paraver reads it, as nothing, when it is the thread's first MPI
// event or one of several exits on one line. Elsewhere it means the records are broken.
void TraceBuilder::leave_call(ThreadIndex t, Time time, const EventPair& pair, bool reset_record,
                              std::uint64_t line) {
    auto& tl = trace_.threads[t];
    auto& s = scratch_[t];
    if (!s.call_open) {
        if (s.calls == 0) {
            if (std::exchange(s.cut_start_noted, true)) return;
            trace_.warnings.add("cut-start",
                                "threads begin with an MPI exit (a cut trace): what lay before "
                                "the cut is not replayed",
                                where(tl, time, line));
            return;
        }
        if (reset_record) return;
        fail(line, fmt::format("thread {} leaves an MPI call (event {}:0) at {} ns that it never "
                               "entered (its previous call ended at {} ns; records out of time "
                               "order?)",
                               to_string(tl.name), pair.type, time, s.latest_call.end));
    }
    s.latest_call.end = time;
    s.call_open = false;
    keep_call(t);
}

void TraceBuilder::add_collective_attribute(ThreadIndex t, Time time, const EventPair& pair,
                                            std::uint64_t line) {
    const auto& tl = trace_.threads[t];
    auto& s = scratch_[t];
    if (!s.call_open || s.latest_call.begin != time) {
        if (pair.value == 0) { // a cutter's closing record resets every open event type
            trace_.warnings.add("reset-records",
                                "collective attributes are reset to 0 away from a call entry "
                                "(a cutter's closing record); they are ignored",
                                where(tl, time, line));
            return;
        }
        fail(line,
             fmt::format("collective attribute event {} at {} is not at the entry of an MPI call "
                         "(it belongs on the entry's line, or on a line after it at the same time)",
                         pair.type, time));
    }
    if (!s.latest_call.attributes)
        s.latest_call.attributes = CollectiveAttributes{.call = s.calls - 1};
    s.latest_call.attributes->set(pair.type, pair.value);
}

bool TraceBuilder::tracks(std::uint32_t type) const {
    return std::find(tracked_types_.begin(), tracked_types_.end(), type) != tracked_types_.end();
}

void TraceBuilder::track(ThreadIndex t, Time time, const EventPair& pair) {
    if (observer_) {
        if (tracks(pair.type)) observer_->event(t, time, pair.type, pair.value);
        return;
    }
    auto& all = trace_.threads[t].tracked_events;
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const EventSeries& s) { return s.type == pair.type; });
    if (it == all.end()) { // a thread's series exists once it has an event of that type
        if (!tracks(pair.type)) return;
        it = all.insert(all.end(), EventSeries{pair.type, {}, {}});
    }
    it->time.push_back(time);
    it->value.push_back(pair.value);
}

void TraceBuilder::add_event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs,
                             std::uint64_t line) {
    const ThreadIndex t = resolve(owner, line);
    note_time(time, line);
    check_order(time, scratch_[t].latest_event, "event", t, line);
    ++trace_.counts.events;
    trace_.threads[t].last_record = std::max(trace_.threads[t].last_record, time);
    if (!cutters_.empty()) {
        cutters_[t].record(time, new_cuts_);
        cutters_[t].event(time, pairs, new_cuts_);
        keep_cuts(t);
    }
    // Within one line: leave the previous call, enter the next, then read the entry's attributes.
    const auto exits = std::count_if(pairs.begin(), pairs.end(), [](const EventPair& p) {
        return extrae::is_mpi_call_type(p.type) && p.value == 0;
    });
    for (const auto& p : pairs)
        if (extrae::is_mpi_call_type(p.type) && p.value == 0)
            leave_call(t, time, p, exits > 1, line);
    for (const auto& p : pairs)
        if (extrae::is_mpi_call_type(p.type) && p.value != 0) enter_call(t, time, p, line);
    for (const auto& p : pairs) {
        if (p.type >= extrae::k_collective_send_size &&
            p.type <= extrae::k_collective_communicator) {
            add_collective_attribute(t, time, p, line);
        } else if (p.type == extrae::k_papi_total_instructions ||
                   p.type == extrae::k_papi_total_cycles) {
            attribute_counter(t, time, p, line);
            if (tracks_counters_) track(t, time, p);
        } else if (!extrae::is_mpi_call_type(p.type)) {
            track(t, time, p);
        }
    }
    if (observer_) observer_->reached(time);
}

void TraceBuilder::add_comm(const CommRecord& r, std::uint64_t line) {
    const ThreadIndex from = resolve(r.sender, line);
    const ThreadIndex to = resolve(r.receiver, line);
    for (Time t : {r.logical_send, r.physical_send, r.logical_recv, r.physical_recv})
        note_time(t, line);
    if (r.tag > 0xffffffffu)
        fail(line, fmt::format("message tag {} does not fit in 32 bits", r.tag));
    if (observer_) {
        observer_->comm(from, to, r, trace_.counts.communications++);
        return observer_->reached(std::min(r.logical_send, r.physical_send));
    }
    auto& c = trace_.comms;
    c.sender.push_back(from);
    c.receiver.push_back(to);
    c.logical_send.push_back(r.logical_send);
    c.logical_recv.push_back(r.logical_recv);
    c.physical_recv.push_back(r.physical_recv);
    c.bytes.push_back(r.size);
    c.tag.push_back(static_cast<std::uint32_t>(r.tag));
    ++trace_.counts.communications;
}

void TraceBuilder::ends_mid_line(std::uint64_t line) {
    mid_line_cut_ = line;
}

// Extrae writes the end of the run into the header, and some record always reaches it (every
// real trace in ../shared/data does): records that stop before it, or a last line without its
// newline, are what an interrupted merge, copy or download leaves. Their metrics would be those
// of a different, shorter run with an idle tail.
void TraceBuilder::check_truncation(std::uint64_t last_line) {
    const Time declared = trace_.header.end_time;
    if (mid_line_cut_ == 0 && (last_record_ >= declared || trace_.window_end)) return;
    const double missing =
        declared > 0 ? 100.0 * static_cast<double>(declared - std::min(last_record_, declared)) /
                           static_cast<double>(declared)
                     : 0.0;
    const std::string what =
        fmt::format("the records end at {}, {:.1f} % of the run the header declares ({}) is "
                    "missing{}",
                    seconds(last_record_), missing, seconds(declared),
                    mid_line_cut_ > 0 ? ", and the last line has no newline (cut mid-line)" : "");
    if (!allow_truncated_) {
        fail(mid_line_cut_ > 0 ? mid_line_cut_ : last_line,
             fmt::format("the trace is truncated (an interrupted merge, copy or simulate -o?): "
                         "{}; --allow-truncated analyses the part that is there",
                         what));
    }
    trace_.warnings.add(
        "truncated", fmt::format("the trace is truncated: {}; it is analysed up to its last "
                                 "record (--allow-truncated){}",
                                 what, mid_line_cut_ > 0 ? ", without its unfinished line" : ""));
    trace_.header.end_time = std::min(last_record_, declared);
    trace_.cut_at_end = true;
}

void TraceBuilder::finish(std::uint64_t last_line) {
    check_truncation(last_line);
    use_sampled_counters_if_needed();
    if (overlaps_ > 0) {
        trace_.warnings.add_many("overlapping-states",
                                 "state records overlap earlier states of their thread; the "
                                 "earlier state is kept where they overlap",
                                 overlaps_, {first_overlap_});
    }
    if (records_after_end_ > 0) {
        trace_.warnings.add_many(
            "records-after-end",
            fmt::format("records lie after the trace end the header declares ({}; a cut "
                        "trace?): the trace is taken to end at its last record, {}",
                        seconds(trace_.header.end_time), seconds(last_record_)),
            records_after_end_, {first_after_end_});
        trace_.header.end_time = last_record_;
        trace_.cut_at_end = true;
    }
    for (ThreadIndex t = 0; t < trace_.threads.size(); ++t) {
        auto& s = scratch_[t];
        if (!s.call_open) continue;
        s.latest_call.end = trace_.header.end_time;
        keep_call(t);
        trace_.warnings.add("call-open-at-end",
                            "threads never leave their last MPI call; it is closed at the trace "
                            "end",
                            fmt::format("thread {} in MPI call {} entered at {}",
                                        to_string(trace_.threads[t].name), s.latest_call.id,
                                        seconds(s.latest_call.begin)));
    }
}

void BuilderInput::state(const StateRecord& r) {
    builder_.add_state(r, line);
}
void BuilderInput::event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) {
    builder_.add_event(owner, time, pairs, line);
}
void BuilderInput::comm(const CommRecord& r) {
    builder_.add_comm(r, line);
}

} // namespace popsim::replay

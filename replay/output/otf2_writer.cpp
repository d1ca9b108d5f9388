// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/otf2_writer.hpp"

#include "replay/extrae_events.hpp"
#include "replay/otf2_library.hpp"
#include "replay/output/output_file.hpp"
#include "replay/output/paraver_writer.hpp"
#include "replay/program/call_roles.hpp"
#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <optional>
#include <otf2/otf2.h>
#include <popsim/version.hpp>
#include <unistd.h>

namespace fs = std::filesystem;

namespace popsim::replay {

namespace {

struct HeldState {
    Time begin, end;
    std::uint32_t value;
};
struct HeldEvent {
    Time time;
    std::uint32_t type;
    std::uint64_t value;
};

/// An MPI call of a thread, from its entry and exit events.
struct Call {
    Time begin = 0, end = 0;
    std::uint16_t id = 0;
    std::optional<CollectiveAttributes> attributes; // its entry's (50100001-50100004)
    std::uint32_t root = OTF2_COLLECTIVE_ROOT_NONE; // the root's rank in the communicator
};

/// A message's half, written in the call that plays it.
struct Half {
    enum class Kind : std::uint8_t { send, isend, recv, irecv_request, irecv } kind;
    std::uint32_t peer; // the other task's rank (0-based) in MPI_COMM_WORLD
    std::uint32_t tag;
    std::uint64_t bytes;
    std::uint64_t request;
};

/// Throws OutputError for a library call that failed writing `what`.
using Check = std::function<void(OTF2_ErrorCode, const char* what)>;
/// The reference of a string, defined at its first use.
using StringRef = std::function<OTF2_StringRef(std::string)>;

/// Region kinds by what they carry of the Paraver trace.
enum class Layer : std::uint8_t { parallel, user, call, state }; // outermost first

/// The regions and metrics the archive defines, numbered as they are first used.
class Definitions {
  public:
    explicit Definitions(const TraceLabels& labels) : labels_(labels) {}

    OTF2_RegionRef region(Layer layer, std::uint64_t value) {
        const auto [it, added] = regions_.try_emplace({layer, value}, regions_.size());
        if (added) region_keys_.emplace_back(layer, value);
        return static_cast<OTF2_RegionRef>(it->second);
    }
    OTF2_MetricRef metric(std::uint32_t type) {
        const auto [it, added] = metrics_.try_emplace(type, metrics_.size());
        if (added) metric_types_.push_back(type);
        return static_cast<OTF2_MetricRef>(it->second);
    }
    void write(OTF2_GlobalDefWriter* w, const StringRef& string, const Check& check) const;

  private:
    std::string value_label(std::uint32_t type, std::uint64_t value, std::string_view kind) const {
        for (const auto& l : labels_.event_values)
            if (l.type == type && l.value == value) return l.name;
        return fmt::format("{} {}", kind, value);
    }
    std::string type_label(std::uint32_t type) const {
        for (const auto& [t, name] : labels_.event_types)
            if (t == type) return name;
        return fmt::format("{}{}", k_otf2_event_mark, type);
    }

    const TraceLabels& labels_;
    std::map<std::pair<Layer, std::uint64_t>, std::size_t> regions_;
    std::map<std::uint32_t, std::size_t> metrics_;
    // By reference: definitions are written in the order of their references.
    std::vector<std::pair<Layer, std::uint64_t>> region_keys_;
    std::vector<std::uint32_t> metric_types_;
};

/// OTF2's collective operation for an MPI call name (without "MPI_"); immediate collectives as
/// their blocking ones.
OTF2_CollectiveOp collective_op(std::string_view name) {
    static const std::map<std::string, OTF2_CollectiveOp, std::less<>> ops{
        {"Barrier", OTF2_COLLECTIVE_OP_BARRIER},
        {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
        {"Gather", OTF2_COLLECTIVE_OP_GATHER},
        {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
        {"Scatter", OTF2_COLLECTIVE_OP_SCATTER},
        {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
        {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
        {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
        {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
        {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
        {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
        {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
        {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},
        {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
        {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
        {"Scan", OTF2_COLLECTIVE_OP_SCAN},
        {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN}};
    if (const auto it = ops.find(name); it != ops.end()) return it->second;
    if (name.size() > 1 && name[0] == 'I') {
        if (const auto it = ops.find(name.substr(1)); it != ops.end()) return it->second;
    }
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.find("free") != std::string::npos) return OTF2_COLLECTIVE_OP_DESTROY_HANDLE;
    return OTF2_COLLECTIVE_OP_CREATE_HANDLE; // communicator creation (split, dup, create), Init
}

OTF2_RegionRole call_role(const MpiCall& call) {
    if (call.name == "Barrier") return OTF2_REGION_ROLE_BARRIER;
    if (call.cls == CallClass::collective || call.cls == CallClass::immediate_collective) {
        if (!call.rooted) return OTF2_REGION_ROLE_COLL_ALL2ALL;
        return call.name.starts_with("Bcast") || call.name.starts_with("Scatter")
                   ? OTF2_REGION_ROLE_COLL_ONE2ALL
                   : OTF2_REGION_ROLE_COLL_ALL2ONE;
    }
    return call.event_type == extrae::k_mpi_point_to_point ? OTF2_REGION_ROLE_POINT2POINT
                                                           : OTF2_REGION_ROLE_FUNCTION;
}

void Definitions::write(OTF2_GlobalDefWriter* w, const StringRef& string,
                        const Check& check) const {
    for (std::size_t ref = 0; ref < region_keys_.size(); ++ref) {
        const auto [layer, value] = region_keys_[ref];
        std::string name, canonical, description;
        OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
        OTF2_Paradigm paradigm = OTF2_PARADIGM_USER;
        switch (layer) {
        case Layer::call: {
            const auto call = mpi_call_by_id(static_cast<std::uint16_t>(value));
            name = canonical = mpi_call_name(static_cast<std::uint16_t>(value));
            if (call) role = call_role(*call);
            paradigm = OTF2_PARADIGM_MPI;
            break;
        }
        case Layer::state: {
            name = fmt::format("State {}", value);
            for (const auto& [v, label] : labels_.states)
                if (v == value) name = label;
            canonical = fmt::format("{}{}", k_otf2_state_mark, value);
            description = "a state of the Paraver trace (popsim)";
            role = OTF2_REGION_ROLE_ARTIFICIAL;
            paradigm = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
            break;
        }
        case Layer::parallel:
            name = canonical =
                value_label(extrae::k_omp_outlined_function, value, "parallel region");
            role = OTF2_REGION_ROLE_PARALLEL;
            paradigm = OTF2_PARADIGM_OPENMP;
            break;
        case Layer::user:
            name = canonical = value_label(extrae::k_user_function, value, "function");
            break;
        }
        check(OTF2_GlobalDefWriter_WriteRegion(w, static_cast<OTF2_RegionRef>(ref), string(name),
                                               string(canonical), string(description), role,
                                               paradigm, OTF2_REGION_FLAG_NONE, string(""), 0, 0),
              "a region");
    }
    for (std::size_t ref = 0; ref < metric_types_.size(); ++ref) {
        const std::uint32_t type = metric_types_[ref];
        const bool counter = extrae::is_counter_type(type);
        std::string name = type_label(type);
        if (const auto papi = name.find("PAPI_"); counter && papi != std::string::npos) {
            // The counter's PAPI name ("Instr completed (PAPI_TOT_INS)"), as OTF2 tools know it.
            const auto end = name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", papi);
            name = name.substr(papi, end == std::string::npos ? end : end - papi);
        }
        const auto member = static_cast<OTF2_MetricMemberRef>(ref);
        check(OTF2_GlobalDefWriter_WriteMetricMember(
                  w, member, string(name), string(fmt::format("{}{}", k_otf2_event_mark, type)),
                  counter && name.starts_with("PAPI_") ? OTF2_METRIC_TYPE_PAPI
                                                       : OTF2_METRIC_TYPE_USER,
                  counter ? OTF2_METRIC_ACCUMULATED_START : OTF2_METRIC_ABSOLUTE_POINT,
                  OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, string(counter ? "#" : "")),
              "a metric");
        check(OTF2_GlobalDefWriter_WriteMetricClass(
                  w, static_cast<OTF2_MetricRef>(ref), 1, &member, OTF2_METRIC_SYNCHRONOUS,
                  counter ? OTF2_RECORDER_KIND_CPU : OTF2_RECORDER_KIND_ABSTRACT),
              "a metric class");
    }
    // The .pcf's names of the values of the event types written, as regions never entered.
    auto next = static_cast<OTF2_RegionRef>(region_keys_.size());
    for (const auto& l : labels_.event_values) {
        if (!metrics_.contains(l.type)) continue;
        check(OTF2_GlobalDefWriter_WriteRegion(
                  w, next++, string(l.name),
                  string(fmt::format("{}{}:{}", k_otf2_value_mark, l.type, l.value)), string(""),
                  OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                  OTF2_REGION_FLAG_NONE, string(""), 0, 0),
              "an event value's name");
    }
}

/// A thread's MPI calls, from its call events: an entry (50000001-5, value > 0) opens one, the
/// next exit or entry closes it; the collective attributes at its entry are its own.
std::vector<Call> calls_of(const std::vector<HeldEvent>& events) {
    std::vector<Call> calls;
    bool open = false;
    for (const auto& e : events) {
        if (extrae::is_mpi_call_type(e.type)) {
            if (open) calls.back().end = e.time;
            open = e.value != 0;
            if (open)
                calls.push_back({.begin = e.time,
                                 .end = e.time,
                                 .id = static_cast<std::uint16_t>(e.value),
                                 .attributes = std::nullopt});
            continue;
        }
        if (!open || !extrae::is_collective_attribute(e.type) || calls.back().begin != e.time)
            continue;
        auto& attributes = calls.back().attributes;
        if (!attributes) attributes = CollectiveAttributes{.communicator = k_default_communicator};
        attributes->set(e.type, e.value);
    }
    if (open && !events.empty()) calls.back().end = events.back().time;
    return calls;
}

/// The call of `calls` that plays `role` for a record at `t` (call_roles.hpp), or k_no_call.
std::uint64_t playing(const std::vector<Call>& calls, Time t, Role role) {
    const auto after = std::upper_bound(calls.begin(), calls.end(), t,
                                        [](Time x, const Call& c) { return x < c.begin; });
    const std::uint64_t last =
        after == calls.begin() ? k_no_call : static_cast<std::uint64_t>(after - calls.begin() - 1);
    const std::uint64_t found = call_playing(
        t, role, last, [&](std::uint64_t c) { return calls[c].begin; },
        [&](std::uint64_t c) { return calls[c].end; },
        [&](std::uint64_t c) { return calls[c].id; });
    return found != k_no_call && can_play(call_class(calls[found].id), role) ? found : k_no_call;
}

} // namespace

struct Otf2Writer::Held {
    explicit Held(const ParaverHeader& header) : numbering(header) {
        const auto& tasks = header.applications.at(0).tasks;
        for (std::uint32_t task = 0; task < tasks.size(); ++task)
            for (std::uint32_t th = 0; th < tasks[task].threads; ++th) task_of.push_back(task);
        states.resize(task_of.size());
        events.resize(task_of.size());
    }
    std::uint32_t thread(const RecordOwner& owner) const {
        const auto t = numbering.find(owner.application, owner.task, owner.thread);
        if (!t || owner.application != 1)
            throw std::invalid_argument(fmt::format(
                "a record of thread {}.{}.{}, which the archive's header does not declare",
                owner.application, owner.task, owner.thread));
        return *t;
    }

    ThreadNumbering numbering;
    std::vector<std::uint32_t> task_of; // per thread (0-based)
    std::vector<std::vector<HeldState>> states;
    std::vector<std::vector<HeldEvent>> events;
    std::vector<CommRecord> comms;
};

Otf2Writer::Otf2Writer(std::string anchor, ParaverHeader header, TraceLabels labels)
    : anchor_(std::move(anchor)), header_(std::move(header)),
      labels_(with_standard_labels(std::move(labels))) {
    if (header_.applications.size() != 1)
        throw std::invalid_argument(
            fmt::format("an OTF2 archive holds one application; the trace has {}",
                        header_.applications.size()));
    held_ = std::make_unique<Held>(header_);
}

Otf2Writer::~Otf2Writer() = default;

void Otf2Writer::state(const StateRecord& r) {
    held_->states[held_->thread(r.owner)].push_back({r.begin, r.end, r.state});
}

void Otf2Writer::event(const RecordOwner& owner, Time time, std::span<const EventPair> pairs) {
    auto& events = held_->events[held_->thread(owner)];
    for (const auto& p : pairs) events.push_back({time, p.type, p.value});
}

void Otf2Writer::comm(const CommRecord& r) {
    held_->thread(r.sender);
    held_->thread(r.receiver);
    held_->comms.push_back(r);
}

namespace {

/// The archive's MPI communicators: the header's `c:` lines numbered in order, MPI_COMM_WORLD the
/// first of all tasks (one is added when the header has none).
struct Communicators {
    explicit Communicators(const ParaverHeader& header) {
        const auto count = static_cast<std::uint32_t>(header.applications[0].tasks.size());
        std::optional<OTF2_CommRef> all;
        for (const auto& c : header.communicators) {
            if (c.application != 1 || by_id.contains(c.id)) continue;
            const auto ref = by_id[c.id] = static_cast<OTF2_CommRef>(tasks.size());
            if (!all && c.tasks.size() == count) all = ref;
            tasks.push_back(c.tasks);
            ids.push_back(c.id);
        }
        if (!all) {
            all = static_cast<OTF2_CommRef>(tasks.size());
            auto& world_tasks = tasks.emplace_back(count);
            for (std::uint32_t k = 0; k < count; ++k) world_tasks[k] = k + 1;
            ids.push_back(k_default_communicator);
        }
        world = *all;
    }
    /// Of a Paraver communicator id; the world for calls without one.
    OTF2_CommRef of(std::uint64_t id) const {
        const auto it = by_id.find(id);
        return it == by_id.end() ? world : it->second;
    }

    std::map<std::uint64_t, OTF2_CommRef> by_id;
    std::vector<std::vector<std::uint32_t>> tasks; // 1-based, by reference
    std::vector<std::uint64_t> ids;                // the Paraver id, by reference
    OTF2_CommRef world = 0;
};

/// What one thread's location gets, in the order it is written.
class LocationWriter {
  public:
    LocationWriter(OTF2_EvtWriter* writer, Definitions& defs, const std::vector<Call>& calls,
                   const std::vector<std::vector<Half>>& halves, const Communicators& comms,
                   const Check& check)
        : w_(writer), defs_(defs), calls_(calls), halves_(halves), comms_(comms), check_(check) {}

    void write(const std::vector<HeldState>& states, const std::vector<HeldEvent>& events,
               Otf2WriteCounts& counts);

  private:
    struct Interval {
        Time begin, end;
        OTF2_RegionRef region;
        Layer layer;
        std::uint32_t depth;
        std::uint64_t call; // for Layer::call
    };
    struct Step {
        Time time;
        std::uint8_t phase; // 0 leaves, 1 points, 2 enters (outermost first)
        std::uint32_t order;
        std::uint64_t item; // an interval, or a point's event
    };

    void enter(const Interval& i);
    void leave(const Interval& i, Otf2WriteCounts& counts);
    void point(const HeldEvent& e);

    OTF2_EvtWriter* w_;
    Definitions& defs_;
    const std::vector<Call>& calls_;
    const std::vector<std::vector<Half>>& halves_;
    const Communicators& comms_;
    const Check& check_;
    std::map<std::uint32_t, std::uint64_t> accumulated_; // per counter type
    std::vector<OTF2_RegionRef> open_;
};

void LocationWriter::enter(const Interval& i) {
    check_(OTF2_EvtWriter_Enter(w_, nullptr, i.begin, i.region), "an Enter");
    open_.push_back(i.region);
    if (i.layer != Layer::call) return;
    const Call& c = calls_[i.call];
    if (c.attributes)
        check_(OTF2_EvtWriter_MpiCollectiveBegin(w_, nullptr, c.begin), "a collective");
    for (const auto& h : halves_[i.call]) {
        switch (h.kind) {
        case Half::Kind::send:
            check_(
                OTF2_EvtWriter_MpiSend(w_, nullptr, c.begin, h.peer, comms_.world, h.tag, h.bytes),
                "an MpiSend");
            break;
        case Half::Kind::isend:
            check_(OTF2_EvtWriter_MpiIsend(w_, nullptr, c.begin, h.peer, comms_.world, h.tag,
                                           h.bytes, h.request),
                   "an MpiIsend");
            break;
        case Half::Kind::irecv_request:
            check_(OTF2_EvtWriter_MpiIrecvRequest(w_, nullptr, c.begin, h.request),
                   "an MpiIrecvRequest");
            break;
        default:
            break;
        }
    }
}

void LocationWriter::leave(const Interval& i, Otf2WriteCounts& counts) {
    if (i.layer == Layer::call) {
        const Call& c = calls_[i.call];
        for (const auto& h : halves_[i.call]) {
            if (h.kind == Half::Kind::recv)
                check_(OTF2_EvtWriter_MpiRecv(w_, nullptr, c.end, h.peer, comms_.world, h.tag,
                                              h.bytes),
                       "an MpiRecv");
            if (h.kind == Half::Kind::irecv)
                check_(OTF2_EvtWriter_MpiIrecv(w_, nullptr, c.end, h.peer, comms_.world, h.tag,
                                               h.bytes, h.request),
                       "an MpiIrecv");
        }
        if (c.attributes) {
            const auto call = mpi_call_by_id(c.id);
            check_(OTF2_EvtWriter_MpiCollectiveEnd(
                       w_, nullptr, c.end, collective_op(call ? call->name : std::string_view()),
                       comms_.of(c.attributes->communicator), c.root, c.attributes->send_bytes,
                       c.attributes->recv_bytes),
                   "a collective");
        }
    }
    const auto it = std::find(open_.rbegin(), open_.rend(), i.region);
    if (it != open_.rbegin()) ++counts.unnested_regions;
    if (it != open_.rend()) open_.erase(std::next(it).base());
    check_(OTF2_EvtWriter_Leave(w_, nullptr, i.end, i.region), "a Leave");
}

void LocationWriter::point(const HeldEvent& e) {
    if (e.type == extrae::k_tracing_on_off) {
        check_(OTF2_EvtWriter_MeasurementOnOff(
                   w_, nullptr, e.time, e.value != 0 ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF),
               "a measurement switch");
    }
    std::uint64_t value = e.value;
    if (extrae::is_counter_type(e.type)) value = accumulated_[e.type] += e.value;
    const OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue v;
    v.unsigned_int = value;
    check_(OTF2_EvtWriter_Metric(w_, nullptr, e.time, defs_.metric(e.type), 1, &type, &v),
           "a metric");
}

void LocationWriter::write(const std::vector<HeldState>& states,
                           const std::vector<HeldEvent>& events, Otf2WriteCounts& counts) {
    std::vector<Interval> intervals;
    for (std::uint64_t c = 0; c < calls_.size(); ++c)
        intervals.push_back({calls_[c].begin, calls_[c].end,
                             defs_.region(Layer::call, calls_[c].id), Layer::call, 0, c});
    for (const auto& s : states)
        intervals.push_back(
            {s.begin, s.end, defs_.region(Layer::state, s.value), Layer::state, 0, 0});
    // Parallel regions and user functions from their events; user functions nest.
    std::optional<std::size_t> parallel;
    std::vector<std::size_t> functions;
    std::vector<std::uint64_t> points;
    const Time last = events.empty() ? 0 : events.back().time;
    for (std::uint64_t k = 0; k < events.size(); ++k) {
        const auto& e = events[k];
        if (extrae::is_mpi_call_type(e.type) || extrae::is_collective_attribute(e.type)) continue;
        points.push_back(k);
        if (e.type == extrae::k_omp_outlined_function) {
            if (parallel) intervals[*parallel].end = e.time;
            parallel.reset();
            if (e.value != 0) {
                parallel = intervals.size();
                intervals.push_back(
                    {e.time, last, defs_.region(Layer::parallel, e.value), Layer::parallel, 0, 0});
            }
        } else if (e.type == extrae::k_user_function) {
            if (e.value == 0 && !functions.empty()) {
                intervals[functions.back()].end = e.time;
                functions.pop_back();
            } else if (e.value != 0) {
                functions.push_back(intervals.size());
                intervals.push_back({e.time, last, defs_.region(Layer::user, e.value), Layer::user,
                                     static_cast<std::uint32_t>(functions.size()), 0});
            }
        }
    }
    std::vector<Step> steps;
    steps.reserve(2 * intervals.size() + points.size());
    const auto layer = [](Layer l) { return static_cast<std::uint32_t>(l); };
    for (std::uint64_t k = 0; k < intervals.size(); ++k) {
        const auto& i = intervals[k];
        // Enters outermost first; leaves innermost first, deeper functions before their callers.
        steps.push_back({i.begin, 2, layer(i.layer) << 24 | i.depth, k});
        if (i.end > i.begin)
            steps.push_back({i.end, 0, (3 - layer(i.layer)) << 24 | (0xffffffu - i.depth), k});
    }
    for (const auto k : points) steps.push_back({events[k].time, 1, 0, k});
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
        return std::tie(a.time, a.phase, a.order) < std::tie(b.time, b.phase, b.order);
    });
    for (const auto& s : steps) {
        if (s.phase == 1) {
            point(events[s.item]);
            continue;
        }
        const auto& i = intervals[s.item];
        if (s.phase == 2) {
            enter(i);
            if (i.end == i.begin) leave(i, counts); // an instant: its entry and exit at once
        } else {
            leave(i, counts);
        }
    }
}

/// Sets each rooted collective's root: the k-th rooted collective of a communicator is the same
/// operation on each of its tasks, and its root is the task whose call says so, named by its rank
/// in the communicator.
void find_roots(std::vector<std::vector<Call>>& calls, const std::vector<std::uint32_t>& task_of,
                const Communicators& comms) {
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<Call*>> sequence;
    for (std::size_t t = 0; t < calls.size(); ++t) {
        for (auto& c : calls[t]) {
            const auto call = mpi_call_by_id(c.id);
            if (c.attributes && call && call->rooted)
                sequence[{c.attributes->communicator, task_of[t]}].push_back(&c);
        }
    }
    std::map<std::pair<std::uint64_t, std::size_t>, std::uint32_t> root_task;
    for (const auto& [key, list] : sequence)
        for (std::size_t k = 0; k < list.size(); ++k)
            if (list[k]->attributes->is_root) root_task[{key.first, k}] = key.second;
    for (auto& [key, list] : sequence) {
        const auto& members = comms.tasks[comms.of(key.first)];
        for (std::size_t k = 0; k < list.size(); ++k) {
            const auto root = root_task.find({key.first, k});
            if (root == root_task.end()) continue;
            const auto rank = std::find(members.begin(), members.end(), root->second + 1);
            if (rank != members.end())
                list[k]->root = static_cast<std::uint32_t>(rank - members.begin());
        }
    }
}

/// Each thread's message halves by call.
using CallHalves = std::vector<std::vector<std::vector<Half>>>;

/// Places each message in the calls that send, post and complete it (call_roles.hpp's rule, as
/// the replay places it); counts in `counts` those it cannot place.
CallHalves place_messages(const Otf2Writer::Held& h, const std::vector<std::vector<Call>>& calls,
                          Otf2WriteCounts& counts) {
    CallHalves halves(calls.size());
    for (std::size_t t = 0; t < calls.size(); ++t) halves[t].resize(calls[t].size());
    for (std::uint64_t m = 0; m < h.comms.size(); ++m) {
        const auto& r = h.comms[m];
        const auto from = h.thread(r.sender), to = h.thread(r.receiver);
        const auto send = playing(calls[from], r.logical_send, Role::send);
        const auto post = playing(calls[to], r.logical_recv, Role::post);
        const auto done = playing(calls[to], r.physical_recv, Role::complete);
        if (send == k_no_call || done == k_no_call) {
            ++counts.messages_left_out;
            continue;
        }
        const auto tag = static_cast<std::uint32_t>(r.tag);
        const auto send_class = call_class(calls[from][send].id);
        const bool immediate =
            send_class == CallClass::immediate_send || send_class == CallClass::persistent_start;
        halves[from][send].push_back(
            {immediate ? Half::Kind::isend : Half::Kind::send, h.task_of[to], tag, r.size, m});
        if (post == done || post == k_no_call) {
            halves[to][done].push_back({Half::Kind::recv, h.task_of[from], tag, r.size, m});
        } else {
            halves[to][post].push_back({Half::Kind::irecv_request, 0, tag, r.size, m});
            halves[to][done].push_back({Half::Kind::irecv, h.task_of[from], tag, r.size, m});
        }
        ++counts.messages;
    }
    return halves;
}

/// An archive's three parts (anchor, definitions, folder of locations), written under a temporary
/// name beside the anchor and put in place by commit(); without it, removed.
class ArchiveFiles {
  public:
    explicit ArchiveFiles(const std::string& anchor) : anchor_(anchor) {
        const fs::path path(anchor);
        folder_ = path.parent_path().empty() ? fs::path(".") : path.parent_path();
        name_ = path.stem().string();
        partial_ = fmt::format(".{}.partial-{}", name_, ::getpid());
        // An earlier archive of the name is replaced; files of its parts' names that are not one
        // are left alone.
        std::error_code error;
        replaces_ = fs::exists(path, error);
        for (const auto& p : parts(name_)) {
            if (!replaces_ && fs::exists(p, error))
                throw OutputError(fmt::format("{}: {} is in the way: the archive's definitions "
                                              "and folder go beside its anchor, under its name",
                                              anchor, p.string()));
        }
    }
    ~ArchiveFiles() {
        if (committed_) return;
        std::error_code error;
        for (const auto& p : parts(partial_)) fs::remove_all(p, error);
    }
    ArchiveFiles(const ArchiveFiles&) = delete;
    ArchiveFiles& operator=(const ArchiveFiles&) = delete;

    /// Where the library writes: the folder and the temporary archive name.
    const fs::path& folder() const { return folder_; }
    const std::string& partial_name() const { return partial_; }

    void commit() {
        try {
            const auto from = parts(partial_), to = parts(name_);
            if (replaces_)
                for (const auto& p : to) fs::remove_all(p);
            for (std::size_t k = 0; k < from.size(); ++k) fs::rename(from[k], to[k]);
            committed_ = true;
        } catch (const fs::filesystem_error& e) {
            throw OutputError(fmt::format("{}: cannot write: {}", anchor_, e.code().message()));
        }
    }

  private:
    std::array<fs::path, 3> parts(const std::string& name) const {
        return {folder_ / (name + ".otf2"), folder_ / (name + ".def"), folder_ / name};
    }

    std::string anchor_;
    fs::path folder_;
    std::string name_, partial_;
    bool replaces_ = false, committed_ = false;
};

/// The library's archive handle, closed on every path.
struct OpenArchive {
    OTF2_Archive* archive;
    ~OpenArchive() {
        if (archive) OTF2_Archive_Close(archive);
    }
};

/// The machine, its nodes (the header's), a process per task, a CPU-thread location per thread
/// (named by the .row); returns each task's first location, its MPI rank's.
std::vector<std::uint64_t> write_locations(OTF2_GlobalDefWriter* g, const ParaverHeader& header,
                                           const std::vector<std::uint32_t>& task_of,
                                           const std::vector<std::string>& thread_names,
                                           const std::vector<std::uint64_t>& events,
                                           const StringRef& string, const Check& check) {
    const auto& tasks = header.applications[0].tasks;
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, string("machine"), string("machine"),
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "the system tree");
    std::map<std::uint32_t, OTF2_SystemTreeNodeRef> nodes;
    for (const auto& task : tasks) {
        const auto [it, added] =
            nodes.try_emplace(task.node, static_cast<OTF2_SystemTreeNodeRef>(nodes.size() + 1));
        if (added)
            check(OTF2_GlobalDefWriter_WriteSystemTreeNode(
                      g, it->second, string(fmt::format("node {}", task.node)), string("node"), 0),
                  "the system tree");
    }
    for (std::uint32_t task = 0; task < tasks.size(); ++task)
        check(OTF2_GlobalDefWriter_WriteLocationGroup(
                  g, task, string(fmt::format("MPI Rank {}", task)),
                  OTF2_LOCATION_GROUP_TYPE_PROCESS, nodes.at(tasks[task].node),
                  OTF2_UNDEFINED_LOCATION_GROUP),
              "a process");
    std::vector<std::uint64_t> rank_locations;
    for (std::size_t t = 0; t < task_of.size(); ++t) {
        if (t == 0 || task_of[t - 1] != task_of[t]) rank_locations.push_back(t);
        const std::string name =
            t < thread_names.size()
                ? thread_names[t]
                : fmt::format("THREAD 1.{}.{}", task_of[t] + 1, t - rank_locations.back() + 1);
        check(OTF2_GlobalDefWriter_WriteLocation(g, t, string(name), OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 events[t], task_of[t]),
              "a location");
    }
    return rank_locations;
}

/// MPI's COMM_LOCATIONS group (the ranks' locations) and a COMM_GROUP group and communicator per
/// communicator.
void write_communicators(OTF2_GlobalDefWriter* g, const Communicators& comms,
                         const std::vector<std::uint64_t>& rank_locations, const StringRef& string,
                         const Check& check) {
    check(OTF2_GlobalDefWriter_WriteGroup(
              g, 0, string("MPI_COMM_WORLD locations"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
              static_cast<std::uint32_t>(rank_locations.size()), rank_locations.data()),
          "the MPI ranks");
    for (std::size_t c = 0; c < comms.tasks.size(); ++c) {
        std::vector<std::uint64_t> ranks;
        for (const auto task : comms.tasks[c]) ranks.push_back(task - 1);
        const std::string name = c == comms.world
                                     ? std::string("MPI_COMM_WORLD")
                                     : fmt::format("MPI communicator {}", comms.ids[c]);
        check(OTF2_GlobalDefWriter_WriteGroup(
                  g, static_cast<OTF2_GroupRef>(c + 1), string(name), OTF2_GROUP_TYPE_COMM_GROUP,
                  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(ranks.size()),
                  ranks.data()),
              "a communicator");
        check(OTF2_GlobalDefWriter_WriteComm(g, static_cast<OTF2_CommRef>(c), string(name),
                                             static_cast<OTF2_GroupRef>(c + 1), OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE),
              "a communicator");
    }
}

} // namespace

Otf2WriteCounts Otf2Writer::close() {
    Held& h = *held_;
    const std::size_t threads = h.task_of.size();
    Otf2WriteCounts counts;
    counts.locations = threads;
    std::vector<std::vector<Call>> calls(threads);
    for (std::size_t t = 0; t < threads; ++t) calls[t] = calls_of(h.events[t]);
    const Communicators comms(header_);
    find_roots(calls, h.task_of, comms);
    const auto halves = place_messages(h, calls, counts);

    ArchiveFiles files(anchor_);
    begin_otf2_operation();
    const Check check = [&](OTF2_ErrorCode code, const char* what) {
        if (code == OTF2_SUCCESS) return;
        throw OutputError(fmt::format("{}: cannot write {}: {}", anchor_, what,
                                      otf2_library_message().empty()
                                          ? std::string(OTF2_Error_GetDescription(code))
                                          : otf2_library_message()));
    };
    OpenArchive open{OTF2_Archive_Open(files.folder().c_str(), files.partial_name().c_str(),
                                       OTF2_FILEMODE_WRITE, 1u << 22, 1u << 22,
                                       OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE)};
    OTF2_Archive* archive = open.archive;
    if (!archive) check(OTF2_ERROR_FILE_CAN_NOT_OPEN, "the archive");
    static OTF2_FlushCallbacks flush{
        [](void*, OTF2_FileType, OTF2_LocationRef, void*, bool) -> OTF2_FlushType {
            return OTF2_FLUSH;
        },
        [](void*, OTF2_FileType, OTF2_LocationRef) -> OTF2_TimeStamp { return 0; }};
    check(OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr), "the archive");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "the archive");
    check(OTF2_Archive_SetCreator(archive, fmt::format("popsim {}", k_version).c_str()),
          "the archive");

    // The events, location by location; then, knowing their counts, the definitions.
    check(OTF2_Archive_OpenEvtFiles(archive), "the event files");
    Definitions defs(labels_);
    std::vector<std::uint64_t> events(threads);
    for (std::size_t t = 0; t < threads; ++t) {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, t);
        if (!w) check(OTF2_ERROR_FILE_CAN_NOT_OPEN, "an event file");
        LocationWriter(w, defs, calls[t], halves[t], comms, check)
            .write(h.states[t], h.events[t], counts);
        check(OTF2_EvtWriter_GetNumberOfEvents(w, &events[t]), "an event file");
        counts.events += events[t];
        check(OTF2_Archive_CloseEvtWriter(archive, w), "an event file");
        std::vector<HeldState>().swap(h.states[t]); // written: freed at once
        std::vector<HeldEvent>().swap(h.events[t]);
    }
    check(OTF2_Archive_CloseEvtFiles(archive), "the event files");
    check(OTF2_Archive_OpenDefFiles(archive), "the definition files");
    for (std::size_t t = 0; t < threads; ++t) { // each location's (empty) local definitions
        OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive, t);
        if (!d) check(OTF2_ERROR_FILE_CAN_NOT_OPEN, "a definition file");
        check(OTF2_Archive_CloseDefWriter(archive, d), "a definition file");
    }
    check(OTF2_Archive_CloseDefFiles(archive), "the definition files");

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    if (!g) check(OTF2_ERROR_FILE_CAN_NOT_OPEN, "the global definitions");
    std::map<std::string, OTF2_StringRef> strings;
    const StringRef string = [&](std::string text) {
        const auto [it, added] =
            strings.try_emplace(text, static_cast<OTF2_StringRef>(strings.size()));
        if (added) check(OTF2_GlobalDefWriter_WriteString(g, it->second, text.c_str()), "a string");
        return it->second;
    };
    check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000u, 0, header_.end_time,
                                                    OTF2_UNDEFINED_TIMESTAMP),
          "the clock"); // ns since the trace's start
    const auto ranks =
        write_locations(g, header_, h.task_of, labels_.thread_names, events, string, check);
    defs.write(g, string, check);
    write_communicators(g, comms, ranks, string, check);
    check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "the global definitions");
    open.archive = nullptr;
    check(OTF2_Archive_Close(archive), "the archive");
    files.commit();
    held_ = std::make_unique<Held>(header_);
    return counts;
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/otf2_archive.hpp"

#include "replay/bytes.hpp"
#include "replay/extrae_events.hpp"
#include "replay/otf2_library.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <map>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <optional>
#include <otf2/otf2.h>
#include <queue>
#include <span>
#include <tuple>

namespace popsim::replay {

namespace {
/// A location's file in the archive's folder: ANCHOR without ".otf2", "/REF", `extension`.
std::string location_file(const std::string& anchor, std::uint64_t ref, const char* extension) {
    const auto folder = std::filesystem::path(anchor).replace_extension();
    return (folder / (std::to_string(ref) + extension)).string();
}
} // namespace

bool is_otf2_anchor(const std::string& path) {
    return path.ends_with(".otf2");
}

namespace {

// Every OTF2 event record kind (OTF2 3.0), with the name otf2-print gives it.
#define POPSIM_OTF2_RECORD_KINDS(X)                                                                \
    X(BufferFlush, "BUFFER_FLUSH")                                                                 \
    X(MeasurementOnOff, "MEASUREMENT_ON_OFF")                                                      \
    X(Enter, "ENTER")                                                                              \
    X(Leave, "LEAVE")                                                                              \
    X(MpiSend, "MPI_SEND")                                                                         \
    X(MpiIsend, "MPI_ISEND")                                                                       \
    X(MpiIsendComplete, "MPI_ISEND_COMPLETE")                                                      \
    X(MpiIrecvRequest, "MPI_IRECV_REQUEST")                                                        \
    X(MpiRecv, "MPI_RECV")                                                                         \
    X(MpiIrecv, "MPI_IRECV")                                                                       \
    X(MpiRequestTest, "MPI_REQUEST_TEST")                                                          \
    X(MpiRequestCancelled, "MPI_REQUEST_CANCELLED")                                                \
    X(MpiCollectiveBegin, "MPI_COLLECTIVE_BEGIN")                                                  \
    X(MpiCollectiveEnd, "MPI_COLLECTIVE_END")                                                      \
    X(OmpFork, "OMP_FORK")                                                                         \
    X(OmpJoin, "OMP_JOIN")                                                                         \
    X(OmpAcquireLock, "OMP_ACQUIRE_LOCK")                                                          \
    X(OmpReleaseLock, "OMP_RELEASE_LOCK")                                                          \
    X(OmpTaskCreate, "OMP_TASK_CREATE")                                                            \
    X(OmpTaskSwitch, "OMP_TASK_SWITCH")                                                            \
    X(OmpTaskComplete, "OMP_TASK_COMPLETE")                                                        \
    X(Metric, "METRIC")                                                                            \
    X(ParameterString, "PARAMETER_STRING")                                                         \
    X(ParameterInt, "PARAMETER_INT64")                                                             \
    X(ParameterUnsignedInt, "PARAMETER_UINT64")                                                    \
    X(RmaWinCreate, "RMA_WIN_CREATE")                                                              \
    X(RmaWinDestroy, "RMA_WIN_DESTROY")                                                            \
    X(RmaCollectiveBegin, "RMA_COLLECTIVE_BEGIN")                                                  \
    X(RmaCollectiveEnd, "RMA_COLLECTIVE_END")                                                      \
    X(RmaGroupSync, "RMA_GROUP_SYNC")                                                              \
    X(RmaRequestLock, "RMA_REQUEST_LOCK")                                                          \
    X(RmaAcquireLock, "RMA_ACQUIRE_LOCK")                                                          \
    X(RmaTryLock, "RMA_TRY_LOCK")                                                                  \
    X(RmaReleaseLock, "RMA_RELEASE_LOCK")                                                          \
    X(RmaSync, "RMA_SYNC")                                                                         \
    X(RmaWaitChange, "RMA_WAIT_CHANGE")                                                            \
    X(RmaPut, "RMA_PUT")                                                                           \
    X(RmaGet, "RMA_GET")                                                                           \
    X(RmaAtomic, "RMA_ATOMIC")                                                                     \
    X(RmaOpCompleteBlocking, "RMA_OP_COMPLETE_BLOCKING")                                           \
    X(RmaOpCompleteNonBlocking, "RMA_OP_COMPLETE_NON_BLOCKING")                                    \
    X(RmaOpTest, "RMA_OP_TEST")                                                                    \
    X(RmaOpCompleteRemote, "RMA_OP_COMPLETE_REMOTE")                                               \
    X(ThreadFork, "THREAD_FORK")                                                                   \
    X(ThreadJoin, "THREAD_JOIN")                                                                   \
    X(ThreadTeamBegin, "THREAD_TEAM_BEGIN")                                                        \
    X(ThreadTeamEnd, "THREAD_TEAM_END")                                                            \
    X(ThreadAcquireLock, "THREAD_ACQUIRE_LOCK")                                                    \
    X(ThreadReleaseLock, "THREAD_RELEASE_LOCK")                                                    \
    X(ThreadTaskCreate, "THREAD_TASK_CREATE")                                                      \
    X(ThreadTaskSwitch, "THREAD_TASK_SWITCH")                                                      \
    X(ThreadTaskComplete, "THREAD_TASK_COMPLETE")                                                  \
    X(ThreadCreate, "THREAD_CREATE")                                                               \
    X(ThreadBegin, "THREAD_BEGIN")                                                                 \
    X(ThreadWait, "THREAD_WAIT")                                                                   \
    X(ThreadEnd, "THREAD_END")                                                                     \
    X(CallingContextEnter, "CALLING_CONTEXT_ENTER")                                                \
    X(CallingContextLeave, "CALLING_CONTEXT_LEAVE")                                                \
    X(CallingContextSample, "CALLING_CONTEXT_SAMPLE")                                              \
    X(IoCreateHandle, "IO_CREATE_HANDLE")                                                          \
    X(IoDestroyHandle, "IO_DESTROY_HANDLE")                                                        \
    X(IoDuplicateHandle, "IO_DUPLICATE_HANDLE")                                                    \
    X(IoSeek, "IO_SEEK")                                                                           \
    X(IoChangeStatusFlags, "IO_CHANGE_STATUS_FLAGS")                                               \
    X(IoDeleteFile, "IO_DELETE_FILE")                                                              \
    X(IoOperationBegin, "IO_OPERATION_BEGIN")                                                      \
    X(IoOperationTest, "IO_OPERATION_TEST")                                                        \
    X(IoOperationIssued, "IO_OPERATION_ISSUED")                                                    \
    X(IoOperationComplete, "IO_OPERATION_COMPLETE")                                                \
    X(IoOperationCancelled, "IO_OPERATION_CANCELLED")                                              \
    X(IoAcquireLock, "IO_ACQUIRE_LOCK")                                                            \
    X(IoReleaseLock, "IO_RELEASE_LOCK")                                                            \
    X(IoTryLock, "IO_TRY_LOCK")                                                                    \
    X(ProgramBegin, "PROGRAM_BEGIN")                                                               \
    X(ProgramEnd, "PROGRAM_END")                                                                   \
    X(NonBlockingCollectiveRequest, "NON_BLOCKING_COLLECTIVE_REQUEST")                             \
    X(NonBlockingCollectiveComplete, "NON_BLOCKING_COLLECTIVE_COMPLETE")                           \
    X(CommCreate, "COMM_CREATE")                                                                   \
    X(CommDestroy, "COMM_DESTROY")                                                                 \
    X(Unknown, "UNKNOWN")

enum RecordKind : std::size_t {
#define POPSIM_KIND(name, label) k_##name,
    POPSIM_OTF2_RECORD_KINDS(POPSIM_KIND)
#undef POPSIM_KIND
        k_record_kinds
};
constexpr std::array<std::string_view, k_record_kinds> k_record_labels = {
#define POPSIM_LABEL(name, label) label,
    POPSIM_OTF2_RECORD_KINDS(POPSIM_LABEL)
#undef POPSIM_LABEL
};

/// What a region is to popsim (docs/file-formats.md, "OTF2 archives read").
enum class RegionKind : std::uint8_t {
    mpi,         // paradigm MPI: a call
    parallel,    // an OpenMP parallel region (role parallel)
    synchronise, // OpenMP synchronisation: barriers, critical, atomic, ordered, taskwait, flush,
                 // the lock API (Score-P's and Cube's OpenMP time)
    user,        // the program's own functions (paradigms user and compiler)
    other,       // the rest: computation (loops, single, master, tasks, the measurement system)
    state,       // a Paraver state, in an archive popsim wrote
};

struct Region {
    std::string name;
    RegionKind kind = RegionKind::other;
    std::uint32_t state = 0; // of a RegionKind::state
};

RegionKind region_kind(const std::string& name, OTF2_RegionRole role, OTF2_Paradigm paradigm) {
    switch (paradigm) {
    case OTF2_PARADIGM_MPI:
        return RegionKind::mpi;
    case OTF2_PARADIGM_USER:
    case OTF2_PARADIGM_COMPILER:
        return RegionKind::user;
    case OTF2_PARADIGM_OPENMP:
        break;
    default:
        return RegionKind::other;
    }
    switch (role) {
    case OTF2_REGION_ROLE_PARALLEL:
        return RegionKind::parallel;
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
    case OTF2_REGION_ROLE_CRITICAL:
    case OTF2_REGION_ROLE_ATOMIC:
    case OTF2_REGION_ROLE_ORDERED:
    case OTF2_REGION_ROLE_TASK_WAIT:
    case OTF2_REGION_ROLE_FLUSH:
        return RegionKind::synchronise;
    default:
        return name.starts_with("omp_") && name.ends_with("_lock") ? RegionKind::synchronise
                                                                   : RegionKind::other;
    }
}
struct Location {
    std::string name;
    OTF2_LocationType type = OTF2_LOCATION_TYPE_UNKNOWN;
    OTF2_LocationGroupRef group = 0;
};
struct Group {
    OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
    std::vector<std::uint64_t> members;
};

/// A hardware counter popsim attributes to useful time (Extrae's 42000050, 42000059).
struct Counter {
    bool instructions = false; // else cycles
    bool relative = false;     // values since the previous one, else accumulated
};

/// A Paraver event type's metric member, in an archive popsim wrote.
struct ParaverEventMember {
    std::string name;
    std::uint32_t type = 0;
    bool accumulated = false; // a counter: each value is the sum of the reads so far
};

/// The global definitions popsim uses.
struct Definitions {
    std::map<OTF2_StringRef, std::string> strings;
    std::map<OTF2_RegionRef, Region> regions;
    std::map<OTF2_LocationRef, Location> locations;
    std::map<OTF2_LocationGroupRef, OTF2_LocationGroupType> location_groups;
    std::map<OTF2_GroupRef, Group> groups;
    std::map<OTF2_CommRef, OTF2_GroupRef> comms;
    /// The counters popsim uses (PAPI_TOT_INS, PAPI_TOT_CYC) among metric members, and each
    /// metric class's or instance's members (an instance by its class's).
    std::map<OTF2_MetricMemberRef, Counter> counters;
    std::map<OTF2_MetricRef, std::vector<OTF2_MetricMemberRef>> metrics;
    std::map<OTF2_MetricMemberRef, ParaverEventMember> paraver_events;
    std::vector<EventValueLabel> value_labels; // the .pcf's names of event values
    std::uint64_t resolution = 0, offset = 0, length = 0;
    /// popsim wrote the archive (it has Paraver states): its states and events are read as
    /// written, not derived from its regions.
    bool from_paraver = false;

    std::string string(OTF2_StringRef ref) const {
        const auto it = strings.find(ref);
        return it == strings.end() ? std::string() : it->second;
    }
};

/// One MPI call of a thread, as its records left it.
struct Call {
    Time enter = 0, leave = 0;
    std::uint16_t id = 0;
    bool collective = false; // with the attributes of MpiCollectiveEnd
    std::uint64_t sent = 0, received = 0;
    OTF2_CommRef comm = 0;
    std::uint32_t root = OTF2_COLLECTIVE_ROOT_NONE; // as MpiCollectiveEnd gives it
};
/// A message's half: its call (an index into the thread's calls), its peer's rank in `comm`.
struct SendHalf {
    std::size_t call;
    std::uint32_t peer;
    OTF2_CommRef comm;
    std::uint32_t tag;
    std::uint64_t bytes;
};
struct ReceiveHalf {
    std::size_t post;     // the call that posted it (Recv, Irecv)
    std::size_t complete; // the call that completed it (Recv, Wait*)
    std::uint32_t peer;
    OTF2_CommRef comm;
    std::uint32_t tag;
    std::uint64_t bytes;
};

/// The counters' accumulated values on a thread at a time.
struct CounterRead {
    Time time;
    std::uint64_t instructions, cycles;
};

/// A span of a thread's time in a kind of region; `region`: OTF2's reference + 1.
struct Span {
    Time begin, end;
    std::uint64_t region;
};

/// What one location's events say.
struct ThreadRecords {
    OTF2_LocationRef location = 0;
    std::uint32_t rank = 0; // the world rank of its process
    std::vector<Call> calls;
    std::vector<std::pair<Time, bool>> measurement; // switched on (true) or off, in time order
    std::vector<CounterRead> counters;              // in time order, accumulated
    bool has_instructions = false, has_cycles = false;
    std::vector<SendHalf> sends;
    std::vector<ReceiveHalf> receives;
    std::map<std::uint64_t, std::size_t> posted;        // Irecv request -> its call
    std::map<std::string, std::uint64_t> unknown_calls; // MPI regions by name, not known
    std::uint64_t messages_outside_calls = 0;         // message records in no MPI region: left out
    std::vector<Span> parallel, synchronising;        // outermost, in time order
    std::vector<std::pair<Time, std::uint64_t>> user; // entries (region + 1) and exits (0)
    // In an archive popsim wrote: the Paraver states (`region`: the state) and events as written.
    std::vector<Span> states;
    std::vector<std::tuple<Time, std::uint32_t, std::uint64_t>> events;
    std::map<OTF2_MetricMemberRef, std::uint64_t> accumulated; // each counter's last value
    int mpi_depth = 0, parallel_depth = 0, synchronise_depth = 0, state_depth = 0;
    bool replayed = true;                // else a location left out, whose records are only counted
    std::uint64_t undefined_regions = 0; // entries and exits of regions the definitions lack
    Time first = std::numeric_limits<Time>::max(), last = 0;
    std::array<std::uint64_t, k_record_kinds> counts{}; // records of each kind
};

// A location's records as bytes (replay/bytes.hpp), between the processes of an MPI run
// (help_read_otf2): every field, in one list for writing and reading. A field added to
// ThreadRecords and not here would be lost when another process reads the location (the
// divided-read tests compare every archive read so with the lone reader's).
template <class Records, class F> void each_field(Records& t, F&& f) {
    f(t.location), f(t.rank), f(t.calls), f(t.measurement), f(t.counters), f(t.has_instructions);
    f(t.has_cycles), f(t.sends), f(t.receives), f(t.posted), f(t.unknown_calls);
    f(t.messages_outside_calls), f(t.parallel), f(t.synchronising), f(t.user), f(t.states);
    f(t.events), f(t.accumulated), f(t.mpi_depth), f(t.parallel_depth), f(t.synchronise_depth);
    f(t.state_depth), f(t.replayed), f(t.undefined_regions), f(t.first), f(t.last), f(t.counts);
}

template <class T> constexpr bool k_raw_array = false;
template <class T> constexpr bool k_raw_array<std::vector<T>> = std::is_trivially_copyable_v<T>;

/// A field: its bytes, an array of plain elements at once, else its elements one by one (pairs,
/// tuples, strings, maps).
template <class T> void write_field(ByteWriter& w, const T& field) {
    if constexpr (std::is_trivially_copyable_v<T>) {
        w.value(field);
    } else if constexpr (std::is_same_v<T, std::string> || k_raw_array<T>) {
        w.array(field);
    } else if constexpr (requires { std::tuple_size<T>::value; }) { // a pair or a tuple
        std::apply([&](const auto&... part) { (write_field(w, part), ...); }, field);
    } else {
        w.value(static_cast<std::uint64_t>(field.size()));
        for (const auto& element : field) write_field(w, element);
    }
}

template <class T> void read_field(ByteReader& r, T& field) {
    if constexpr (std::is_trivially_copyable_v<T>) {
        r.value(field);
    } else if constexpr (std::is_same_v<T, std::string> || k_raw_array<T>) {
        r.array(field);
    } else if constexpr (requires { std::tuple_size<T>::value; }) {
        std::apply([&](auto&... part) { (read_field(r, part), ...); }, field);
    } else { // a vector or a map, its elements one by one (each at least a byte)
        field.clear();
        for (auto n = r.count(1); n > 0; --n) {
            if constexpr (requires { typename T::key_type; }) {
                std::pair<typename T::key_type, typename T::mapped_type> element;
                read_field(r, element);
                field.insert(std::move(element));
            } else {
                typename T::value_type element{};
                read_field(r, element);
                field.push_back(std::move(element));
            }
        }
    }
}

} // namespace

struct Otf2Archive::Content {
    std::string path;
    Definitions defs;
    ParaverHeader header;
    std::vector<ThreadRecords> threads; // in the header's order: task by task, thread by thread
    std::vector<RecordOwner> owners;    // of each
    std::deque<ThreadRecords> others;   // the locations left out, for their counts
    std::uint64_t left_out_locations = 0;
    std::string left_out_kinds;

    /// A timestamp in ns since the run's start (exact for clocks up to 18 GHz).
    Time ns(OTF2_TimeStamp t) const {
        if (t <= defs.offset || defs.resolution == 0) return 0;
        const std::uint64_t ticks = t - defs.offset;
        return static_cast<Time>(ticks / defs.resolution * 1'000'000'000u +
                                 ticks % defs.resolution * 1'000'000'000u / defs.resolution);
    }
    [[noreturn]] void fail(const std::string& cause) const {
        throw TraceError(
            path, 0,
            otf2_library_message().empty()
                ? cause
                : fmt::format("{} (the OTF2 library: {})", cause, otf2_library_message()));
    }
    void check(OTF2_ErrorCode code, const char* what) const {
        if (code != OTF2_SUCCESS)
            fail(fmt::format("{}: {} ({})", what, OTF2_Error_GetName(code),
                             OTF2_Error_GetDescription(code)));
    }
};

namespace {

using Content = Otf2Archive::Content;

// Global definitions.
OTF2_CallbackCode on_clock(void* data, std::uint64_t resolution, std::uint64_t offset,
                           std::uint64_t length, std::uint64_t) {
    auto& d = static_cast<Content*>(data)->defs;
    d.resolution = resolution;
    d.offset = offset;
    d.length = length;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_string(void* data, OTF2_StringRef self, const char* text) {
    static_cast<Content*>(data)->defs.strings[self] = text ? text : "";
    return OTF2_CALLBACK_SUCCESS;
}
/// The number after `mark` at the start of `text`, if that is all there is.
std::optional<std::uint64_t> marked_number(std::string_view text, std::string_view mark) {
    if (!text.starts_with(mark)) return std::nullopt;
    text.remove_prefix(mark.size());
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

/// The event type and value of a value's name ("Paraver value 70000001:12").
std::optional<std::pair<std::uint32_t, std::uint64_t>> value_label(std::string_view text) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const auto type = marked_number(text.substr(0, colon), k_otf2_value_mark);
    const auto value = marked_number(text.substr(colon + 1), "");
    if (!type || !value || *type > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    return std::pair(static_cast<std::uint32_t>(*type), *value);
}

OTF2_CallbackCode on_region(void* data, OTF2_RegionRef self, OTF2_StringRef name,
                            OTF2_StringRef canonical, OTF2_StringRef, OTF2_RegionRole role,
                            OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef, std::uint32_t,
                            std::uint32_t) {
    auto& d = static_cast<Content*>(data)->defs;
    const auto text = d.string(name);
    if (const auto label = value_label(d.string(canonical))) {
        d.value_labels.push_back({label->first, label->second, text});
        d.regions[self] = {text, RegionKind::other};
        return OTF2_CALLBACK_SUCCESS;
    }
    const auto state = marked_number(d.string(canonical), k_otf2_state_mark);
    if (state && *state < 256 && paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM) {
        d.regions[self] = {text, RegionKind::state, static_cast<std::uint32_t>(*state)};
        d.from_paraver = true;
        return OTF2_CALLBACK_SUCCESS;
    }
    d.regions[self] = {text, region_kind(text, role, paradigm)};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_location_group(void* data, OTF2_LocationGroupRef self, OTF2_StringRef,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                    OTF2_LocationGroupRef) {
    static_cast<Content*>(data)->defs.location_groups[self] = type;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_location(void* data, OTF2_LocationRef self, OTF2_StringRef name,
                              OTF2_LocationType type, std::uint64_t, OTF2_LocationGroupRef group) {
    auto& d = static_cast<Content*>(data)->defs;
    d.locations[self] = {d.string(name), type, group};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_group(void* data, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
                           OTF2_Paradigm paradigm, OTF2_GroupFlag, std::uint32_t count,
                           const std::uint64_t* members) {
    static_cast<Content*>(data)->defs.groups[self] = {type, paradigm,
                                                      std::vector(members, members + count)};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm(void* data, OTF2_CommRef self, OTF2_StringRef, OTF2_GroupRef group,
                          OTF2_CommRef, OTF2_CommFlag) {
    static_cast<Content*>(data)->defs.comms[self] = group;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_metric_member(void* data, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                   OTF2_StringRef description, OTF2_MetricType,
                                   OTF2_MetricMode mode, OTF2_Type, OTF2_Base, std::int64_t,
                                   OTF2_StringRef) {
    auto& d = static_cast<Content*>(data)->defs;
    const auto text = d.string(name);
    const auto type = marked_number(d.string(description), k_otf2_event_mark);
    if (type && *type <= std::numeric_limits<std::uint32_t>::max()) {
        d.paraver_events[self] = {text, static_cast<std::uint32_t>(*type),
                                  (mode & OTF2_METRIC_VALUE_MASK) == OTF2_METRIC_VALUE_ACCUMULATED};
    }
    if (text != "PAPI_TOT_INS" && text != "PAPI_TOT_CYC") return OTF2_CALLBACK_SUCCESS;
    const auto value = mode & OTF2_METRIC_VALUE_MASK;
    if (value != OTF2_METRIC_VALUE_ACCUMULATED && value != OTF2_METRIC_VALUE_RELATIVE)
        return OTF2_CALLBACK_SUCCESS; // absolute values are no counts of work
    d.counters[self] = {text == "PAPI_TOT_INS", value == OTF2_METRIC_VALUE_RELATIVE};
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_metric_class(void* data, OTF2_MetricRef self, std::uint8_t count,
                                  const OTF2_MetricMemberRef* members, OTF2_MetricOccurrence,
                                  OTF2_RecorderKind) {
    static_cast<Content*>(data)->defs.metrics[self].assign(members, members + count);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_metric_instance(void* data, OTF2_MetricRef self, OTF2_MetricRef metric_class,
                                     OTF2_LocationRef, OTF2_MetricScope, std::uint64_t) {
    auto& d = static_cast<Content*>(data)->defs;
    d.metrics[self] = d.metrics[metric_class]; // classes come first (OTF2's definition order)
    return OTF2_CALLBACK_SUCCESS;
}

// Events of one location: `data` is its ThreadRecords, whose `content` the reader sets.
struct EventContext {
    const Content* content;
    ThreadRecords* thread;
};

EventContext& context(void* data) {
    return *static_cast<EventContext*>(data);
}

/// A record of kind `kind` at `time`: counted, and the thread's extent.
void saw(EventContext& c, OTF2_TimeStamp time, RecordKind kind) {
    const Time t = c.content->ns(time);
    c.thread->first = std::min(c.thread->first, t);
    c.thread->last = std::max(c.thread->last, t);
    ++c.thread->counts[kind];
}

/// The callback of a record kind popsim only counts.
template <RecordKind K, class... Rest>
OTF2_CallbackCode counted(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                          OTF2_AttributeList*, Rest...) {
    saw(context(data), time, K);
    return OTF2_CALLBACK_SUCCESS;
}
/// Registers `counted` for the kind `set` registers (its arguments deduced from `set`).
template <RecordKind K, class... Rest>
void count(OTF2_ErrorCode (*set)(OTF2_EvtReaderCallbacks*,
                                 OTF2_CallbackCode (*)(OTF2_LocationRef, OTF2_TimeStamp,
                                                       std::uint64_t, void*, OTF2_AttributeList*,
                                                       Rest...)),
           OTF2_EvtReaderCallbacks* callbacks) {
    set(callbacks, &counted<K, Rest...>);
}

/// A region of `kind` entered (`entered`) or left at `t`: the outermost of its spans opens or
/// closes.
void nest(std::vector<Span>& spans, int& depth, bool entered, Time t, std::uint64_t region) {
    if (entered && depth++ == 0) spans.push_back({t, t, region});
    if (!entered && depth > 0 && --depth == 0) spans.back().end = t;
}

/// A region entered (`entered`) or left at `time` on the thread.
void region_edge(EventContext& c, OTF2_TimeStamp time, OTF2_RegionRef region, bool entered) {
    saw(c, time, entered ? k_Enter : k_Leave);
    const auto it = c.content->defs.regions.find(region);
    if (it == c.content->defs.regions.end()) {
        ++c.thread->undefined_regions;
        return;
    }
    const Time t = c.content->ns(time);
    const std::uint64_t value = entered ? std::uint64_t{region} + 1 : 0; // Extrae's values
    auto& th = *c.thread;
    switch (it->second.kind) {
    case RegionKind::parallel:
        nest(th.parallel, th.parallel_depth, entered, t, value);
        break;
    case RegionKind::synchronise:
        nest(th.synchronising, th.synchronise_depth, entered, t, 0);
        break;
    case RegionKind::user:
        th.user.emplace_back(t, value);
        break;
    case RegionKind::mpi: {
        if (!entered) {
            if (th.mpi_depth > 0 && --th.mpi_depth == 0) th.calls.back().leave = t;
            break;
        }
        if (th.mpi_depth++ > 0) break; // inside a call: its part
        auto name = std::string_view(it->second.name);
        if (name.starts_with("MPI_")) name.remove_prefix(4);
        const auto call = mpi_call_by_name(name);
        const auto id = marked_number(it->second.name, "MPI call "); // an id popsim writes so
        if (!call && !(id && *id <= std::numeric_limits<std::uint16_t>::max()))
            ++th.unknown_calls[it->second.name];
        th.calls.push_back(
            {.enter = t, .id = call ? call->id : static_cast<std::uint16_t>(id.value_or(0))});
        break;
    }
    case RegionKind::state:
        nest(th.states, th.state_depth, entered, t, it->second.state);
        break;
    case RegionKind::other:
        break;
    }
}

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
    region_edge(context(data), time, region, true);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
    region_edge(context(data), time, region, false);
    return OTF2_CALLBACK_SUCCESS;
}

/// The call the thread is in, for a record inside it; nullopt outside every MPI call.
std::optional<std::size_t> current_call(const EventContext& c) {
    if (c.thread->mpi_depth == 0 || c.thread->calls.empty()) return std::nullopt;
    return c.thread->calls.size() - 1;
}

/// A message sent from the call the thread is in (MpiSend, MpiIsend).
void sent(EventContext& c, std::uint32_t receiver, OTF2_CommRef comm, std::uint32_t tag,
          std::uint64_t bytes) {
    if (const auto call = current_call(c))
        c.thread->sends.push_back({*call, receiver, comm, tag, bytes});
    else
        ++c.thread->messages_outside_calls;
}

OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                          OTF2_AttributeList*, std::uint32_t receiver, OTF2_CommRef comm,
                          std::uint32_t tag, std::uint64_t bytes) {
    auto& c = context(data);
    saw(c, time, k_MpiSend);
    sent(c, receiver, comm, tag, bytes);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                           OTF2_AttributeList*, std::uint32_t receiver, OTF2_CommRef comm,
                           std::uint32_t tag, std::uint64_t bytes, std::uint64_t) {
    auto& c = context(data);
    saw(c, time, k_MpiIsend);
    sent(c, receiver, comm, tag, bytes);
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                          OTF2_AttributeList*, std::uint32_t sender, OTF2_CommRef comm,
                          std::uint32_t tag, std::uint64_t bytes) {
    auto& c = context(data);
    saw(c, time, k_MpiRecv);
    if (const auto call = current_call(c))
        c.thread->receives.push_back({*call, *call, sender, comm, tag, bytes});
    else
        ++c.thread->messages_outside_calls;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                                   OTF2_AttributeList*, std::uint64_t request) {
    auto& c = context(data);
    saw(c, time, k_MpiIrecvRequest);
    if (const auto call = current_call(c)) c.thread->posted[request] = *call;
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                           OTF2_AttributeList*, std::uint32_t sender, OTF2_CommRef comm,
                           std::uint32_t tag, std::uint64_t bytes, std::uint64_t request) {
    auto& c = context(data);
    saw(c, time, k_MpiIrecv);
    const auto call = current_call(c);
    if (!call) {
        ++c.thread->messages_outside_calls;
        return OTF2_CALLBACK_SUCCESS;
    }
    const auto posted = c.thread->posted.find(request);
    const std::size_t post = posted == c.thread->posted.end() ? *call : posted->second;
    if (posted != c.thread->posted.end()) c.thread->posted.erase(posted);
    c.thread->receives.push_back({post, *call, sender, comm, tag, bytes});
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t,
                                    void* data, OTF2_AttributeList*, OTF2_CollectiveOp,
                                    OTF2_CommRef comm, std::uint32_t root, std::uint64_t sent,
                                    std::uint64_t received) {
    auto& c = context(data);
    saw(c, time, k_MpiCollectiveEnd);
    const auto call = current_call(c);
    if (!call) return OTF2_CALLBACK_SUCCESS;
    auto& x = c.thread->calls[*call];
    x.collective = true;
    x.comm = comm;
    x.sent = sent;
    x.received = received;
    x.root = root; // a rank of `comm`, or OTF2's none / self
    return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_metric(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                            OTF2_AttributeList*, OTF2_MetricRef metric, std::uint8_t count,
                            const OTF2_Type* types, const OTF2_MetricValue* values) {
    auto& c = context(data);
    saw(c, time, k_Metric);
    const auto& d = c.content->defs;
    const auto members = d.metrics.find(metric);
    if (members == d.metrics.end()) return OTF2_CALLBACK_SUCCESS;
    auto& th = *c.thread;
    if (d.from_paraver) { // each value as the Paraver event it was written from
        for (std::size_t k = 0; k < std::min<std::size_t>(count, members->second.size()); ++k) {
            const auto member = d.paraver_events.find(members->second[k]);
            if (member == d.paraver_events.end() || types[k] != OTF2_TYPE_UINT64) continue;
            std::uint64_t value = values[k].unsigned_int;
            if (member->second.accumulated)
                value -= std::exchange(th.accumulated[member->first], values[k].unsigned_int);
            th.events.emplace_back(c.content->ns(time), member->second.type, value);
        }
        return OTF2_CALLBACK_SUCCESS;
    }
    CounterRead read = th.counters.empty() ? CounterRead{0, 0, 0} : th.counters.back();
    read.time = c.content->ns(time);
    bool any = false;
    for (std::size_t k = 0; k < std::min<std::size_t>(count, members->second.size()); ++k) {
        const auto counter = d.counters.find(members->second[k]);
        if (counter == d.counters.end()) continue;
        const std::uint64_t value =
            types[k] == OTF2_TYPE_INT64    ? static_cast<std::uint64_t>(values[k].signed_int)
            : types[k] == OTF2_TYPE_DOUBLE ? static_cast<std::uint64_t>(values[k].floating_point)
                                           : values[k].unsigned_int;
        auto& total = counter->second.instructions ? read.instructions : read.cycles;
        total = counter->second.relative ? total + value : value;
        (counter->second.instructions ? th.has_instructions : th.has_cycles) = true;
        any = true;
    }
    if (any) th.counters.push_back(read);
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_measurement(OTF2_LocationRef, OTF2_TimeStamp time, std::uint64_t, void* data,
                                 OTF2_AttributeList*, OTF2_MeasurementMode mode) {
    auto& c = context(data);
    saw(c, time, k_MeasurementOnOff);
    c.thread->measurement.emplace_back(c.content->ns(time), mode == OTF2_MEASUREMENT_ON);
    return OTF2_CALLBACK_SUCCESS;
}

/// Reads the archive's global definitions into `content.defs`.
void read_definitions(OTF2_Reader* reader, Content& content) {
    OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
    if (defs == nullptr) content.fail("its global definitions cannot be read");
    OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(callbacks, on_location_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(callbacks, on_metric_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(callbacks, on_metric_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(callbacks, on_metric_instance);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, callbacks, &content);
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    std::uint64_t read = 0;
    content.check(OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read),
                  "its global definitions");
    OTF2_Reader_CloseGlobalDefReader(reader, defs);
    if (content.defs.resolution == 0) content.fail("it defines no clock (ClockProperties)");
}

/// The locations popsim replays, as tasks of threads: the MPI ranks' processes (the order of
/// MPI's COMM_LOCATIONS group), else every process; each with its CPU threads, the rank's own
/// location first. Says in `content` what it leaves out.
std::vector<std::vector<OTF2_LocationRef>> choose_threads(Content& content) {
    const auto& d = content.defs;
    std::vector<OTF2_LocationGroupRef> processes;
    std::map<OTF2_LocationGroupRef, OTF2_LocationRef> first_of;
    for (const auto& [ref, g] : d.groups) {
        if (g.type != OTF2_GROUP_TYPE_COMM_LOCATIONS || g.paradigm != OTF2_PARADIGM_MPI) continue;
        for (const auto location : g.members) {
            const auto it = d.locations.find(location);
            if (it == d.locations.end())
                content.fail(fmt::format("MPI rank {} is location {}, which is not defined",
                                         processes.size(), location));
            processes.push_back(it->second.group);
            first_of[it->second.group] = location;
        }
        break;
    }
    if (processes.empty()) {
        for (const auto& [ref, type] : d.location_groups)
            if (type == OTF2_LOCATION_GROUP_TYPE_PROCESS) processes.push_back(ref);
    }
    std::map<OTF2_LocationGroupRef, std::size_t> task_of;
    for (std::size_t k = 0; k < processes.size(); ++k) task_of[processes[k]] = k;
    std::vector<std::vector<OTF2_LocationRef>> tasks(processes.size());
    std::map<std::string, std::uint64_t> left_out;
    for (const auto& [ref, location] : d.locations) {
        const auto task = task_of.find(location.group);
        if (location.type != OTF2_LOCATION_TYPE_CPU_THREAD || task == task_of.end()) {
            ++left_out[location.type == OTF2_LOCATION_TYPE_METRIC       ? "metric locations"
                       : location.type == OTF2_LOCATION_TYPE_CPU_THREAD ? "threads of no process"
                                                                        : "GPU streams"];
            continue;
        }
        auto& threads = tasks[task->second];
        const auto first = first_of.find(location.group);
        if (first != first_of.end() && first->second == ref)
            threads.insert(threads.begin(), ref);
        else
            threads.push_back(ref);
    }
    for (const auto& [kind, count] : left_out) {
        content.left_out_locations += count;
        content.left_out_kinds +=
            fmt::format("{}{} {}", content.left_out_kinds.empty() ? "" : ", ", count, kind);
    }
    return tasks;
}

/// A location and the records its events fill.
using LocationRecords = std::pair<OTF2_LocationRef, ThreadRecords*>;

/// Reads the events of `locations` through `reader`, which reads no other.
void read_locations(OTF2_Reader* reader, const Content& content,
                    std::span<const LocationRecords> locations) {
    for (const auto& [ref, thread] : locations)
        content.check(OTF2_Reader_SelectLocation(reader, ref), "selecting a location");
    const bool local_definitions = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
    content.check(OTF2_Reader_OpenEvtFiles(reader), "opening its event files");
    const std::unique_ptr<OTF2_EvtReaderCallbacks, decltype(&OTF2_EvtReaderCallbacks_Delete)> owned(
        OTF2_EvtReaderCallbacks_New(), &OTF2_EvtReaderCallbacks_Delete);
    OTF2_EvtReaderCallbacks* callbacks = owned.get();
#define POPSIM_COUNT(name, label)                                                                  \
    count<k_##name>(OTF2_EvtReaderCallbacks_Set##name##Callback, callbacks);
    POPSIM_OTF2_RECORD_KINDS(POPSIM_COUNT)
#undef POPSIM_COUNT
    OTF2_EvtReaderCallbacks_SetEnterCallback(callbacks, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(callbacks, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(callbacks, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(callbacks, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(callbacks, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(callbacks, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(callbacks, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(callbacks, on_collective_end);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(callbacks, on_measurement);
    OTF2_EvtReaderCallbacks_SetMetricCallback(callbacks, on_metric);
    for (const auto& [ref, thread] : locations) {
        const auto where =
            fmt::format("location {} ({})", ref, content.defs.locations.at(ref).name);
        if (local_definitions) { // the mappings from local to global references, if any
            // Without its file a location's references would be read as global ones: other
            // numbers and messages that match nothing, so a missing file is refused, as a
            // missing .evt is.
            const auto file = location_file(content.path, ref, ".def");
            if (!std::filesystem::exists(file))
                content.fail(fmt::format("{}: its definitions file {} is missing", where, file));
            if (OTF2_DefReader* local = OTF2_Reader_GetDefReader(reader, ref)) {
                std::uint64_t read = 0;
                const auto code = OTF2_Reader_ReadAllLocalDefinitions(reader, local, &read);
                OTF2_Reader_CloseDefReader(reader, local);
                if (code != OTF2_SUCCESS)
                    content.fail(fmt::format("{}: its definitions: {} ({})", where,
                                             OTF2_Error_GetName(code),
                                             OTF2_Error_GetDescription(code)));
            }
        }
        OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, ref);
        if (events == nullptr) content.fail(fmt::format("{}: its events cannot be read", where));
        EventContext context{&content, thread};
        OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks, &context);
        std::uint64_t read = 0;
        const auto code = OTF2_Reader_ReadAllLocalEvents(reader, events, &read);
        OTF2_Reader_CloseEvtReader(reader, events);
        if (code != OTF2_SUCCESS)
            content.fail(fmt::format("{}: its events: {} ({})", where, OTF2_Error_GetName(code),
                                     OTF2_Error_GetDescription(code)));
        // Regions still open at the location's last record end there (a cut archive).
        if (thread->mpi_depth > 0) thread->calls.back().leave = thread->last;
        if (thread->parallel_depth > 0) thread->parallel.back().end = thread->last;
        if (thread->synchronise_depth > 0) thread->synchronising.back().end = thread->last;
        if (thread->state_depth > 0) thread->states.back().end = thread->last;
        if (!thread->replayed) { // counted alone
            thread->calls.clear();
            thread->sends.clear();
            thread->receives.clear();
        }
    }
    if (local_definitions) OTF2_Reader_CloseDefFiles(reader);
    OTF2_Reader_CloseEvtFiles(reader);
}

using ReaderHandle = std::unique_ptr<OTF2_Reader, decltype(&OTF2_Reader_Close)>;
ReaderHandle open_archive(Content& content);

/// Every location, the chosen threads' and the others' (their records only counted), in reference
/// order: the same list on every process that reads the archive.
std::vector<LocationRecords> all_locations(Content& content) {
    std::map<OTF2_LocationRef, ThreadRecords*> chosen;
    for (auto& thread : content.threads) chosen[thread.location] = &thread;
    std::vector<LocationRecords> all;
    for (const auto& [ref, location] : content.defs.locations) {
        const auto it = chosen.find(ref);
        ThreadRecords* thread = it != chosen.end() ? it->second : &content.others.emplace_back();
        thread->location = ref;
        thread->replayed = it != chosen.end();
        all.emplace_back(ref, thread);
    }
    return all;
}

/// Reads the events of `locations` in parallel: they are shared out among readers of their own
/// (the library's readers are independent of each other), each filling its locations' records.
void read_here(const Content& content, std::span<const LocationRecords> locations) {
    const std::size_t n = locations.size();
    const std::size_t shares = std::min<std::size_t>(
        n, static_cast<std::size_t>(oneapi::tbb::this_task_arena::max_concurrency()));
    oneapi::tbb::parallel_for(std::size_t{0}, shares, [&](std::size_t k) {
        Content own; // each reader reads the definitions itself: small against the events
        own.path = content.path;
        const auto reader = open_archive(own);
        read_locations(reader.get(), content,
                       locations.subspan(k * n / shares, (k + 1) * n / shares - k * n / shares));
    });
}

/// Part `p` of `parts` of the locations, as the reader and its helpers divide them: contiguous,
/// of equal counts.
std::pair<std::size_t, std::size_t> part_of(std::size_t locations, std::size_t p,
                                            std::size_t parts) {
    return {p * locations / parts, (p + 1) * locations / parts};
}

/// A helper's answer: its locations' records, or the error that stopped it.
constexpr std::uint8_t k_records = 0, k_error = 1;
std::string answer_bytes(std::span<const LocationRecords> locations) {
    std::string bytes;
    ByteWriter w(bytes);
    w.value(k_records);
    w.value(static_cast<std::uint64_t>(locations.size()));
    for (const auto& [ref, thread] : locations)
        each_field(*thread, [&](const auto& field) { write_field(w, field); });
    return bytes;
}
std::string error_bytes(const TraceError& e) {
    std::string bytes;
    ByteWriter w(bytes);
    w.value(k_error);
    w.value(e.line());
    w.text(e.cause());
    return bytes;
}

/// A helper's answer into the records of `locations`; its error thrown as the reader's own.
void take_answer(const std::string& bytes, const Content& content,
                 std::span<const LocationRecords> locations) {
    ByteReader r(bytes);
    if (r.value<std::uint8_t>() == k_error) {
        const auto line = r.value<std::uint64_t>();
        std::string cause;
        r.array(cause);
        throw TraceError(content.path, line, cause);
    }
    if (r.value<std::uint64_t>() != locations.size())
        content.fail("another process of the MPI run read other locations of the archive");
    for (const auto& [ref, thread] : locations)
        each_field(*thread, [&](auto& field) { read_field(r, field); });
    if (!r.done()) content.fail("another process of the MPI run answered more than was asked");
}

/// Reads the events of every location: the chosen threads', and the others' to count them; with
/// helpers, a part of the locations each (help_read_otf2), asked before this process reads its own.
void read_events(Content& content, ReadHelpers* helpers) {
    const auto all = all_locations(content);
    const std::uint32_t helped_by = helpers ? helpers->count() : 0;
    const auto part = [&](std::size_t p) {
        const auto [begin, end] = part_of(all.size(), p, helped_by + 1);
        return std::span(all).subspan(begin, end - begin);
    };
    for (std::uint32_t h = 0; h < helped_by; ++h) {
        const auto [begin, end] = part_of(all.size(), h + 1, helped_by + 1);
        helpers->ask(h, {.begin = begin, .end = end, .text_size = all.size()});
    }
    // Every answer is taken, also after an error (a helper waits for nothing else).
    std::exception_ptr error;
    try {
        read_here(content, part(0));
    } catch (...) {
        error = std::current_exception();
    }
    for (std::uint32_t h = 0; h < helped_by; ++h) {
        const auto bytes = helpers->answer(h);
        try {
            if (!error) take_answer(bytes, content, part(h + 1));
        } catch (...) {
            error = std::current_exception();
        }
    }
    if (error) std::rethrow_exception(error);
}

/// The group of `comm`, or nullptr when the definitions lack either.
const Group* group_of(const Definitions& d, OTF2_CommRef comm) {
    const auto c = d.comms.find(comm);
    if (c == d.comms.end()) return nullptr;
    const auto g = d.groups.find(c->second);
    return g == d.groups.end() ? nullptr : &g->second;
}

/// The world rank of rank `rank` of `comm` on a thread of world rank `self`.
std::uint32_t world_rank(const Definitions& d, OTF2_CommRef comm, std::uint32_t rank,
                         std::uint32_t self) {
    const Group* g = group_of(d, comm);
    if (g && g->type == OTF2_GROUP_TYPE_COMM_SELF) return self;
    if (g && g->type == OTF2_GROUP_TYPE_COMM_GROUP && rank < g->members.size())
        return static_cast<std::uint32_t>(g->members[rank]);
    return rank;
}

bool is_self(const Definitions& d, OTF2_CommRef comm) {
    const Group* g = group_of(d, comm);
    return g && g->type == OTF2_GROUP_TYPE_COMM_SELF;
}

/// The Paraver id of `comm` on world rank `rank`: OTF2's + 1; a communicator of one rank each
/// (COMM_SELF's group) gets one id per rank, after the others.
std::uint64_t paraver_communicator(const Definitions& d, OTF2_CommRef comm, std::uint32_t rank,
                                   std::uint32_t tasks) {
    if (!is_self(d, comm)) return std::uint64_t{comm} + 1;
    return d.comms.size() + 1 + std::uint64_t{comm} * tasks + rank;
}

/// The MPI communicators with their tasks (1-based), as Paraver's `c:` lines
/// (paraver_communicator's ids), the world's first as Extrae writes it.
std::vector<Communicator> communicators(const Definitions& d, std::uint32_t tasks) {
    std::vector<Communicator> out;
    for (const auto& [comm, group] : d.comms) {
        const auto g = d.groups.find(group);
        if (g == d.groups.end() || g->second.paradigm != OTF2_PARADIGM_MPI) continue;
        if (g->second.type == OTF2_GROUP_TYPE_COMM_SELF) {
            for (std::uint32_t rank = 0; rank < tasks; ++rank)
                out.push_back({1, paraver_communicator(d, comm, rank, tasks), {rank + 1}});
            continue;
        }
        if (g->second.type != OTF2_GROUP_TYPE_COMM_GROUP) continue;
        Communicator c{.application = 1, .id = std::uint64_t{comm} + 1, .tasks = {}};
        for (const auto rank : g->second.members)
            c.tasks.push_back(static_cast<std::uint32_t>(rank) + 1);
        std::sort(c.tasks.begin(), c.tasks.end());
        out.push_back(std::move(c));
    }
    std::stable_partition(out.begin(), out.end(),
                          [&](const Communicator& c) { return c.tasks.size() == tasks; });
    return out;
}

/// Opens the archive at `content.path` for reading in this thread and reads its definitions;
/// the library's messages go into `content.fail`'s errors, not to stderr.
ReaderHandle open_archive(Content& content) {
    // The library leaks what it allocated when it fails to open an anchor that is not one: the
    // anchor's chunk header ("\x03BOTF2" for a big-endian one) is checked first.
    char head[6] = {};
    std::ifstream anchor(content.path, std::ios::binary);
    if (!anchor.read(head, sizeof head) || std::string_view(head + 2, 4) != "OTF2")
        content.fail("not an OTF2 archive: its anchor file does not begin with OTF2's header");
    begin_otf2_operation();
    ReaderHandle reader(OTF2_Reader_Open(content.path.c_str()), &OTF2_Reader_Close);
    if (!reader) content.fail("not an OTF2 archive the OTF2 library can open");
    content.check(OTF2_Reader_SetSerialCollectiveCallbacks(reader.get()), "opening it");
    read_definitions(reader.get(), content);
    return reader;
}

/// Reads the archive's definitions and chooses the threads it replays: the header's tasks and
/// threads, each thread's location.
void lay_out_threads(Content& c) {
    const auto reader = open_archive(c);
    const auto tasks = choose_threads(c);
    auto& layout = c.header.applications.emplace_back().tasks;
    for (std::uint32_t task = 0; task < tasks.size(); ++task) {
        layout.push_back({static_cast<std::uint32_t>(tasks[task].size()), 0});
        for (std::uint32_t th = 0; th < tasks[task].size(); ++th) {
            ThreadRecords& t = c.threads.emplace_back();
            t.location = tasks[task][th];
            t.rank = task;
            c.owners.push_back({0, 1, task + 1, th + 1});
        }
    }
    if (c.threads.empty()) c.fail("it has no CPU thread of a process");
}

/// A helper's answer to one ask: the records of locations [begin, end) of the archive.
std::string read_for_reader(const std::string& anchor, const BodyRange& ask) {
    Content c;
    c.path = anchor;
    std::vector<LocationRecords> all;
    try {
        lay_out_threads(c);
        all = all_locations(c);
    } catch (const TraceError& e) {
        return error_bytes(TraceError(
            anchor, 0, fmt::format("another process of the MPI run cannot read {}", e.what())));
    }
    if (all.size() != ask.text_size || ask.begin > ask.end || ask.end > all.size()) {
        return error_bytes(
            TraceError(anchor, 0,
                       fmt::format("another process of the MPI run sees another archive at {} ({} "
                                   "locations, not {})",
                                   anchor, all.size(), ask.text_size)));
    }
    const auto share = std::span(all).subspan(ask.begin, ask.end - ask.begin);
    try {
        read_here(c, share);
    } catch (const TraceError& e) { // the lone reader's error, which the reader throws
        return error_bytes(e);
    } catch (const std::exception& e) { // out of memory
        return error_bytes(
            TraceError(anchor, 0, fmt::format("another process of the MPI run: {}", e.what())));
    }
    return answer_bytes(share);
}

} // namespace

void help_read_otf2(const std::string& anchor, ReadRequests& requests) {
    for (auto asks = requests.next(); !asks.empty(); asks = requests.next())
        for (const auto& ask : asks) requests.answer(read_for_reader(anchor, ask));
}

Otf2Archive::Otf2Archive(const std::string& anchor, ReadHelpers* helpers)
    : content_(std::make_unique<Content>()) {
    auto& c = *content_;
    c.path = anchor;
    lay_out_threads(c);
    read_events(c, helpers);
    for (const auto& t : c.threads) c.header.end_time = std::max(c.header.end_time, t.last);
    if (c.defs.from_paraver) // the Paraver trace's end, which its records may stop before
        c.header.end_time = std::max(c.header.end_time, c.ns(c.defs.offset + c.defs.length));
    c.header.communicators =
        communicators(c.defs, static_cast<std::uint32_t>(c.header.applications[0].tasks.size()));
    c.header.declared_communicators = static_cast<std::uint32_t>(c.header.communicators.size());
}

namespace {

/// The names an archive's definitions give what popsim reads as Paraver events and states.
TraceLabels labels_of(const Definitions& d) {
    TraceLabels labels;
    if (d.from_paraver) { // the Paraver trace's own names, as popsim wrote them
        for (const auto& [ref, region] : d.regions)
            if (region.kind == RegionKind::state)
                labels.states.emplace_back(region.state, region.name);
        for (const auto& [ref, member] : d.paraver_events)
            labels.event_types.emplace_back(member.type, member.name);
        labels.event_values = d.value_labels;
        return labels;
    }
    labels.event_types = {{extrae::k_omp_parallel, "Parallel (OMP)"},
                          {extrae::k_omp_barrier, "OpenMP synchronisation"},
                          {extrae::k_omp_outlined_function, "OpenMP parallel region"},
                          {extrae::k_user_function, "User function"}};
    for (const auto& [ref, region] : d.regions) {
        if (region.kind == RegionKind::parallel)
            labels.event_values.push_back({extrae::k_omp_outlined_function, ref + 1, region.name});
        if (region.kind == RegionKind::user)
            labels.event_values.push_back({extrae::k_user_function, ref + 1, region.name});
    }
    return labels;
}

} // namespace

TraceLabels otf2_labels(const std::string& anchor) {
    Content c;
    c.path = anchor;
    open_archive(c); // the definitions are all it needs
    return labels_of(c.defs);
}

TraceLabels Otf2Archive::labels() const {
    return labels_of(content_->defs);
}

Otf2Archive::~Otf2Archive() = default;

const ParaverHeader& Otf2Archive::header() const {
    return content_->header;
}

std::vector<Otf2LocationRecords> Otf2Archive::record_counts() const {
    const auto& c = *content_;
    std::vector<Otf2LocationRecords> out;
    const auto add = [&](const ThreadRecords& t) {
        Otf2LocationRecords l{t.location, c.defs.locations.at(t.location).name, {}};
        for (std::size_t k = 0; k < k_record_kinds; ++k)
            if (t.counts[k] > 0) l.records.emplace_back(k_record_labels[k], t.counts[k]);
        out.push_back(std::move(l));
    };
    for (const auto& t : c.threads) add(t);
    for (const auto& t : c.others) add(t);
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.location < b.location; });
    return out;
}

namespace {

/// A record of a thread or a message, for the merge by time.
/// A thread's records (or the messages) in time order, 16 bytes each: an item names its state or
/// its event's pairs, kept beside it (millions of records are held until the merge by time).
class RecordStream {
  public:
    enum class Kind : std::uint8_t { state, event, message };
    struct Item {
        Time time;
        std::uint64_t ref : 56; // a state's, the first pair's, a message's number
        std::uint64_t count : 6;
        std::uint64_t kind : 2;
    };
    struct State {
        Time begin, end;
        std::uint32_t value;
    };

    void state(Time begin, Time end, std::uint32_t value) {
        items_.push_back({begin, states_.size(), 0, static_cast<std::uint64_t>(Kind::state)});
        states_.push_back({begin, end, value});
    }
    void event(Time time, std::span<const EventPair> pairs) {
        items_.push_back(
            {time, pairs_.size(), pairs.size(), static_cast<std::uint64_t>(Kind::event)});
        pairs_.insert(pairs_.end(), pairs.begin(), pairs.end());
    }
    void message(Time time, std::size_t number) {
        items_.push_back({time, number, 0, static_cast<std::uint64_t>(Kind::message)});
    }
    /// In time order; records of one time in the order they were added.
    void sort() {
        std::stable_sort(items_.begin(), items_.end(),
                         [](const Item& a, const Item& b) { return a.time < b.time; });
    }

    const std::vector<Item>& items() const { return items_; }
    const State& state_of(const Item& i) const { return states_[i.ref]; }
    std::span<const EventPair> pairs_of(const Item& i) const {
        return {pairs_.data() + i.ref, static_cast<std::size_t>(i.count)};
    }

  private:
    std::vector<Item> items_;
    std::vector<State> states_;
    std::vector<EventPair> pairs_;
};
static_assert(sizeof(RecordStream::Item) == 16);

/// Whether `t` lies in one of `spans` (sorted, disjoint).
bool within(const std::vector<Span>& spans, Time t) {
    const auto next = std::upper_bound(spans.begin(), spans.end(), t,
                                       [](Time x, const Span& s) { return x < s.begin; });
    return next != spans.begin() && t < (next - 1)->end;
}

/// A thread's state outside its MPI calls: Tracing disabled where measurement was off,
/// Synchronization in OpenMP synchronisation, none for an OpenMP worker thread outside parallel
/// regions (idle, as Extrae leaves it), Running elsewhere (a worker in no parallel region, e.g. a
/// pthread, computes from its first record to its last).
class OutsideStates {
  public:
    OutsideStates(const ThreadRecords& t, bool worker) : t_(t), worker_(worker) {
        for (const auto& [time, on] : t.measurement) edges_.push_back(time);
        for (const auto* spans : {&t.parallel, &t.synchronising}) {
            for (const auto& s : *spans) {
                edges_.push_back(s.begin);
                edges_.push_back(s.end);
            }
        }
        std::sort(edges_.begin(), edges_.end());
    }

    /// Calls `state(begin, end, value)` for the pieces of [begin, end) with a state.
    template <class State> void emit(Time begin, Time end, State state) const {
        auto edge = std::upper_bound(edges_.begin(), edges_.end(), begin);
        while (begin < end) {
            const Time until = edge == edges_.end() ? end : std::min(end, *edge);
            if (const auto value = at(begin)) state(begin, until, *value);
            begin = until;
            while (edge != edges_.end() && *edge <= begin) ++edge;
        }
    }

  private:
    std::optional<std::uint32_t> at(Time x) const {
        const auto& m = t_.measurement;
        const auto last = std::upper_bound(m.begin(), m.end(), x,
                                           [](Time y, const auto& p) { return y < p.first; });
        if (last != m.begin() && !(last - 1)->second) return extrae::k_state_tracing_disabled;
        if (within(t_.synchronising, x)) return extrae::k_state_synchronization;
        if (worker_ && !t_.parallel.empty() && !within(t_.parallel, x)) return std::nullopt;
        return extrae::k_state_running;
    }

    const ThreadRecords& t_;
    bool worker_;
    std::vector<Time> edges_;
};

/// One thread's records in time order, as Extrae writes them: outside MPI calls its
/// OutsideStates, each call as its state between its entry event (with the collective's
/// attributes) and its exit event; measurement on/off (40000012), OpenMP parallel regions
/// (60000001 on the master, 60000018 on each thread, the region's reference + 1), OpenMP
/// synchronisation (60000005) and user functions (60000019, the region's reference + 1).
RecordStream thread_items(const Content& content, const ThreadRecords& t,
                          const RecordOwner& owner) {
    RecordStream out;
    if (t.first > t.last) return out;
    // Counters: each Running span's work, read at its end as Extrae reads them.
    const auto counters_at = [&](Time at) { // the latest read at or before `at`
        const auto after =
            std::upper_bound(t.counters.begin(), t.counters.end(), at,
                             [](Time x, const CounterRead& r) { return x < r.time; });
        return after == t.counters.begin() ? t.counters.front() : *(after - 1);
    };
    const auto state = [&](Time begin, Time end, std::uint32_t value) {
        if (end <= begin) return;
        out.state(begin, end, value);
        if (value != extrae::k_state_running || t.counters.empty()) return;
        const auto from = counters_at(begin), to = counters_at(end);
        std::array<EventPair, 2> read;
        std::size_t pairs = 0;
        if (t.has_instructions)
            read[pairs++] = {extrae::k_papi_total_instructions,
                             to.instructions - from.instructions};
        if (t.has_cycles) read[pairs++] = {extrae::k_papi_total_cycles, to.cycles - from.cycles};
        out.event(end, std::span(read.data(), pairs));
    };
    const OutsideStates outside_states(t, owner.thread > 1);
    // An archive popsim wrote has the Paraver trace's states and events as they were.
    const bool as_written = content.defs.from_paraver;
    const auto outside = [&](Time begin, Time end) {
        if (!as_written) outside_states.emit(begin, end, state);
    };
    const auto event = [&](Time time, std::uint32_t type, std::uint64_t value) {
        const EventPair pair{type, value};
        out.event(time, std::span(&pair, 1));
    };
    for (const auto& s : t.states) out.state(s.begin, s.end, static_cast<std::uint32_t>(s.region));
    if (!as_written) { // derived from the regions
        for (const auto& [time, switched_on] : t.measurement)
            event(time, extrae::k_tracing_on_off, switched_on ? 1 : 0);
        for (const auto& span : t.parallel) { // Extrae's: the region on the master, the function
            if (owner.thread == 1) {          // on every thread of the team
                event(span.begin, extrae::k_omp_parallel, 1);
                event(span.end, extrae::k_omp_parallel, 0);
            }
            event(span.begin, extrae::k_omp_outlined_function, span.region);
            event(span.end, extrae::k_omp_outlined_function, 0);
        }
        for (const auto& span : t.synchronising) {
            event(span.begin, extrae::k_omp_barrier, 1);
            event(span.end, extrae::k_omp_barrier, 0);
        }
        for (const auto& [time, value] : t.user) event(time, extrae::k_user_function, value);
    }
    Time at = t.first;
    for (const auto& call : t.calls) {
        const auto info = mpi_call_by_id(call.id);
        if (!info) continue; // counted below as computation
        outside(at, call.enter);
        std::vector<EventPair> entry{{info->event_type, call.id}};
        if (call.collective) {
            const bool root = call.root == OTF2_COLLECTIVE_ROOT_SELF ||
                              (call.root != OTF2_COLLECTIVE_ROOT_NONE &&
                               world_rank(content.defs, call.comm, call.root, t.rank) == t.rank);
            entry.push_back({extrae::k_collective_send_size, call.sent});
            entry.push_back({extrae::k_collective_recv_size, call.received});
            if (info->rooted) entry.push_back({extrae::k_collective_root, root ? 1u : 0u});
            entry.push_back(
                {extrae::k_collective_communicator,
                 paraver_communicator(
                     content.defs, call.comm, t.rank,
                     static_cast<std::uint32_t>(content.header.applications[0].tasks.size()))});
        }
        out.event(call.enter, entry);
        if (!as_written) state(call.enter, call.leave, info->state);
        event(call.leave, info->event_type, 0);
        at = call.leave;
    }
    outside(at, t.last);
    for (const auto& [time, type, value] : t.events) event(time, type, value);
    out.sort();
    return out;
}

/// Each message: the send and the receive matched in order per (sender, receiver,
/// communicator, tag), as MPI matches them; in the order of their sends.
std::vector<CommRecord> messages(const Content& content, std::uint64_t& unmatched) {
    using Key = std::tuple<std::uint32_t, std::uint32_t, OTF2_CommRef, std::uint32_t>;
    std::map<Key, std::deque<std::pair<std::size_t, std::size_t>>> sends; // (thread, send)
    const auto& d = content.defs;
    for (std::size_t th = 0; th < content.threads.size(); ++th) {
        const auto& t = content.threads[th];
        for (std::size_t k = 0; k < t.sends.size(); ++k) {
            const auto& s = t.sends[k];
            sends[{t.rank, world_rank(d, s.comm, s.peer, t.rank), s.comm, s.tag}].emplace_back(th,
                                                                                               k);
        }
    }
    std::vector<CommRecord> out;
    for (std::size_t th = 0; th < content.threads.size(); ++th) {
        const auto& t = content.threads[th];
        // MPI matches receives in the order they were posted, whatever order they complete in.
        auto receives = t.receives;
        std::stable_sort(
            receives.begin(), receives.end(),
            [](const ReceiveHalf& a, const ReceiveHalf& b) { return a.post < b.post; });
        for (const auto& r : receives) {
            auto& queue = sends[{world_rank(d, r.comm, r.peer, t.rank), t.rank, r.comm, r.tag}];
            if (queue.empty()) {
                ++unmatched;
                continue;
            }
            const auto [sender, k] = queue.front();
            queue.pop_front();
            const auto& from = content.threads[sender];
            const auto& send_call = from.calls[from.sends[k].call];
            const auto& post = t.calls[r.post];
            CommRecord c;
            c.sender = content.owners[sender];
            c.receiver = content.owners[th];
            c.logical_send = c.physical_send = send_call.enter;
            // Posted at a blocking receive's entry, at an Irecv's exit.
            c.logical_recv = r.post == r.complete ? post.enter : post.leave;
            c.physical_recv = t.calls[r.complete].leave;
            c.size = from.sends[k].bytes;
            c.tag = r.tag;
            out.push_back(c);
        }
    }
    for (const auto& [key, queue] : sends) unmatched += queue.size();
    std::stable_sort(out.begin(), out.end(), [](const CommRecord& a, const CommRecord& b) {
        return a.logical_send < b.logical_send;
    });
    return out;
}

} // namespace

void Otf2Archive::feed(RecordSink& sink, WarningLog& warnings) {
    auto& c = *content_;
    std::uint64_t unmatched = 0;
    const auto comms = messages(c, unmatched);
    std::map<std::string, std::uint64_t> unknown_calls;
    std::uint64_t other_threads = 0; // besides the first, in no OpenMP parallel region
    std::uint64_t undefined = 0, outside_calls = 0;
    for (std::size_t th = 0; th < c.threads.size(); ++th) {
        const auto& t = c.threads[th];
        undefined += t.undefined_regions;
        outside_calls += t.messages_outside_calls;
        for (const auto& [name, count] : t.unknown_calls) unknown_calls[name] += count;
        if (c.owners[th].thread > 1 && t.parallel.empty() && !c.defs.from_paraver) ++other_threads;
    }
    // Each thread's records, in parallel; what they were made from is freed at once (every
    // thread's records are held until the merge), its counts stay.
    std::vector<RecordStream> streams(c.threads.size() + 1);
    oneapi::tbb::parallel_for(std::size_t{0}, c.threads.size(), [&](std::size_t th) {
        auto& t = c.threads[th];
        streams[th] = thread_items(c, t, c.owners[th]);
        ThreadRecords counted;
        counted.location = t.location;
        counted.counts = t.counts;
        t = std::move(counted);
    });
    auto& message_stream = streams.back();
    for (std::size_t m = 0; m < comms.size(); ++m) message_stream.message(comms[m].logical_send, m);
    // Merged by time, as Extrae's merger writes a trace (ties: the lower stream first).
    using Head = std::pair<Time, std::size_t>;
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    std::vector<std::size_t> next(streams.size(), 0);
    for (std::size_t k = 0; k < streams.size(); ++k)
        if (!streams[k].items().empty()) heads.push({streams[k].items()[0].time, k});
    while (!heads.empty()) {
        const std::size_t k = heads.top().second;
        heads.pop();
        const auto& stream = streams[k];
        const auto& item = stream.items()[next[k]++];
        switch (static_cast<RecordStream::Kind>(item.kind)) {
        case RecordStream::Kind::state: {
            const auto& s = stream.state_of(item);
            sink.state({c.owners[k], s.begin, s.end, s.value});
            break;
        }
        case RecordStream::Kind::event:
            sink.event(c.owners[k], item.time, stream.pairs_of(item));
            break;
        case RecordStream::Kind::message:
            sink.comm(comms[item.ref]);
            break;
        }
        if (next[k] < stream.items().size()) heads.push({stream.items()[next[k]].time, k});
    }
    if (other_threads > 0) {
        warnings.add_many("otf2-threads-as-computation",
                          "threads besides the processes' first are in no OpenMP parallel region "
                          "(pthreads? their regions are not read from OTF2 yet): they count as "
                          "computing from their first record to their last",
                          other_threads, {});
    }
    if (c.left_out_locations > 0) {
        warnings.add("otf2-locations-left-out",
                     "OTF2 locations are neither CPU threads of an MPI rank nor of a process, "
                     "and are left out",
                     c.left_out_kinds);
    }
    for (const auto& [name, count] : unknown_calls) {
        warnings.add_many("otf2-unknown-mpi-calls",
                          "MPI calls popsim does not know are counted as computation", count,
                          {name});
    }
    if (outside_calls > 0) {
        warnings.add_many("otf2-messages-outside-calls",
                          "message records (MpiSend, MpiIsend, MpiRecv, MpiIrecv) lie in no MPI "
                          "call region and are left out: the replay has no call to attach them "
                          "to (APEX records HPX parcels so)",
                          outside_calls, {});
    }
    if (undefined > 0) {
        warnings.add_many("otf2-undefined-regions",
                          "region entries and exits name a region the definitions lack, and are "
                          "left out",
                          undefined, {});
    }
    if (unmatched > 0) {
        warnings.add_many("otf2-unmatched-messages",
                          "message halves (sends or receives) found no partner and are left out",
                          unmatched, {});
    }
}

} // namespace popsim::replay

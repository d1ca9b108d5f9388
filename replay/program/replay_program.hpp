// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The program popsim replays: per MPI task, the sequence of CPU bursts and MPI operations that
// Dimemas would replay after prv2dim's translation (docs/network-model.md), with the messages and
// collectives that connect the tasks.
//
// Translation rules (after prv2dim): a burst is the time outside MPI calls, from time 0 (the
// "not created" time before the first record counts) to the thread's last record; an MPI call
// becomes, in order, the receives it posts, the messages it sends, the receives it completes, its
// collective; MPI_Init ends with a barrier on MPI_COMM_WORLD. Messages come from the trace's
// communication records, so wildcard receives, Test/Waitany completions and cancelled requests
// replay exactly as they happened.
//
// Threads (docs/replay.md, "OpenMP threads"): each task replays its first thread and, when that
// thread opens OpenMP parallel regions or other threads call MPI, the task's other threads too.
// A parallel region becomes a fork barrier and a join barrier among the task's replay threads;
// in between, each thread replays its own work and MPI calls up to the moment it reached the
// region's implicit barrier in the trace.
#include "replay/program/openmp_regions.hpp"
#include "replay/trace.hpp"
#include "replay/warnings.hpp"

#include <boost/container/vector.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace popsim::replay {

enum class OpKind : std::uint8_t { burst, send, recv_post, recv_wait, collective };

using OpIndex = std::uint32_t;
using MessageIndex = std::uint32_t;
using CollectiveIndex = std::uint32_t;
inline constexpr std::uint32_t k_none = std::numeric_limits<std::uint32_t>::max();

/// Which members of a collective wait for which (ProgramOptions::collectives).
enum class CollectiveFlow : std::uint8_t {
    all_members, // every member leaves once the last has arrived (Allreduce, Barrier, ...)
    to_root,     // Gather, Gatherv, Reduce: the root waits for all, the others leave at once
    from_root,   // Bcast, Scatter, Scatterv: the others wait for the root, which leaves at once
};

/// How collectives synchronise their members in the replay.
enum class CollectiveSync : std::uint8_t {
    dimemas, // as Dimemas replays them (dimemas_flow): Reduce to its root, the others all (default)
    mpi,     // each waits only where its data flows (CollectiveFlow by call)
};

struct ProgramOptions {
    /// Sends of at least this many bytes use the rendezvous protocol (Dimemas -S 32k).
    std::uint64_t eager_limit_bytes = 32 * 1024;
    /// MPI_Init ends in a barrier, as prv2dim writes it (prv2dim -s disables it).
    bool init_barrier = true;
    /// Replay OpenMP worker threads and MPI calls of non-first threads; false replays each task's
    /// first thread only, its bursts spanning its parallel regions (prv2dim's translation).
    bool threads = true;
    /// Replay the spans where tracing was off on every thread as computation; false leaves them
    /// out, so the traced windows replay back to back (replay/traced_windows.hpp).
    bool whole_trace = false;
    CollectiveSync collectives = CollectiveSync::dimemas;
};

using ReplayThread =
    std::uint32_t; // dense: the replay threads of task 0 first, its first thread first

/// The program's bulk arrays: sized once and filled in parallel. Boost.Container's vector grows
/// without zero-filling (`default_init`), so each page is first touched by the thread that writes
/// it (zero-filling them took 0.09 s on one core on the 3.5 M-message benchmark).
template <class T> using ProgramArray = boost::container::vector<T>;

struct Message { // 32 bytes: millions of them. No member initialisers: see ProgramArray.
    std::uint64_t bytes;
    ReplayThread sender;
    ReplayThread receiver;
    std::uint32_t tag;
    std::uint32_t record; // index of the trace's communication record
    bool immediate_send;  // the sender never blocks (Isend, Bsend, ...)
    bool rendezvous;      // the transfer starts only once the receive is posted
};
static_assert(sizeof(Message) == 32 && std::is_trivially_default_constructible_v<Message>);

struct Collective {
    // Extrae MPI call id (8 = Barrier, 10 = Allreduce, ...); 0 for thread barriers.
    std::uint16_t call_id = 0;
    std::uint64_t communicator = 0;
    std::uint64_t send_bytes = 0; // the largest over the members
    std::uint64_t recv_bytes = 0;
    std::uint32_t root_task = k_none;
    std::uint32_t first_member = 0; // into ReplayProgram::collective_members
    std::uint32_t member_count = 0;
    /// An OpenMP fork or join among one task's threads: no network, it ends when the last arrives.
    bool thread_barrier = false;
    CollectiveFlow flow = CollectiveFlow::all_members;
};

struct ReplayProgram {
    std::uint32_t tasks = 0;
    std::vector<std::uint32_t> thread_task; // the MPI task of each replay thread
    std::vector<ThreadIndex> trace_thread;  // the trace thread each replay thread replays
    // Task k's replay threads are [task_first_thread[k], task_first_thread[k + 1]); the first is
    // its master (the task's first trace thread).
    std::vector<ReplayThread> task_first_thread;
    // Operations, struct-of-arrays (9 bytes each): replay thread k owns
    // [thread_first_op[k], thread_first_op[k + 1]).
    std::vector<OpIndex> thread_first_op;
    ProgramArray<OpKind> op_kind;
    // What an operation refers to: burst: its duration in burst_durations; send, recv_post: its
    // message; recv_wait: its wait list; collective: its collective.
    ProgramArray<std::uint32_t> op_ref;
    // The trace MPI call an operation comes from (k_none for bursts and thread barriers).
    ProgramArray<std::uint32_t> op_call;
    ProgramArray<Time> burst_durations; // measured CPU time of each burst
    ProgramArray<Message> messages;     // operations refer to them; message_ops() goes back
    // Wait list w completes wait_messages[wait_first[w] .. wait_first[w + 1]).
    ProgramArray<std::uint32_t> wait_first;
    ProgramArray<MessageIndex> wait_messages;
    std::vector<Collective> collectives;
    std::vector<OpIndex> collective_members; // the member ops of each collective
    WarningLog warnings;                     // records that match no call, and the like
    /// The spans left out of the replay (tracing off on every thread; empty with whole_trace).
    Intervals untraced;

    std::size_t op_count() const { return op_kind.size(); }
    Time burst_duration(OpIndex burst) const { return burst_durations[op_ref[burst]]; }
    /// Appends an operation to the last replay thread (for readers that build a program in order).
    OpIndex add_op(OpKind kind, std::uint32_t ref, std::uint32_t call) {
        op_kind.push_back(kind);
        op_ref.push_back(ref);
        op_call.push_back(call);
        return static_cast<OpIndex>(op_kind.size() - 1);
    }
    /// Sizes the messages, uninitialised: the caller writes them all.
    void resize_messages(std::size_t count) {
        messages.resize(count, boost::container::default_init);
    }
    OpIndex add_burst(Time duration) {
        burst_durations.push_back(duration);
        return add_op(OpKind::burst, static_cast<std::uint32_t>(burst_durations.size() - 1),
                      k_none);
    }
    std::uint32_t thread_count() const { return static_cast<std::uint32_t>(thread_task.size()); }
    ReplayThread master_thread(std::uint32_t task) const { return task_first_thread[task]; }
    OpIndex thread_end_op(ReplayThread thread) const { return thread_first_op[thread + 1]; }
    ReplayThread thread_of(OpIndex op) const;
    /// Whether collective member `op` is its collective's root task.
    bool is_root(OpIndex op) const {
        return thread_task[thread_of(op)] == collectives[op_ref[op]].root_task;
    }
    bool is_thread_barrier(OpIndex op) const {
        return op_kind[op] == OpKind::collective && collectives[op_ref[op]].thread_barrier;
    }
    /// Gives every task one replay thread (task k = thread k), for programs built without threads.
    void one_thread_per_task();
};

/// Where a message goes in the list of a call that completes several receives (MPI_Waitall):
/// prv2dim writes one wait record per message, by the time the trace received them, then in file
/// order (its InBlockComparison), and Dimemas completes them one at a time in that order
/// (engine.cpp, wait). Lists sort by this key; both program builders use it.
inline std::pair<Time, std::uint64_t> wait_order(Time physical_recv, std::uint64_t record) {
    return {physical_recv, record};
}

/// Each message's send, receive-post and receive-wait operation (k_none where the program has
/// none). The replay goes from operations to messages only; the dependency graph and the
/// simulated trace go back. Kept out of ReplayProgram: three threads writing them by message
/// while the program is built made its slowest pass twice as slow.
struct MessageOps {
    ProgramArray<OpIndex> send, post, wait;
};
MessageOps message_ops(const ReplayProgram& program);

/// The communicators of the `c:` lines, by id, with their tasks (0-based), and the one the
/// program takes for MPI_COMM_WORLD (the first with every task; without `c:` lines, 0 with every
/// task). Lines naming tasks the application lacks are left out (`foreign_task` lists them), with a
/// warning.
struct ProgramCommunicators {
    std::map<std::uint64_t, std::vector<std::uint32_t>> members;
    std::uint64_t world = 0;
    /// Each left-out line's communicator, and a task it lists that the application lacks.
    std::map<std::uint64_t, std::uint32_t> foreign_task;
};
ProgramCommunicators program_communicators(const ParaverHeader& header, std::uint32_t tasks,
                                           WarningLog* warnings);

/// Warnings of the translation that both programs, in memory and streaming, give: kind and
/// summary, and how each case is described.
struct ProgramWarning {
    std::string_view kind, summary;
};
inline constexpr ProgramWarning k_call_without_record{
    "calls-without-record",
    "sending or receiving calls have no communication record and replay without a message "
    "(normal for MPI_PROC_NULL partners, e.g. at the edges of a non-periodic halo exchange, and "
    "for messages cut in half by a trace cut; otherwise records were lost)"};
inline constexpr ProgramWarning k_collective_roots{
    "collective-roots",
    "members of rooted collectives name different roots; the first root named is taken"};
std::string call_without_record(std::uint16_t call_id, Time begin, const ThreadName& thread);
/// `sequence`: the collective's number on its communicator, from 1.
std::string collective_roots(std::uint16_t call_id, std::uint64_t sequence,
                             std::uint64_t communicator, std::uint32_t root_task,
                             std::uint32_t task);
/// A collective whose task `early_task` left it before `late_task` entered (0-based tasks).
std::string left_early(std::uint16_t call_id, std::uint32_t early_task, Time first_exit,
                       std::uint32_t late_task, Time last_entry);

/// Takes a member's collective attributes into `c`: the largest sizes and, as the root, the lowest
/// task naming itself one (the first named when members come in task order, as the in-memory
/// builder meets them). False when `task` names itself the root and a lower task already did
/// (warned as k_collective_roots).
bool take_member_attributes(Collective& c, std::uint32_t task, const CollectiveAttributes& attrs);

/// Where a rooted collective's data flows (Gather/Reduce: to the root, Bcast/Scatter: from it);
/// all_members for the others and for one whose root the trace does not mark.
CollectiveFlow data_flow(const Collective& collective);

/// How Dimemas synchronises a collective: MPI_Reduce with a marked root flows to the root
/// (prv2dim writes it root-synchronised: the others send their data and go on); every other
/// collective waits for its last member.
CollectiveFlow dimemas_flow(const Collective& collective);

/// How the program synchronises collective `c` (its call, root and, for thread barriers, kind
/// set) under `sync`: data_flow or dimemas_flow.
CollectiveFlow collective_flow(const Collective& c, CollectiveSync sync);

/// Whether, in the trace, a member of collective `c` left it before its last member entered (a
/// Gather's non-roots go on at once): waiting for the last member, its replay runs later than
/// the trace. `description` gets which members, when, for warnings.
bool left_before_last_arrived(const Trace& trace, const ReplayProgram& program, CollectiveIndex c,
                              std::string* description = nullptr);

/// Builds the program from a trace; throws TraceError for what cannot be replayed (collectives
/// that do not match across their communicator).
ReplayProgram build_replay_program(const Trace& trace, const ProgramOptions& options = {});

} // namespace popsim::replay

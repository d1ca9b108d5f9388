#pragma once
// The program popsim replays: per MPI task, the sequence of CPU bursts and MPI operations that
// Dimemas would replay after prv2dim's translation (docs/network-model.md), with the messages and
// collectives that connect the tasks.
//
// Translation rules (after prv2dim): a burst is the time outside MPI calls, from time 0 (the
// "not created" time before the first record counts) to the task's last record; an MPI call
// becomes, in order, the receives it posts, the messages it sends, the receives it completes, its
// collective; MPI_Init ends with a barrier on MPI_COMM_WORLD. Messages come from the trace's
// communication records, so wildcard receives, Test/Waitany completions and cancelled requests
// replay exactly as they happened.
#include "replay/trace.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace popsim::replay {

enum class OpKind : std::uint8_t { burst, send, recv_post, recv_wait, collective };

using OpIndex = std::uint32_t;
using MessageIndex = std::uint32_t;
using CollectiveIndex = std::uint32_t;
inline constexpr std::uint32_t k_none = std::numeric_limits<std::uint32_t>::max();

struct ProgramOptions {
    /// Sends of at least this many bytes use the rendezvous protocol (Dimemas -S 32k).
    std::uint64_t eager_limit_bytes = 32 * 1024;
    /// MPI_Init ends in a barrier, as prv2dim writes it (prv2dim -s disables it).
    bool init_barrier = true;
};

struct Message {
    std::uint32_t sender_task = 0;
    std::uint32_t receiver_task = 0;
    OpIndex send_op = k_none;
    OpIndex post_op = k_none;
    OpIndex wait_op = k_none;
    std::uint64_t bytes = 0;
    std::uint32_t tag = 0;
    bool immediate_send = false; // the sender never blocks (Isend, Bsend, ...)
    bool rendezvous = false;     // the transfer starts only once the receive is posted
    std::uint32_t record = 0;    // index of the trace's communication record
};

struct Collective {
    std::uint16_t call_id = 0; // Extrae MPI call id (8 = Barrier, 10 = Allreduce, ...)
    std::uint64_t communicator = 0;
    std::uint64_t send_bytes = 0; // the largest over the members
    std::uint64_t recv_bytes = 0;
    std::uint32_t root_task = k_none;
    std::uint32_t first_member = 0; // into ReplayProgram::collective_members
    std::uint32_t member_count = 0;
};

struct ReplayProgram {
    std::uint32_t tasks = 0;
    std::vector<ThreadIndex> task_thread; // the trace thread each task replays (its first thread)
    // Operations, struct-of-arrays; task k owns [task_first_op[k], task_first_op[k + 1]).
    std::vector<OpIndex> task_first_op;
    std::vector<OpKind> op_kind;
    std::vector<Time> op_duration;      // bursts: measured CPU time
    std::vector<std::uint32_t> op_ref;  // send/post: message; recv_wait: wait list; collective: collective
    std::vector<std::uint32_t> op_call; // the trace MPI call it comes from (k_none for bursts)
    std::vector<Message> messages;
    std::vector<std::uint32_t> wait_first; // wait list w = wait_messages[wait_first[w] .. wait_first[w + 1])
    std::vector<MessageIndex> wait_messages;
    std::vector<Collective> collectives;
    std::vector<OpIndex> collective_members; // the member ops of each collective
    std::vector<std::string> warnings;       // records that match no call, and the like

    std::size_t op_count() const { return op_kind.size(); }
    OpIndex task_end_op(std::uint32_t task) const { return task_first_op[task + 1]; }
    std::uint32_t task_of(OpIndex op) const;
    /// True when message `m` is received by a blocking receive call: its post is followed at once
    /// by its wait, in the same call (a Dimemas Recv rather than Irecv + Wait).
    bool received_by_blocking_receive(MessageIndex m) const;
};

/// Builds the program from a trace; throws TraceError for what cannot be replayed (tracing
/// disabled regions, collectives that do not match across their communicator).
ReplayProgram build_replay_program(const Trace& trace, const ProgramOptions& options = {});

} // namespace popsim::replay

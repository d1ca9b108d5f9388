// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The in-memory replay program (replay_program.hpp), written down by the streaming replay as it
// leaves calls behind, for the replays that need the whole program: networks with contention,
// whose simulated time can overtake the trace's (docs/replay.md, "Streaming").
//
// It is the in-memory builder's program operation for operation (messages numbered by record,
// collectives in the same order), so every replay of it is equal. Each thread's operations are
// kept in logs while the trace is read; finish() moves them into the program's arrays, giving
// the logs back to the system as it goes, so the program is held once, not twice.
#include "replay/column.hpp"
#include "replay/program/replay_program.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace popsim::replay {

class LiveReplays;

class ProgramRecorder {
  public:
    /// One replay thread per task: task k's first thread, `trace_threads[k]`. With `live`, the
    /// operations, messages and collectives are written into its program for its replays, as
    /// they are met (tasks of one thread only), and finish() gives the program's threads alone.
    explicit ProgramRecorder(std::vector<ThreadIndex> trace_threads, LiveReplays* live = nullptr);

    /// The message of the next communication record (records come in file order).
    void message(const Message& m);
    /// Message `m` is sent by an immediate send (its sender never blocks).
    void sent_immediately(MessageIndex m);
    /// Collective `id` (numbered as they are met), its members all met: its shape (call,
    /// communicator, sizes, root, member count, flow), its lowest member task's join (from 0)
    /// and its member tasks.
    void collective(std::uint64_t id, const Collective& shape,
                    std::pair<std::uint32_t, std::uint64_t> lowest_member,
                    std::span<const std::uint32_t> member_tasks);

    /// What task t's first thread does at a parallel region (when the task replays its other
    /// threads): the region's fork or join, or its computation around them.
    struct RegionStep {
        enum class Kind : std::uint8_t { burst, fork, join } kind;
        Time value; // burst: its duration; fork, join: the region's number on its task (from 0)
    };

    /// A call of thread `t`, in the thread's order, once no record can change it.
    struct Call {
        std::uint32_t number;                // on its thread
        std::span<const RegionStep> regions; // before it (and before the pieces)
        std::span<const Time> pieces;        // prv2dim's pieces, empty ones too, then:
        Time burst_before;                   // the rest since the previous call's end
        std::span<const MessageIndex> posts; // each list in record order
        std::span<const MessageIndex> sends;
        std::span<const MessageIndex> completions;
        std::optional<std::uint64_t> collective; // the collective it joins
    };
    void call(ReplayThread t, const Call& c);
    /// The computation after a thread's last call: prv2dim's pieces (empty ones too), then the
    /// rest.
    void pieces(ReplayThread t, std::span<const Time> durations);
    void burst(ReplayThread t, Time duration);
    /// Region steps after a thread's last call.
    void region_steps(ReplayThread t, std::span<const RegionStep> steps);
    /// Region `number` of task t: its other threads' work in it, from the fork to their
    /// arrival at the join (one per thread, in order). The task then replays all its threads.
    void region_workers(ReplayThread t, std::uint32_t number, std::span<const Time> work);

    /// The program, its collectives synchronising as `sync` says.
    ReplayProgram finish(CollectiveSync sync, WarningLog warnings);

  private:
    // What each thread writes into: chunks of 8 to 512 elements (about a page), so a thread's
    // log leaves at most about a page unused. With tens of thousands of threads, blocks of a page
    // each (a deque's) held 268 MB of the 788 MB a 4-network whatif held at 16,384 ranks.
    template <class T> using Log = Column<T, 3, 9>;

    /// An operation as the program holds it (9 bytes: packed, as the program's three arrays).
    struct [[gnu::packed]] Op {
        OpKind kind;
        // burst: its place in `bursts`; recv_wait: its list's; send, recv_post: the message;
        // collective: an MPI one's id as met, a fork or join's place among its task's (2 x
        // region + 0 or 1; its call is k_none). finish() numbers them as the in-memory program.
        std::uint32_t ref;
        std::uint32_t call;
    };
    static_assert(sizeof(Op) == 9);
    struct ThreadOps {
        Log<Op> ops;
        Log<Time> bursts;
        Log<std::uint32_t> wait_ends; // each list's end in wait_messages
        Log<MessageIndex> wait_messages;
    };
    struct RecordedCollective {
        Collective shape;
        std::pair<std::uint32_t, std::uint64_t> lowest_member; // (task, its join): the order
    };

    class LogWriter;  // into a ThreadOps
    class LiveWriter; // into live_'s program
    template <class Writer> static void write_call(Writer& to, const Call& c);
    template <class Writer>
    static void write_region_steps(Writer& to, std::span<const RegionStep> steps);
    /// Calls `write` with the writer of thread t.
    template <class Write> void write_to(ReplayThread t, Write&& write);
    std::vector<CollectiveIndex> collective_order() const;

    std::vector<ThreadIndex> trace_threads_;
    std::vector<ThreadOps> threads_;              // per task, its first thread's
    std::vector<std::vector<ThreadOps>> workers_; // per task, its other threads'
    std::vector<std::uint32_t> regions_;          // per task with workers, its regions
    Log<Message> messages_;
    std::vector<RecordedCollective> collectives_;
    LiveReplays* live_;
};

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The in-memory trace model: what popsim keeps of a Paraver trace, compactly.
//
// Sized for traces of tens of GB: no per-record objects, struct-of-arrays columns per thread,
// 32-bit thread ids. Raw events are not kept; the reader derives what analyses need while it
// streams: state intervals, MPI call intervals and their attributes, a few tracked event series
// (OpenMP, tracing on/off), counters attributed to useful time, and communications.
#include "replay/column.hpp"
#include "replay/input/input_file.hpp"
#include "replay/input/paraver_header.hpp"
#include "replay/time.hpp"
#include "replay/warnings.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace popsim::replay {

using ThreadIndex = std::uint32_t; // dense, in header order (application, task, thread)

/// A thread of an application the analysis leaves out (application_choice.hpp).
inline constexpr ThreadIndex k_dropped_thread = 0xffffffffu;

/// Marks a span of a thread's timeline that no state record covers.
inline constexpr std::uint8_t k_no_state = 255;

struct ThreadName {
    std::uint32_t application = 1;
    std::uint32_t task = 1;   // 1-based
    std::uint32_t thread = 1; // 1-based
};

/// An MPI call's collective attributes (Extrae events 50100001-50100004).
struct CollectiveAttributes {
    std::uint32_t call = 0; // index into the thread's call columns
    std::uint64_t send_bytes = 0;
    std::uint64_t recv_bytes = 0;
    std::uint64_t communicator = 0;
    bool is_root = false;

    /// Sets the attribute an event of type 50100001-50100004 gives.
    void set(std::uint32_t type, std::uint64_t value);
};

/// One event type's values on one thread, in time order.
struct EventSeries {
    std::uint32_t type = 0;
    Column<Time> time;
    Column<std::uint64_t> value;
};

struct ThreadTimeline {
    ThreadName name;
    // What the reader's checks read at every record, beside the name (one cache line).
    Time states_end = 0;
    Time last_record = 0; // time of the thread's last state end, event or communication
    // States: state i covers [state_begin[i], state_begin[i+1]), the last one ends at states_end.
    Column<Time> state_begin;
    Column<std::uint8_t> state_value;
    // MPI calls, in time order: [call_begin, call_end) with Extrae's call id (e.g. 1 = MPI_Send).
    Column<Time> call_begin;
    Column<Time> call_end;
    Column<std::uint16_t> call_id;
    std::vector<CollectiveAttributes> collectives;
    std::vector<EventSeries> tracked_events;
    /// Where prv2dim ends the thread's CPU bursts besides at its calls, each the end time of a
    /// piece, in order (replay/input/prv2dim_cuts.hpp); empty unless ReadOptions::cut_bursts_if
    /// asked for them.
    Column<Time> burst_cuts;
    // Hardware counters read at the end of useful (Running) bursts, as BSC's modelfactors counts
    // them.
    std::uint64_t useful_instructions = 0;
    std::uint64_t useful_cycles = 0;
    bool has_counters = false;

    std::size_t state_count() const { return state_begin.size(); }
    Time state_end(std::size_t i) const {
        return i + 1 < state_begin.size() ? state_begin[i + 1] : states_end;
    }
    const EventSeries* series(std::uint32_t type) const;
    /// The collective attributes of call `call`, or nullptr when its entry has none.
    const CollectiveAttributes* attributes_of(std::size_t call) const;
};

/// Communications (Paraver `3:` records), struct-of-arrays in file order.
struct Communications {
    Column<ThreadIndex> sender;
    Column<ThreadIndex> receiver;
    Column<Time> logical_send;  // sender's call entry
    Column<Time> logical_recv;  // receiver's posting call (Recv entry, Irecv exit)
    Column<Time> physical_recv; // receiver's completing call exit (Recv, Wait*)
    Column<std::uint64_t> bytes;
    Column<std::uint32_t> tag;

    std::size_t size() const { return sender.size(); }
    /// Appends the message that record `send` of `from` sends and record `receive` of `from`
    /// receives (the same record, unless re-paired), its threads numbered as in this table.
    void push_back_message(const Communications& from, std::size_t send, std::size_t receive,
                           ThreadIndex sender_thread, ThreadIndex receiver_thread);
};

/// What repair_communications changed (communication_repair.hpp).
struct CommunicationRepairs {
    std::uint64_t backward_records = 0;   // records received before they were sent, as read
    std::uint64_t cancelled_receives = 0; // receives dropped as cancelled (step 1)
    std::uint64_t repaired_records = 0;   // records whose send now goes with another receive
    std::uint64_t unpaired_sends = 0;     // sends left without a receive (step 3)
    std::uint64_t unpaired_receives = 0;  // receives left without a send (step 3)
    bool any() const {
        return backward_records + cancelled_receives + repaired_records + unpaired_sends +
                   unpaired_receives >
               0;
    }
};

struct RecordCounts {
    std::uint64_t lines = 0;
    std::uint64_t states = 0;
    std::uint64_t events = 0; // event lines
    std::uint64_t communications = 0;
    std::uint64_t skipped = 0; // record kinds popsim does not use (e.g. `4:` global comms)
    std::uint64_t bytes = 0;   // uncompressed
    std::uint64_t records() const { return states + events + communications; }
};

/// A named value of an event type in the .pcf (a user function, an MPI call, a region).
struct EventValueLabel {
    std::uint32_t type = 0;
    std::uint64_t value = 0;
    std::string name;
};

/// Names from the .pcf (states, event types and values) and .row (threads) files beside a trace.
struct TraceLabels {
    std::vector<std::pair<std::uint32_t, std::string>> states;
    std::vector<std::pair<std::uint32_t, std::string>> event_types;
    std::vector<EventValueLabel> event_values;
    std::vector<std::string> thread_names; // in ThreadIndex order, may be empty

    /// The name the .pcf gives value `value` of event type `type`, or nullptr.
    const std::string* value_name(std::uint32_t type, std::uint64_t value) const;
};

/// How many collectives a task had called on a communicator before a cut's start: the cut's
/// collectives are matched across tasks by their number in the whole run, and those that other
/// tasks called before the start complete without them.
struct CollectivesBeforeCut {
    std::uint32_t application = 1;
    std::uint32_t task = 1; // 1-based
    /// As Extrae's attribute 50100004 names it; k_default_communicator for calls without one
    /// (and MPI_Init), which the replay puts on MPI_COMM_WORLD.
    std::uint64_t communicator = 0;
    std::uint64_t calls = 0;
    std::uint64_t line = 0; // of the trace file, for errors (0: not read from a file)
};
inline constexpr std::uint64_t k_default_communicator = ~std::uint64_t{0};

/// CollectivesBeforeCut summed by task and communicator, as a cut's reader and its model count
/// them.
class CollectiveCounts {
  public:
    void add(std::uint32_t application, std::uint32_t task, std::uint64_t communicator,
             std::uint64_t calls = 1);
    void add(const std::vector<CollectivesBeforeCut>& counts);
    std::vector<CollectivesBeforeCut> list() const;

  private:
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>, std::uint64_t> calls_;
};

struct Trace {
    std::string path;
    /// The file as it was when reading began (nullopt for a pipe or an OTF2 archive): a later
    /// read of it (simulate -o carries its events) checks that it is still the same.
    std::optional<FileStamp> stamp;
    /// The header; after keep_one_application, `applications` holds the analysed one only.
    ParaverHeader header;
    std::uint32_t application = 1; // the analysed application's number in the file (1-based)
    std::vector<ThreadTimeline> threads;
    Communications comms;
    RecordCounts counts;
    CommunicationRepairs repairs;
    TraceLabels labels;
    WarningLog warnings;
    /// The run went on after the trace's end (a cut or truncated trace): collectives that some
    /// tasks reached only after it are incomplete.
    bool cut_at_end = false;
    /// The header's end is a window's (popsim's in-memory windows and cuts): records may stop
    /// before it, where nothing was recorded near the window's end, without being truncated.
    bool window_end = false;
    /// In a cut trace (popsim cut, in-memory windows), per task and communicator.
    std::vector<CollectivesBeforeCut> collectives_before_cut;

    Time end_time() const { return header.end_time; }
    std::uint32_t task_count() const; // of the analysed application (MPI ranks)
    std::uint32_t thread_count() const { return static_cast<std::uint32_t>(threads.size()); }
    /// Dense index of (application, task, thread), or throws std::out_of_range.
    ThreadIndex index_of(const ThreadName& name) const;
    /// The index of each task's first thread, for the analysed application: task k (0-based)
    /// starts at first_thread[k].
    std::vector<ThreadIndex> first_threads() const;
    /// Whether every thread is its task's only one (one application, MPI only): thread k is
    /// task k's, and whoever maps threads to tasks need not read a table per record (a cache
    /// miss each at tens of thousands of threads).
    bool threads_are_tasks() const;
};

std::string to_string(const ThreadName& name); // "1.2.1" as Paraver labels threads

} // namespace popsim::replay

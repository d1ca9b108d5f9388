// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The original trace's MPI calls as a simulated trace needs them
// (replay/output/simulated_trace.hpp): each call's traced entry and exit, which anchor the
// original's events to the simulated clock, and its Extrae id, which names the simulated call. Read
// thread by thread in order, from a trace in memory or, for a program written down by the streaming
// pass (which keeps no trace), from what that pass spilled to disk.
#include "replay/output/spill_file.hpp"
#include "replay/time.hpp"
#include "replay/trace.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace popsim::replay {

struct TracedCall {
    Time begin = 0;
    Time end = 0;
    std::uint16_t id = 0;
};

/// One thread's calls, in order.
class CallCursor {
  public:
    virtual ~CallCursor() = default;
    /// The thread's next call; false after its last.
    virtual bool next(TracedCall& call) = 0;
};

class TracedCalls {
  public:
    virtual ~TracedCalls() = default;
    /// Trace thread `thread`'s calls from its first; several cursors may read at once.
    virtual std::unique_ptr<CallCursor> cursor(ThreadIndex thread) const = 0;
};

/// The calls of a trace read into memory (its call columns).
class CallsInTrace final : public TracedCalls {
  public:
    explicit CallsInTrace(const Trace& trace) : trace_(trace) {}
    std::unique_ptr<CallCursor> cursor(ThreadIndex thread) const override;

  private:
    const Trace& trace_;
};

/// The calls a streaming pass hands over (add(), each thread's in order), kept on disk for
/// `output`, the simulated trace (SpillFile): 24 bytes each, none in memory.
class SpilledCalls final : public TracedCalls {
  public:
    SpilledCalls(const std::string& output, std::size_t threads);
    void add(ThreadIndex thread, const TracedCall& call) { spill_.append(thread, call); }
    /// After the last add().
    void finish_writing() { spill_.finish_writing(); }
    std::unique_ptr<CallCursor> cursor(ThreadIndex thread) const override;

  private:
    Spill<TracedCall> spill_;
};

} // namespace popsim::replay

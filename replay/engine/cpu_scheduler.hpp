// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CPUs shared by the threads of a node, as Dimemas' default FIFO scheduler shares them: a thread
// needs a CPU for each piece of CPU work (a burst, a communication startup, the instant it takes
// to resume after being woken), waits in its node's ready queue when all are busy, and keeps the
// CPU until that piece ends; no preemption, no time slices, no context-switch cost. Bursts and
// wake-ups queue at the tail; startups (the call goes on where the thread already was) and
// rendezvous senders released by their receiver at the head.
#include "replay/program/replay_program.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace popsim::replay::engine {

class CpuScheduler {
  public:
    /// `node_of_thread`: each replay thread's node; `cpus_per_node` 0 means one CPU per thread.
    CpuScheduler(std::vector<std::uint32_t> node_of_thread, std::uint32_t cpus_per_node);

    std::uint32_t node_of(ReplayThread thread) const { return node_of_[thread]; }

    /// Whether some node has fewer CPUs than threads; otherwise nobody ever waits.
    bool limited() const { return limited_; }

    void request(ReplayThread thread, bool at_head);
    void release(ReplayThread thread);

    /// Gives each free CPU to the thread at the head of its node's queue, in node order, calling
    /// `grant(thread)` for each.
    template <class Grant> void dispatch(Grant&& grant) {
        std::sort(dirty_.begin(), dirty_.end());
        for (const std::uint32_t n : dirty_) {
            auto& node = nodes_[n];
            node.dirty = false;
            while (node.free_cpus > 0 && !node.ready.empty()) {
                const ReplayThread t = node.ready.front();
                node.ready.pop_front();
                --node.free_cpus;
                grant(t); // starts the thread's piece of work: it neither releases nor requests
            }
        }
        dirty_.clear();
    }

  private:
    struct Node {
        std::uint32_t free_cpus = 0;
        std::deque<ReplayThread> ready;
        bool dirty = false;
    };
    void mark(std::uint32_t node);

    std::vector<std::uint32_t> node_of_;
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> dirty_; // nodes whose queue or CPUs changed since the last dispatch
    bool limited_ = false;
};

} // namespace popsim::replay::engine

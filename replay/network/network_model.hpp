// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The contract between the replay engine and a network model (after SimGrid's engine/model
// split): the engine knows no concrete model; a model answers when a transfer or a collective
// completes. Models are listed in network/registry.cpp.
#include "replay/cache_line.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/time.hpp"

#include <span>
#include <string_view>

namespace popsim::replay::network {

struct TransferRequest {
    std::uint32_t transfer = 0; // the engine's name for it: a message, or a member's data
                                // sent to a collective's root
    std::uint32_t sender_task = 0;
    std::uint32_t receiver_task = 0;
    std::uint64_t bytes = 0;
};

/// What an asynchronous model tells the engine (NetworkModel::asynchronous).
class TransferSink {
  public:
    /// Call the model's on_event(token) at `time` (in order with the engine's own events).
    virtual void call_at(Time time, std::uint32_t token) = 0;
    /// The transfer is under way, though it may still wait for links or a bus: a blocking
    /// rendezvous sender goes on (as in Dimemas, once its receiver has been reached).
    virtual void transfer_started(std::uint32_t transfer, Time at) = 0;
    /// The transfer's data has arrived.
    virtual void transfer_delivered(std::uint32_t transfer, Time at) = 0;
    /// Every member of the collective leaves at `at`.
    virtual void collective_done(CollectiveIndex collective, Time at) = 0;

  protected:
    ~TransferSink() = default;
};

/// On cache lines of its own (cache_line.hpp): the networks of a sweep are replayed side by side.
class alignas(k_cache_line) NetworkModel {
  public:
    NetworkModel() = default;
    virtual ~NetworkModel() = default;
    NetworkModel(const NetworkModel&) = delete;
    NetworkModel& operator=(const NetworkModel&) = delete;

    virtual std::string_view name() const = 0;

    /// The CPUs' speed relative to the traced ones: a burst traced as t takes t / speed (none at
    /// all when the speed is 0 or less, as in Dimemas). The engine rounds each thread's running
    /// sum of bursts, not each burst, as Dimemas keeps its times in doubles.
    virtual double cpu_speed() const { return 1; }

    /// CPU time a point-to-point call spends before its data can move (Dimemas' "startup", the
    /// latency): the sender pays it before its message leaves, the receiver in a blocking receive
    /// (before posting) or in the wait that completes a message.
    virtual Time startup(std::uint32_t /*sender_task*/, std::uint32_t /*receiver_task*/) const {
        return 0;
    }

    /// A transfer whose sender and receiver are both ready at `ready`: returns when the data has
    /// arrived. The engine calls this in non-decreasing `ready` order, so a model can keep FIFO
    /// resource queues as "free at" times.
    virtual Time transfer(const TransferRequest& request, Time ready) = 0;

    /// Whether transfers wait for resources whose order only later transfers settle (Dimemas'
    /// links and buses): then the engine calls begin_transfer and hears of each transfer's start
    /// and arrival through a TransferSink, instead of calling transfer().
    virtual bool asynchronous() const { return false; }
    virtual void begin_transfer(const TransferRequest& /*request*/, Time /*now*/,
                                TransferSink& /*sink*/) {}
    virtual void on_event(std::uint32_t /*token*/, Time /*now*/, TransferSink& /*sink*/) {}
    /// The last member of collective `c` (every member waiting for it) arrived at `now`.
    virtual void begin_collective(CollectiveIndex c, const Collective& op, Time now,
                                  TransferSink& sink) {
        sink.collective_done(c, collective(c, op, now));
    }

    /// Collective `c` (`op`), whose last member arrives at `ready`: returns when all members leave
    /// it.
    virtual Time collective(CollectiveIndex c, const Collective& op, Time ready) = 0;

    /// True when every transfer and collective completes at its `ready` time and startups are 0:
    /// the model adds no time of its own to the bursts (which cpu_speed() may still scale). The
    /// engine then keeps no transfer bookkeeping.
    virtual bool zero_cost() const { return false; }

    /// Called once before a replay of `tasks` tasks.
    virtual void prepare(std::uint32_t /*tasks*/) {}

    /// The MPI collective `c` (`op`) is known, with its members' tasks, before it is replayed;
    /// on each communicator in the program's order. For models that derive a collective's cost
    /// from the collectives before it.
    virtual void collective_known(CollectiveIndex /*c*/, const Collective& /*op*/,
                                  std::span<const std::uint32_t> /*member_tasks*/) {}
    /// Every member has left collective `c`: what the model keeps of it can go.
    virtual void collective_over(CollectiveIndex /*c*/) {}

    /// Called before prepare(): the engine's clock counts `ticks` per ns in this replay, and every
    /// time the model takes or returns is in ticks (a latency of 5 ns is 5 * ticks). The engine
    /// counts fractions of a ns where the model or the bursts make them, as Dimemas' doubles do.
    virtual void set_ticks_per_ns(Time /*ticks*/) {}

    /// The node a task runs on, and how many CPUs each node has (0: one per thread). When a node
    /// has fewer CPUs than threads, they take turns (engine/cpu_scheduler.hpp).
    virtual std::uint32_t node_of(std::uint32_t task) const { return task; }
    virtual std::uint32_t cpus_per_node() const { return 0; }

    /// CPU time each member of a root-synchronised collective (MPI_Reduce in Dimemas) pays before
    /// its data moves to the root.
    virtual Time rooted_startup(const Collective& /*op*/) const { return 0; }
};

} // namespace popsim::replay::network

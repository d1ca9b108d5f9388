// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Dimemas' parametric network model (after Dimemas 5.5, docs/network-model.md):
//   point to point: the latency is CPU time (Dimemas' startup) the sender pays before its data
//     leaves and the receiver pays in a blocking receive (before posting) or in each wait; the data
//     then takes bytes / bandwidth (1 MB = 2^20 bytes; bandwidth 0 = instantaneous), with
//     intra-node or inter-node parameters by the task-to-node mapping; an inter-node message takes
//     an output link of its sender's node, an input link of its receiver's node, then one of
//     `buses` (0 = unlimited), keeping each while it waits for the next (queues first come, first
//     served); a message within a node takes its sender task's and receiver task's links;
//   collectives: a fan-in and a fan-out phase of stages (none, constant 1, linear N-1, logarithmic
//     ceil(log2 N)), each stage latency + size / bandwidth with the size rule of the operation
//     (MIN, MAX, MEAN, 2MAX, S+R of its send and receive sizes); with buses, a stage of m
//     concurrent messages takes ceil(m / buses) transmissions; an intra-node part over the most
//     members on one node (intra-node latency and bandwidth) plus, on a machine of several nodes,
//     an inter-node part over the member nodes; MPI_Reduce is instead root-synchronised: every
//     member pays the largest latency its communicator uses, the others' data goes to the root
//     as messages;
//   CPU: bursts are divided by the relative CPU speed; a node's CPUs are shared by its tasks.
#include "replay/network/link_table.hpp"
#include "replay/network/network_model.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace popsim::replay::network {

struct CollectiveModel {
    enum class Stages : std::uint8_t { none, constant, linear, logarithmic };
    // `current`: the send size in the fan-in, the receive size in the fan-out.
    enum class Size : std::uint8_t { current, min, max, mean, twice_max, send_plus_recv };
    Stages fan_in = Stages::none;
    Size fan_in_size = Size::max;
    Stages fan_out = Stages::none;
    Size fan_out_size = Size::max;
};

struct DimemasParameters {
    Time inter_latency = 0;          // ns
    double inter_bandwidth_mbps = 0; // MB/s, MB = 2^20 bytes; 0 = instantaneous
    std::uint32_t buses = 0;         // concurrent inter-node transfers; 0 = unlimited
    std::uint32_t in_links = 1;      // per node; 0 = unlimited; 1 as in Dimemas' configurations
    std::uint32_t out_links = 1;
    // Each task's links for messages within its node; 0 and 0 = unlimited; one of them 0 = that
    // many half-duplex links, for both directions (Dimemas).
    std::uint32_t intra_in_links = 0;
    std::uint32_t intra_out_links = 0;
    Time intra_latency = 0;
    double intra_bandwidth_mbps = 0;
    double cpu_ratio = 1.0;          // relative CPU speed: bursts take traced / cpu_ratio
    std::uint32_t cpus_per_node = 0; // 0: one per thread
    std::uint32_t nodes = 0;         // of the machine; 0: as many as the mapping uses
    /// How tasks go to nodes without an explicit mapping (Dimemas' predefined maps): in blocks of
    /// tasks_per_node, one per CPU with the rest on the last node, or round robin over the nodes.
    enum class TaskMap : std::uint8_t { tasks_per_node, fill_nodes, interleaved };
    TaskMap task_map = TaskMap::tasks_per_node;
    std::uint32_t tasks_per_node = 1;
    std::vector<std::uint32_t> node_of_task; // explicit mapping (0-based nodes); overrides task_map
    std::map<std::uint32_t, CollectiveModel> collectives; // by Dimemas global operation id
    // For operations the collectives file does not list: the machine's model ("environment
    // information" field 7, constant by default) in both phases, with the current sizes.
    /// The configuration's "modules information": code regions whose CPU bursts Dimemas divides
    /// by `ratio` (0: they take no time). Not a network parameter: the commands make them code
    /// speed-ups (docs/network-model.md, "Code speed-ups").
    struct Module {
        std::uint32_t type = 0;
        std::uint64_t value = 0;
        double ratio = 1;
    };
    std::vector<Module> modules;
    std::string collectives_file; // the collectives file the configuration names, as read
    CollectiveModel default_collective{
        CollectiveModel::Stages::constant, CollectiveModel::Size::current,
        CollectiveModel::Stages::constant, CollectiveModel::Size::current};
};

class DimemasNetwork final : public NetworkModel {
  public:
    explicit DimemasNetwork(DimemasParameters parameters);

    std::string_view name() const override { return "dimemas"; }
    double cpu_speed() const override { return p_.cpu_ratio; }
    Time startup(std::uint32_t sender_task, std::uint32_t receiver_task) const override;
    Time transfer(const TransferRequest& request, Time ready) override;
    bool asynchronous() const override;
    void begin_transfer(const TransferRequest& request, Time now, TransferSink& sink) override;
    void on_event(std::uint32_t token, Time now, TransferSink& sink) override;
    void begin_collective(CollectiveIndex c, const Collective& op, Time now,
                          TransferSink& sink) override;
    Time collective(CollectiveIndex c, const Collective& op, Time ready) override;
    bool zero_cost() const override;
    void prepare(std::uint32_t tasks) override;
    void collective_known(CollectiveIndex c, const Collective& op,
                          std::span<const std::uint32_t> member_tasks) override;
    void collective_over(CollectiveIndex c) override { intra_node_count_.erase(c); }
    std::uint32_t node_of(std::uint32_t task) const override;
    std::uint32_t cpus_per_node() const override { return p_.cpus_per_node; }
    Time rooted_startup(const Collective& op) const override;
    void set_ticks_per_ns(Time ticks) override { ticks_per_ns_ = ticks; }

  private:
    /// Where a collective's members run: on how many nodes, and at most how many on one.
    struct Placement {
        std::uint32_t nodes = 0;
        std::uint32_t most_on_a_node = 0;
    };
    const Placement& placement(const Collective& op) const;
    Time phases(const Collective& op, const CollectiveModel& model, std::uint32_t members,
                Time latency, double bandwidth_mbps, std::uint32_t buses) const;

    /// A transfer that waits for links (and a bus between nodes) and what it holds (Dimemas takes
    /// them in this order and keeps each while it waits for the next).
    struct Transfer {
        std::uint32_t from = 0, to = 0; // nodes, or tasks for a transfer within a node
        double bytes = 0;
        std::uint32_t request = 0; // TransferRequest::transfer, for the sink
        bool within_node = false;
        bool out_link = false, in_link = false, bus = false;
    };
    /// Takes what `transfer` still lacks, in Dimemas' order, or queues it for the first missing;
    /// once it has all, its data moves.
    void advance(std::uint32_t transfer, Time now, TransferSink& sink);
    /// Frees the sending (`as_sender`) or receiving link of the transfer in slot `transfer` (`t`,
    /// a copy: the slot is already free) and wakes what waits for it.
    void give_back_link(const Transfer& t, std::uint32_t transfer, bool as_sender, Time now,
                        TransferSink& sink);
    bool steal_output_link(Transfer& t, std::uint32_t thief);
    /// Whether `transfer` has its sending (receiving) link, taking it if free; else it queues.
    bool take_sending_link(Transfer& t, std::uint32_t transfer);
    bool take_receiving_link(Transfer& t, std::uint32_t transfer);
    /// Whether transfers within a node, or between nodes, can wait for links or buses.
    bool waits_for_resources(bool within_node) const;
    bool half_duplex_within_nodes() const;
    /// Whether `t` takes half-duplex links within a node: one pool per task, two queues.
    bool half_duplex(const Transfer& t) const {
        return t.within_node && half_duplex_within_nodes();
    }
    /// The links a transfer takes at its sender and at its receiver.
    LinkTable& sending_links(const Transfer& t);
    LinkTable& receiving_links(const Transfer& t);
    Time transmission(double bytes, double bandwidth_mbps) const; // TimeOverflow past 2^62 ticks
    /// The latency between two tasks on one node (`within_node`) or on two, in ticks.
    Time latency(bool within_node) const;
    static std::uint32_t stages(CollectiveModel::Stages s, std::uint32_t members);

    DimemasParameters p_;
    Time ticks_per_ns_ = 1; // of the engine's clock (set_ticks_per_ns)
    std::uint32_t machine_nodes_ = 1;
    // By communicator, from its first collective made known.
    mutable std::map<std::uint64_t, Placement> placements_;
    /// Per collective, the task count Dimemas times its part within a node with: the most
    /// members on a node, plus the MPI_Reduce entries on that node of the Reduces just before
    /// it on its communicator (count_intra_node_tasks).
    std::unordered_map<CollectiveIndex, std::uint32_t> intra_node_count_; // until over
    // By communicator and node, the entries of the root-synchronised Reduces since its last
    // other collective.
    std::map<std::uint64_t, std::map<std::uint32_t, std::uint32_t>> reduce_entries_;
    std::uint32_t intra_node_count(CollectiveIndex c, const Placement& where) const;
    /// A collective holding or gathering every bus (Dimemas reserves them all for it).
    struct BusyCollective {
        const Collective* op = nullptr;
        std::uint32_t buses = 0; // gathered so far
    };
    /// Who waits for a bus, first come first served: a transfer, or a collective that wants all.
    struct BusWaiter {
        std::uint32_t id = 0;
        bool collective = false;
    };
    /// Gives free buses to the waiters at the head of the queue.
    void hand_out_buses(Time now, TransferSink& sink);
    void start_collective(CollectiveIndex c, Time now, TransferSink& sink);
    static constexpr std::uint32_t k_collective_token = 1u << 30; // on_event tokens

    // The transfers under way, until delivered, by slot: the queues, the links and the event
    // tokens name slots, which are reused (not a hash map by request, which made and freed a node
    // per transfer).
    std::vector<Transfer> moving_;
    std::vector<std::uint32_t> free_slots_;
    LinkTable in_links_, out_links_;           // by node
    LinkTable task_in_links_, task_out_links_; // by task, within nodes (half-duplex: the latter)
    std::uint32_t buses_used_ = 0;             // or reserved by a waiting collective
    std::deque<BusWaiter> waiting_for_bus_;
    std::map<CollectiveIndex, BusyCollective> collectives_on_buses_;
};

} // namespace popsim::replay::network

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/network/dimemas.hpp"

#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>

namespace popsim::replay::network {

namespace {
constexpr double k_bytes_per_mb = 1024.0 * 1024.0; // Dimemas' MB
}

DimemasNetwork::DimemasNetwork(DimemasParameters parameters)
    : p_(std::move(parameters)), in_links_(p_.in_links), out_links_(p_.out_links),
      // Half-duplex: one pool per task, of as many links as the one count not 0 (Dimemas).
      task_in_links_(half_duplex_within_nodes() ? 0 : p_.intra_in_links),
      task_out_links_(half_duplex_within_nodes() ? std::max(p_.intra_in_links, p_.intra_out_links)
                                                 : p_.intra_out_links) {}

bool DimemasNetwork::zero_cost() const {
    return p_.inter_latency == 0 && p_.intra_latency == 0 && p_.inter_bandwidth_mbps == 0 &&
           p_.intra_bandwidth_mbps == 0;
}

void DimemasNetwork::prepare(std::uint32_t tasks) {
    placements_.clear();
    intra_node_count_.clear();
    reduce_entries_.clear();
    machine_nodes_ = p_.nodes;
    for (std::uint32_t task = 0; task < tasks; ++task)
        machine_nodes_ = std::max(machine_nodes_, node_of(task) + 1);
}

void DimemasNetwork::collective_known(CollectiveIndex c, const Collective& op,
                                      std::span<const std::uint32_t> member_tasks) {
    std::map<std::uint32_t, std::uint32_t> on_node; // members by node
    for (const std::uint32_t task : member_tasks) ++on_node[node_of(task)];
    auto [where, first] = placements_.try_emplace(op.communicator);
    if (first) {
        where->second.nodes = static_cast<std::uint32_t>(on_node.size());
        for (const auto& [node, members] : on_node)
            where->second.most_on_a_node = std::max(where->second.most_on_a_node, members);
    }
    // Dimemas 5.5.0 counts each task entering a collective on its communicator's node and times
    // the collective's part within a node with that count (communic.c, GLOBAL_operation and
    // calcula_temps_maxim_intra_nodes); a collective's end clears the counts, but the end of a
    // root-synchronised MPI_Reduce does not (close_global_root_sync_communication). So the next
    // collective on the communicator counts the Reduces' members again: after R Reduces a node's
    // m members count (R + 1) m. Likely a bug; popsim reproduces it, Dimemas' prediction being
    // the one it is compared with (docs/network-model.md).
    auto& pending = reduce_entries_[op.communicator];
    if (op.flow == CollectiveFlow::to_root) {
        for (const auto& [node, count] : on_node) pending[node] += count;
        return;
    }
    auto& most = intra_node_count_[c];
    for (const auto& [node, count] : on_node) most = std::max(most, count + pending[node]);
    pending.clear();
}

std::uint32_t DimemasNetwork::intra_node_count(CollectiveIndex c, const Placement& where) const {
    const auto known = intra_node_count_.find(c);
    if (known == intra_node_count_.end()) return where.most_on_a_node; // not made known
    return std::max(where.most_on_a_node, known->second);
}

const DimemasNetwork::Placement& DimemasNetwork::placement(const Collective& op) const {
    return placements_[op.communicator]; // none when its collectives were not made known
}

Time DimemasNetwork::rooted_startup(const Collective& op) const {
    const auto& where = placement(op);
    return std::max(where.nodes > 1 ? latency(false) : 0,
                    where.most_on_a_node > 1 ? latency(true) : 0);
}

std::uint32_t DimemasNetwork::node_of(std::uint32_t task) const {
    if (task < p_.node_of_task.size()) return p_.node_of_task[task];
    const std::uint32_t nodes = std::max<std::uint32_t>(1, p_.nodes);
    switch (p_.task_map) {
    case DimemasParameters::TaskMap::fill_nodes:
        return std::min(task / std::max<std::uint32_t>(1, p_.cpus_per_node), nodes - 1);
    case DimemasParameters::TaskMap::interleaved:
        return task % nodes;
    case DimemasParameters::TaskMap::tasks_per_node:
        break;
    }
    return task / std::max<std::uint32_t>(1, p_.tasks_per_node);
}

Time DimemasNetwork::transmission(double bytes, double bandwidth_mbps) const {
    if (bandwidth_mbps <= 0) return 0;
    const double ticks_per_s = 1e9 * static_cast<double>(ticks_per_ns_);
    return round_ticks(bytes * ticks_per_s / (bandwidth_mbps * k_bytes_per_mb), ticks_per_ns_, [&] {
        return fmt::format("a transfer of {:.0f} bytes at {:g} MB/s", bytes, bandwidth_mbps);
    });
}

Time DimemasNetwork::latency(bool within_node) const {
    return scale_time(within_node ? p_.intra_latency : p_.inter_latency,
                      static_cast<std::uint64_t>(ticks_per_ns_), ticks_per_ns_);
}

Time DimemasNetwork::startup(std::uint32_t sender_task, std::uint32_t receiver_task) const {
    return latency(node_of(sender_task) == node_of(receiver_task));
}

Time DimemasNetwork::transfer(const TransferRequest& r, Time ready) {
    // Without links or buses to wait for, or with instantaneous data, only the bandwidth counts.
    const bool within_node = node_of(r.sender_task) == node_of(r.receiver_task);
    return add_times(ready,
                     transmission(static_cast<double>(r.bytes),
                                  within_node ? p_.intra_bandwidth_mbps : p_.inter_bandwidth_mbps),
                     ticks_per_ns_);
}

bool DimemasNetwork::waits_for_resources(bool within_node) const {
    if (within_node)
        return p_.intra_bandwidth_mbps > 0 && (p_.intra_in_links > 0 || p_.intra_out_links > 0);
    return p_.inter_bandwidth_mbps > 0 && (p_.buses > 0 || p_.in_links > 0 || p_.out_links > 0);
}

bool DimemasNetwork::asynchronous() const {
    return waits_for_resources(true) || waits_for_resources(false);
}

bool DimemasNetwork::half_duplex_within_nodes() const {
    return (p_.intra_in_links == 0) != (p_.intra_out_links == 0);
}

LinkTable& DimemasNetwork::sending_links(const Transfer& t) {
    return t.within_node ? task_out_links_ : out_links_;
}

LinkTable& DimemasNetwork::receiving_links(const Transfer& t) {
    if (!t.within_node) return in_links_;
    return half_duplex_within_nodes() ? task_out_links_ : task_in_links_; // one pool per task
}

void DimemasNetwork::begin_transfer(const TransferRequest& r, Time now, TransferSink& sink) {
    const std::uint32_t from = node_of(r.sender_task), to = node_of(r.receiver_task);
    const bool within_node = from == to;
    sink.transfer_started(r.transfer, now); // under way, though it may wait for links or a bus
    if (!waits_for_resources(within_node)) {
        sink.transfer_delivered(r.transfer, transfer(r, now));
        return;
    }
    // Within a node the memory path's links are the tasks'; between nodes, the nodes'.
    const Transfer t{within_node ? r.sender_task : from, within_node ? r.receiver_task : to,
                     static_cast<double>(r.bytes), r.transfer, within_node};
    std::uint32_t slot = 0;
    if (free_slots_.empty()) {
        slot = static_cast<std::uint32_t>(moving_.size());
        moving_.push_back(t);
    } else {
        slot = free_slots_.back();
        free_slots_.pop_back();
        moving_[slot] = t;
    }
    advance(slot, now, sink);
}

/// Dimemas lets a message short of an output link take the one of a message from the same node
/// that still waits for its input link, if it can get its own input link at once; the robbed one
/// goes first in the queue for the output link.
bool DimemasNetwork::steal_output_link(Transfer& t, std::uint32_t thief) {
    const auto holders = out_links_.holders(t.from);
    const auto victim = std::find_if(holders.begin(), holders.end(), [&](std::uint32_t h) {
        const auto& v = moving_.at(h);
        return v.out_link && !v.in_link;
    });
    if (victim == holders.end() || !in_links_.take(t.to, thief)) return false;
    auto& robbed = moving_.at(*victim);
    in_links_.stop_waiting(robbed.to, LinkTable::Queue::first, *victim);
    robbed.out_link = false;
    out_links_.wait_first(t.from, LinkTable::Queue::first, *victim);
    *victim = thief;
    t.out_link = t.in_link = true;
    return true;
}

void DimemasNetwork::give_back_link(const Transfer& t, std::uint32_t transfer, bool as_sender,
                                    Time now, TransferSink& sink) {
    auto& links = as_sender ? sending_links(t) : receiving_links(t);
    if (links.unlimited()) return;
    const std::uint32_t owner = as_sender ? t.from : t.to;
    links.give_back(owner, transfer);
    using Queue = LinkTable::Queue;
    const auto wake_first = [&](Queue queue) {
        std::uint32_t next = 0;
        if (links.pop_waiting(owner, queue, next))
            advance(next, now, sink); // queues it again, at the back, if the link is gone
    };
    if (!half_duplex(t)) {
        wake_first(Queue::first);
        return;
    }
    // Dimemas' LINKS_free_mem_link on a half-duplex task: a link freed by a sender wakes the
    // first message waiting to receive, then the first waiting to send; one freed by a receiver
    // the other way round.
    wake_first(as_sender ? Queue::receiving : Queue::first);
    wake_first(as_sender ? Queue::first : Queue::receiving);
}

bool DimemasNetwork::take_sending_link(Transfer& t, std::uint32_t transfer) {
    if (t.out_link || (t.out_link = sending_links(t).take(t.from, transfer)) ||
        (!t.within_node && steal_output_link(t, transfer)))
        return true;
    sending_links(t).wait_last(t.from, LinkTable::Queue::first, transfer);
    return false;
}

bool DimemasNetwork::take_receiving_link(Transfer& t, std::uint32_t transfer) {
    if (t.in_link || (t.in_link = receiving_links(t).take(t.to, transfer))) return true;
    using Queue = LinkTable::Queue;
    receiving_links(t).wait_last(t.to, half_duplex(t) ? Queue::receiving : Queue::first, transfer);
    return false;
}

void DimemasNetwork::advance(std::uint32_t transfer, Time now, TransferSink& sink) {
    auto& t = moving_.at(transfer);
    // Half-duplex links within a node are one pool per task, taken the lower task's first, as
    // Dimemas' LINKS_get_mem_links takes them: two tasks sending to each other at once would
    // otherwise each hold the link the other waits for, and the replay would deadlock.
    const bool receiver_first = half_duplex(t) && t.from > t.to;
    if (receiver_first && !take_receiving_link(t, transfer)) return;
    if (!take_sending_link(t, transfer) || !take_receiving_link(t, transfer)) return;
    if (t.within_node) { // the memory path: no buses
        sink.call_at(add_times(now, transmission(t.bytes, p_.intra_bandwidth_mbps), ticks_per_ns_),
                     transfer);
        return;
    }
    if (!t.bus && p_.buses > 0) {
        if (buses_used_ == p_.buses) {
            waiting_for_bus_.push_back({transfer, false});
            return;
        }
        ++buses_used_;
        t.bus = true;
    }
    sink.call_at(add_times(now, transmission(t.bytes, p_.inter_bandwidth_mbps), ticks_per_ns_),
                 transfer);
}

void DimemasNetwork::on_event(std::uint32_t token, Time now, TransferSink& sink) {
    if (token >= k_collective_token) { // a collective is over: all buses are free again
        const CollectiveIndex c = token - k_collective_token;
        collectives_on_buses_.erase(c);
        buses_used_ = 0;
        hand_out_buses(now, sink);
        sink.collective_done(c, now);
        return;
    }
    // The data has arrived: Dimemas frees the output link, the input link, then the bus, each
    // going at once to the first transfer waiting for it, and then delivers.
    const Transfer done = moving_[token];
    free_slots_.push_back(token);
    give_back_link(done, token, true, now, sink);
    give_back_link(done, token, false, now, sink);
    if (done.bus) {
        --buses_used_;
        hand_out_buses(now, sink);
    }
    sink.transfer_delivered(done.request, now);
}

void DimemasNetwork::hand_out_buses(Time now, TransferSink& sink) {
    while (buses_used_ < p_.buses && !waiting_for_bus_.empty()) {
        const BusWaiter next = waiting_for_bus_.front();
        if (!next.collective) {
            waiting_for_bus_.pop_front();
            advance(next.id, now, sink); // it has its links: it takes the bus
            continue;
        }
        auto& waiting = collectives_on_buses_.at(next.id);
        waiting.buses += p_.buses - buses_used_;
        buses_used_ = p_.buses;
        if (waiting.buses == p_.buses) {
            waiting_for_bus_.pop_front();
            start_collective(next.id, now, sink);
        }
    }
}

void DimemasNetwork::begin_collective(CollectiveIndex c, const Collective& op, Time now,
                                      TransferSink& sink) {
    if (p_.buses == 0 || machine_nodes_ <= 1)
        return sink.collective_done(c, collective(c, op, now));
    // Dimemas reserves every bus of the machine for a collective: it takes the free ones now,
    // keeps new transfers off the others and gathers them as the transfers on them end.
    auto& reserved = collectives_on_buses_[c];
    reserved = {&op, p_.buses - buses_used_};
    buses_used_ = p_.buses;
    if (reserved.buses == p_.buses)
        start_collective(c, now, sink);
    else
        waiting_for_bus_.push_back({c, true});
}

void DimemasNetwork::start_collective(CollectiveIndex c, Time now, TransferSink& sink) {
    sink.call_at(collective(c, *collectives_on_buses_.at(c).op, now), k_collective_token + c);
}

std::uint32_t DimemasNetwork::stages(CollectiveModel::Stages s, std::uint32_t members) {
    switch (s) {
    case CollectiveModel::Stages::none:
        return 0;
    case CollectiveModel::Stages::constant:
        return 1;
    case CollectiveModel::Stages::linear:
        return members > 0 ? members - 1 : 0;
    case CollectiveModel::Stages::logarithmic:
        return members > 1 ? static_cast<std::uint32_t>(std::bit_width(members - 1)) : 0;
    }
    return 0;
}

namespace {
double stage_bytes(const Collective& op, CollectiveModel::Size rule, bool fan_in) {
    const double s = static_cast<double>(op.send_bytes), r = static_cast<double>(op.recv_bytes);
    switch (rule) {
    case CollectiveModel::Size::current:
        return fan_in ? s : r;
    case CollectiveModel::Size::min:
        return std::min(s, r);
    case CollectiveModel::Size::max:
        return std::max(s, r);
    case CollectiveModel::Size::mean: // whole bytes, as Dimemas counts them
        return std::floor((s + r) / 2);
    case CollectiveModel::Size::twice_max:
        return 2 * std::max(s, r);
    case CollectiveModel::Size::send_plus_recv:
        return s + r;
    }
    return 0;
}
} // namespace

/// The fan-in and fan-out phases among `members` (tasks or nodes) at one latency and bandwidth.
Time DimemasNetwork::phases(const Collective& op, const CollectiveModel& model,
                            std::uint32_t members, Time latency, double bandwidth_mbps,
                            std::uint32_t buses) const {
    auto phase = [&](CollectiveModel::Stages kind, CollectiveModel::Size rule, bool fan_in) {
        const std::uint32_t count = stages(kind, members);
        if (count == 0) return Time{0};
        const Time cost = add_times(
            latency, transmission(stage_bytes(op, rule, fan_in), bandwidth_mbps), ticks_per_ns_);
        Time total = 0;
        for (std::uint32_t s = 0; s < count; ++s) {
            // A logarithmic stage s makes ceil((n - 2^s) / 2^(s+1)) transfers at once; buses
            // serialise them (Dimemas' compute_contention_stage).
            const std::uint32_t concurrent =
                kind == CollectiveModel::Stages::logarithmic
                    ? static_cast<std::uint32_t>(
                          (std::uint64_t{members} + (std::uint64_t{1} << s) - 1) >> (s + 1))
                    : 1;
            const std::uint32_t rounds = buses == 0 ? 1 : (concurrent + buses - 1) / buses;
            total = add_times(total, scale_time(cost, rounds, ticks_per_ns_), ticks_per_ns_);
        }
        return total;
    };
    return add_times(phase(model.fan_in, model.fan_in_size, true),
                     phase(model.fan_out, model.fan_out_size, false), ticks_per_ns_);
}

Time DimemasNetwork::collective(CollectiveIndex c, const Collective& op, Time ready) {
    const auto id = dimemas_global_op_id(op.call_id);
    const auto found = id ? p_.collectives.find(*id) : p_.collectives.end();
    const CollectiveModel& model =
        found != p_.collectives.end() ? found->second : p_.default_collective;
    // Dimemas adds a part within the node with the most members (memory path, no buses) and, on
    // a machine of several nodes, a part among the member nodes.
    const auto& where = placement(op);
    Time cost =
        phases(op, model, intra_node_count(c, where), latency(true), p_.intra_bandwidth_mbps, 0);
    if (machine_nodes_ > 1)
        cost = add_times(
            cost, phases(op, model, where.nodes, latency(false), p_.inter_bandwidth_mbps, p_.buses),
            ticks_per_ns_);
    return add_times(ready, cost, ticks_per_ns_);
}

} // namespace popsim::replay::network

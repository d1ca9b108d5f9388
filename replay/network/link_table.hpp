// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The links of one kind in Dimemas' network (the nodes' input or output links, or the tasks' links
// within their node): how many each owner has, which transfers hold them in the order they took
// them, and which wait, first come, first served.
#include <cstdint>
#include <span>
#include <vector>

namespace popsim::replay::network {

/// Owners are made as transfers first use them. An owner's entries lie side by side: the count
/// of links it holds, the first and last transfer of each of its queues, and its holders (24 bytes
/// for the usual one link); a queue is linked through the transfers (a transfer waits in one queue
/// at a time). With a node's queues in rings of their own (120 bytes a node, two cache lines),
/// taking or giving back a link missed on each line and on the ring's block (5 % of a 4-network
/// whatif at 1,024 ranks).
class LinkTable {
  public:
    /// The two queues of an owner: half-duplex links within a node keep those that wait to
    /// receive apart from those that wait to send (Dimemas); other links use the first only.
    enum class Queue : std::uint8_t { first, receiving };

    /// `per_owner` links each; 0: unlimited (a transfer never waits, holders are not kept).
    explicit LinkTable(std::uint32_t per_owner = 0);

    std::uint32_t per_owner() const { return per_owner_; }
    bool unlimited() const { return per_owner_ == 0; }
    /// Takes one of `owner`'s links for `transfer` if one is free (always, when unlimited).
    bool take(std::uint32_t owner, std::uint32_t transfer);
    /// `transfer` gives back the link of `owner` it holds (nothing, when unlimited).
    void give_back(std::uint32_t owner, std::uint32_t transfer);
    /// Who holds `owner`'s links, in the order they took them.
    std::span<std::uint32_t> holders(std::uint32_t owner);
    /// `transfer`, which waits in no queue of this table, waits last (first) in `owner`'s queue.
    void wait_last(std::uint32_t owner, Queue queue, std::uint32_t transfer);
    void wait_first(std::uint32_t owner, Queue queue, std::uint32_t transfer);
    /// Takes the first transfer out of the queue into `next`; false if none waits.
    bool pop_waiting(std::uint32_t owner, Queue queue, std::uint32_t& next);
    /// Takes `transfer` out of the queue it waits in.
    void stop_waiting(std::uint32_t owner, Queue queue, std::uint32_t transfer);

  private:
    static constexpr std::uint32_t k_nobody = ~std::uint32_t{0};
    std::uint32_t* entries(std::uint32_t owner);
    /// The queue's first and last transfers, in the owner's entries.
    std::uint32_t* ends(std::uint32_t owner, Queue queue);
    std::uint32_t& next(std::uint32_t transfer);

    std::uint32_t per_owner_;
    std::uint32_t stride_; // entries per owner
    std::vector<std::uint32_t> entries_;
    std::vector<std::uint32_t> next_; // by transfer: the one after it in its queue
};

} // namespace popsim::replay::network

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The links of one kind in Dimemas' network (the nodes' input or output links, or the tasks' links
// within their node): how many each owner has, which transfers hold them in the order they took
// them, and which wait, first come, first served.
#include "replay/ring.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace popsim::replay::network {

/// Owners are made as transfers first use them. An owner's count of links held and its holders
/// lie side by side (12 bytes for the usual one link), its queues out of line, made when a
/// transfer first waits: with the queues inline an owner was 120 bytes, two cache lines, and with
/// thousands of nodes taking a link missed on both (5 % of a 4-network whatif at 1,024 ranks).
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
    Ring<std::uint32_t>& waiting(std::uint32_t owner, Queue queue = Queue::first);
    /// Takes the first transfer out of the queue into `next`; false if none waits.
    bool pop_waiting(std::uint32_t owner, Queue queue, std::uint32_t& next);

  private:
    static constexpr std::uint32_t k_no_queues = 0;
    /// The owner's entries: how many links it holds, its queues' index + 1 (k_no_queues: none
    /// yet), then per_owner_ holders.
    std::uint32_t* entries(std::uint32_t owner);

    std::uint32_t per_owner_;
    std::uint32_t stride_; // entries per owner
    std::vector<std::uint32_t> entries_;
    std::vector<std::array<Ring<std::uint32_t>, 2>> queues_;
};

} // namespace popsim::replay::network

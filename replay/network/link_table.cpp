// SPDX-License-Identifier: BSD-3-Clause
#include "replay/network/link_table.hpp"

#include <algorithm>
#include <cassert>

namespace popsim::replay::network {

namespace {
constexpr std::size_t k_held = 0, k_queues = 1, k_holders = 2; // an owner's entries
}

LinkTable::LinkTable(std::uint32_t per_owner) : per_owner_(per_owner), stride_(2 + per_owner) {}

std::uint32_t* LinkTable::entries(std::uint32_t owner) {
    const std::size_t first = std::size_t{owner} * stride_;
    if (first >= entries_.size()) entries_.resize(first + stride_, 0); // none held, no queues
    return entries_.data() + first;
}

bool LinkTable::take(std::uint32_t owner, std::uint32_t transfer) {
    if (unlimited()) return true;
    std::uint32_t* e = entries(owner);
    if (e[k_held] == per_owner_) return false;
    e[k_holders + e[k_held]++] = transfer;
    return true;
}

void LinkTable::give_back(std::uint32_t owner, std::uint32_t transfer) {
    if (unlimited()) return;
    std::uint32_t* e = entries(owner);
    std::uint32_t* holders = e + k_holders;
    std::uint32_t* const end = holders + e[k_held];
    std::uint32_t* const it = std::find(holders, end, transfer);
    assert(it != end); // only a holder gives a link back
    std::copy(it + 1, end, it);
    --e[k_held];
}

std::span<std::uint32_t> LinkTable::holders(std::uint32_t owner) {
    if (unlimited()) return {};
    std::uint32_t* e = entries(owner);
    return {e + k_holders, e[k_held]};
}

Ring<std::uint32_t>& LinkTable::waiting(std::uint32_t owner, Queue queue) {
    std::uint32_t* e = entries(owner);
    if (e[k_queues] == k_no_queues) {
        queues_.emplace_back();
        e[k_queues] = static_cast<std::uint32_t>(queues_.size()); // index + 1
    }
    return queues_[e[k_queues] - 1][static_cast<std::size_t>(queue)];
}

bool LinkTable::pop_waiting(std::uint32_t owner, Queue queue, std::uint32_t& next) {
    const std::uint32_t index = entries(owner)[k_queues];
    if (index == k_no_queues) return false;
    auto& ring = queues_[index - 1][static_cast<std::size_t>(queue)];
    if (ring.empty()) return false;
    next = ring.front();
    ring.pop_front();
    return true;
}

} // namespace popsim::replay::network

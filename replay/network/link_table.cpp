// SPDX-License-Identifier: BSD-3-Clause
#include "replay/network/link_table.hpp"

#include <algorithm>
#include <cassert>

namespace popsim::replay::network {

namespace {
// An owner's entries: links held, then the first and last of each of its two queues (Queue),
// then the holders.
constexpr std::size_t k_held = 0, k_queues = 1, k_holders = k_queues + 2 * 2;
} // namespace

LinkTable::LinkTable(std::uint32_t per_owner)
    : per_owner_(per_owner), stride_(k_holders + per_owner) {}

std::uint32_t* LinkTable::entries(std::uint32_t owner) {
    const std::size_t first = std::size_t{owner} * stride_;
    if (first >= entries_.size()) {
        // None held, nobody waiting.
        const std::size_t old = entries_.size();
        entries_.resize(first + stride_, k_nobody);
        for (std::size_t e = old; e < entries_.size(); e += stride_) entries_[e + k_held] = 0;
    }
    return entries_.data() + first;
}

std::uint32_t* LinkTable::ends(std::uint32_t owner, Queue queue) {
    return entries(owner) + k_queues + 2 * static_cast<std::size_t>(queue);
}

std::uint32_t& LinkTable::next(std::uint32_t transfer) {
    if (transfer >= next_.size()) next_.resize(std::size_t{transfer} + 1, k_nobody);
    return next_[transfer];
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

void LinkTable::wait_last(std::uint32_t owner, Queue queue, std::uint32_t transfer) {
    std::uint32_t* q = ends(owner, queue);
    next(transfer) = k_nobody;
    (q[1] == k_nobody ? q[0] : next(q[1])) = transfer;
    q[1] = transfer;
}

void LinkTable::wait_first(std::uint32_t owner, Queue queue, std::uint32_t transfer) {
    std::uint32_t* q = ends(owner, queue);
    next(transfer) = q[0];
    q[0] = transfer;
    if (q[1] == k_nobody) q[1] = transfer;
}

bool LinkTable::pop_waiting(std::uint32_t owner, Queue queue, std::uint32_t& first) {
    std::uint32_t* q = ends(owner, queue);
    if (q[0] == k_nobody) return false;
    first = q[0];
    q[0] = next(first);
    if (q[0] == k_nobody) q[1] = k_nobody;
    return true;
}

void LinkTable::stop_waiting(std::uint32_t owner, Queue queue, std::uint32_t transfer) {
    std::uint32_t* q = ends(owner, queue);
    std::uint32_t before = k_nobody;
    for (std::uint32_t t = q[0]; t != transfer; t = next(t)) {
        assert(t != k_nobody); // it waits in this queue
        before = t;
    }
    (before == k_nobody ? q[0] : next(before)) = next(transfer);
    if (q[1] == transfer) q[1] = before;
}

} // namespace popsim::replay::network

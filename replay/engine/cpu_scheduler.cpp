// SPDX-License-Identifier: BSD-3-Clause
#include "replay/engine/cpu_scheduler.hpp"

#include <algorithm>

namespace popsim::replay::engine {

CpuScheduler::CpuScheduler(std::vector<std::uint32_t> node_of_thread, std::uint32_t cpus_per_node)
    : node_of_(std::move(node_of_thread)) {
    if (cpus_per_node == 0 || node_of_.empty()) return;
    const auto nodes = *std::max_element(node_of_.begin(), node_of_.end()) + 1;
    std::vector<std::uint32_t> threads(nodes, 0);
    for (const auto n : node_of_) ++threads[n];
    limited_ = std::any_of(threads.begin(), threads.end(),
                           [&](std::uint32_t t) { return t > cpus_per_node; });
    if (!limited_) return;
    nodes_.resize(nodes);
    for (auto& node : nodes_) node.free_cpus = cpus_per_node;
}

void CpuScheduler::mark(std::uint32_t node) {
    if (nodes_[node].dirty) return;
    nodes_[node].dirty = true;
    dirty_.push_back(node);
}

void CpuScheduler::request(ReplayThread thread, bool at_head) {
    const auto n = node_of_[thread];
    auto& ready = nodes_[n].ready;
    if (at_head)
        ready.push_front(thread);
    else
        ready.push_back(thread);
    mark(n);
}

void CpuScheduler::release(ReplayThread thread) {
    const auto n = node_of_[thread];
    ++nodes_[n].free_cpus;
    mark(n);
}

} // namespace popsim::replay::engine

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/dependency_graph.hpp"

#include "replay/engine/engine.hpp"

#include <algorithm>
#include <boost/range/iterator_range.hpp>
#include <utility>

namespace popsim::replay {

namespace {

using Edge = std::pair<std::uint32_t, std::uint32_t>;

constexpr std::uint32_t k_start = k_none; // "the thread's start": time 0, no vertex

/// The operation whose end is the start of `op` (k_start for a thread's first operation).
std::uint32_t predecessor(const ReplayProgram& p, OpIndex op) {
    return op == p.thread_first_op[p.thread_of(op)] ? k_start : op - 1;
}

struct EdgeList {
    std::vector<Edge> edges;
    std::vector<DependencyEdge> weights;
    void add(std::uint32_t from, std::uint32_t to, Time weight) {
        if (from == k_start) return; // a start at time 0 constrains nothing
        edges.emplace_back(from, to);
        weights.push_back({weight});
    }
};

} // namespace

DependencyGraph build_dependency_graph(const ReplayProgram& p) {
    EdgeList list;
    list.edges.reserve(p.op_count() + 2 * p.messages.size());
    for (OpIndex op = 0; op < p.op_count(); ++op)
        list.add(predecessor(p, op), op, p.op_kind[op] == OpKind::burst ? p.burst_duration(op) : 0);
    const MessageOps ops = message_ops(p);
    for (MessageIndex m = 0; m < p.messages.size(); ++m) {
        list.add(predecessor(p, ops.send[m]), ops.wait[m], 0);
        if (p.messages[m].rendezvous && !p.messages[m].immediate_send)
            list.add(predecessor(p, ops.post[m]), ops.send[m], 0);
    }
    const auto collective_base = static_cast<std::uint32_t>(p.op_count());
    for (CollectiveIndex c = 0; c < p.collectives.size(); ++c) {
        const auto& coll = p.collectives[c];
        // The collective's vertex is reached when the members it waits for have arrived; it
        // releases the members that wait for them (CollectiveFlow).
        for (auto i = coll.first_member; i < coll.first_member + coll.member_count; ++i) {
            const OpIndex member = p.collective_members[i];
            const bool root = coll.flow != CollectiveFlow::all_members && p.is_root(member);
            if (coll.flow != CollectiveFlow::from_root || root)
                list.add(predecessor(p, member), collective_base + c, 0);
            if (coll.flow != CollectiveFlow::to_root || root) {
                list.edges.emplace_back(collective_base + c, member);
                list.weights.push_back({0});
            }
        }
    }
    const auto vertices = collective_base + static_cast<std::uint32_t>(p.collectives.size());
    return DependencyGraph(boost::edges_are_unsorted_multi_pass, list.edges.begin(),
                           list.edges.end(), list.weights.begin(), vertices);
}

ReplayResult replay_longest_path(const ReplayProgram& p, const DependencyGraph& g) {
    const auto n = static_cast<std::uint32_t>(boost::num_vertices(g));
    std::vector<std::uint32_t> in_degree(n, 0);
    for (auto e : boost::make_iterator_range(boost::edges(g))) ++in_degree[boost::target(e, g)];
    std::vector<Time> leave(n, 0); // the longest path to each vertex
    std::vector<std::uint32_t> ready;
    for (std::uint32_t v = 0; v < n; ++v) {
        if (in_degree[v] != 0) continue;
        ready.push_back(v);
        if (v < p.op_count() && p.op_kind[v] == OpKind::burst)
            leave[v] = p.burst_duration(v); // a first burst from time 0
    }
    std::uint32_t done = 0;
    while (!ready.empty()) {
        const std::uint32_t v = ready.back();
        ready.pop_back();
        ++done;
        for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
            const std::uint32_t w = boost::target(e, g);
            leave[w] = std::max(leave[w], add_times(leave[v], g[e].weight));
            if (--in_degree[w] == 0) ready.push_back(w);
        }
    }
    ReplayResult r;
    r.threads.resize(p.thread_count());
    r.op_end.assign(leave.begin(), leave.begin() + static_cast<std::ptrdiff_t>(p.op_count()));
    r.op_begin.resize(p.op_count());
    for (OpIndex op = 0; op < p.op_count(); ++op) {
        const auto pred = predecessor(p, op);
        r.op_begin[op] = pred == k_start ? 0 : r.op_end[pred];
    }
    if (done < n) {
        std::vector<OpIndex> position(p.thread_count());
        std::vector<Time> reached_at(p.thread_count(), 0);
        for (ReplayThread t = 0; t < p.thread_count(); ++t) {
            position[t] = p.thread_end_op(t);
            for (OpIndex op = p.thread_first_op[t]; op < p.thread_end_op(t); ++op) {
                if (in_degree[op] == 0) continue;
                position[t] = op;
                reached_at[t] = r.op_begin[op];
                break;
            }
        }
        throw deadlock(p, position, reached_at);
    }
    for (ReplayThread t = 0; t < p.thread_count(); ++t) {
        auto& times = r.threads[t];
        const OpIndex first = p.thread_first_op[t], last = p.thread_end_op(t);
        times.end = last > first ? r.op_end[last - 1] : 0;
        for (OpIndex op = first; op < last; ++op) {
            if (p.op_kind[op] == OpKind::burst) times.useful += p.burst_duration(op);
            if (p.is_thread_barrier(op)) times.fork_join += r.op_end[op] - r.op_begin[op];
        }
        times.waiting = times.end - times.useful -
                        times.fork_join; // nothing is in transfer on the ideal network
        r.runtime = std::max(r.runtime, times.end);
    }
    return r;
}

} // namespace popsim::replay

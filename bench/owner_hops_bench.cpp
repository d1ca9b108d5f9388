// SPDX-License-Identifier: BSD-3-Clause
// What a replay divided among K owners would exchange (docs/architecture.md, "The next step"):
// tasks in K contiguous blocks, a message between owners carries its send time, a collective
// completes on the owner of its lowest member. Prints, per K, how many values cross between
// owners and the most crossings along one dependency chain: no exchange scheme resolves the
// replay in fewer sequential steps, whatever each costs (a collective sub-round, a message's
// latency).
// Usage: popsim_owner_hops_bench TRACE K...   (K above the task count are left out)
#include "replay/allocator_tuning.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/program/dependency_graph.hpp"

#include <algorithm>
#include <boost/range/iterator_range.hpp>
#include <charconv>
#include <fmt/format.h>
#include <string_view>

using namespace popsim::replay;
using popsim::Time;

namespace {

/// The owner of every vertex: an operation's is its task's, a collective's its lowest member's.
std::vector<std::uint32_t> vertex_owners(const ReplayProgram& p, std::uint32_t owners) {
    const auto owner_of_task = [&](std::uint32_t task) {
        return static_cast<std::uint32_t>(std::uint64_t{task} * owners / p.tasks);
    };
    std::vector<std::uint32_t> owner(p.op_count() + p.collectives.size());
    for (ReplayThread t = 0; t < p.thread_count(); ++t)
        std::fill(owner.begin() + p.thread_first_op[t], owner.begin() + p.thread_end_op(t),
                  owner_of_task(p.thread_task[t]));
    for (std::size_t c = 0; c < p.collectives.size(); ++c) {
        const auto& op = p.collectives[c];
        std::uint32_t lowest = owners;
        for (std::uint32_t m = 0; m < op.member_count; ++m)
            lowest = std::min(lowest, owner[p.collective_members[op.first_member + m]]);
        owner[p.op_count() + c] = lowest;
    }
    return owner;
}

struct Crossings {
    std::uint64_t values = 0; // edges between owners: values sent
    Time chain = 0;           // the most of them on one dependency chain
};

/// Every edge weighs 1 when it joins two owners and bursts take no time, so the longest path
/// (the ideal replay's own) counts crossings.
Crossings crossings(ReplayProgram& hops, DependencyGraph& graph, std::uint32_t owners) {
    const auto owner = vertex_owners(hops, owners);
    Crossings c;
    for (auto e : boost::make_iterator_range(boost::edges(graph))) {
        const bool crosses = owner[boost::source(e, graph)] != owner[boost::target(e, graph)];
        graph[e].weight = crosses ? 1 : 0;
        c.values += crosses;
    }
    c.chain = replay_longest_path(hops, graph).runtime;
    return c;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        fmt::print(stderr, "usage: {} TRACE K...\n", argv[0]);
        return 1;
    }
    keep_freed_memory_in_heap();
    const Trace trace = read_paraver(argv[1]);
    ReplayProgram program = build_replay_program(trace);
    DependencyGraph graph = build_dependency_graph(program);
    std::fill(program.burst_durations.begin(), program.burst_durations.end(), Time{0});
    const double mb = static_cast<double>(trace.counts.bytes) / 1e6;
    fmt::print("trace {}: {:.1f} MB of text, {} tasks, {} operations, {} messages, {} "
               "collectives\n",
               argv[1], mb, program.tasks, program.op_count(), program.messages.size(),
               program.collectives.size());
    fmt::print("{:>8} {:>16} {:>16} {:>16}\n", "owners", "values crossing", "chain crossings",
               "crossings per MB");
    for (int a = 2; a < argc; ++a) {
        const std::string_view arg = argv[a];
        std::uint32_t owners = 0;
        if (std::from_chars(arg.data(), arg.data() + arg.size(), owners).ec != std::errc{} ||
            owners == 0) {
            fmt::print(stderr, "{}: not a count of owners\n", arg);
            return 1;
        }
        if (owners > program.tasks) continue; // a block per task at most
        const Crossings c = crossings(program, graph, owners);
        fmt::print("{:>8} {:>16} {:>16} {:>16.1f}\n", owners, c.values, c.chain,
                   static_cast<double>(c.chain) / mb);
    }
}

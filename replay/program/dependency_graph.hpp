// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The replay program as a dependency graph (a Boost.Graph compressed sparse row graph, built
// once): one vertex per operation, whose value is the time the task leaves it, plus one vertex per
// collective. Edges carry the minimum delay between their ends:
//   program order   previous op -> op, weight = the op's burst duration (0 for MPI operations)
//   message         op before the send -> the receive's wait: data leaves when the send starts
//   rendezvous      op before the receive's post -> the blocking send: it waits for the post
//   collective      op before each member -> collective -> each member
// On the ideal network every operation leaves at the longest path to it, so one pass in
// topological order gives the same timeline as the event engine (tests check both agree).
#include "replay/engine/replay_result.hpp"
#include "replay/program/replay_program.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>

namespace popsim::replay {

struct DependencyEdge {
    Time weight = 0;
};

using DependencyGraph =
    boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, DependencyEdge,
                                       boost::no_property, std::uint32_t, std::uint32_t>;

/// Vertices 0..op_count-1 are the operations; op_count + c is collective c.
DependencyGraph build_dependency_graph(const ReplayProgram& program);

/// The ideal-network replay by longest paths. Throws ReplayDeadlock on a cycle.
ReplayResult replay_longest_path(const ReplayProgram& program, const DependencyGraph& graph);

} // namespace popsim::replay

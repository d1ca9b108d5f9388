// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Per-thread raw quantities of the OpenMP and hybrid models (metrics-reference §1.3, §1.5).
//
// "In OpenMP" follows PyPOP's cfgs: a stack over Extrae's events 60000001 (parallel region),
// 60000005 (barrier), 60000018 (outlined function) and 60000023 (task function), where a non-zero
// value pushes and 0 pops; a thread is in OpenMP while the stack is not empty.
#include "replay/program/openmp_regions.hpp"
#include "replay/trace.hpp"

#include <vector>

namespace popsim::metrics {

struct ThreadBreakdown {
    Time useful = 0;        // Running
    Time useful_in_omp = 0; // Running while in OpenMP
    Time omp_region = 0;    // in OpenMP (any state)
    Time active = 0;        // in any state but Idle (0) and Tracing disabled (14): PyPOP's runtime
    Time mpi = 0;           // inside MPI calls
    Time mpi_outside_omp = 0; // inside MPI calls that begin outside OpenMP
    std::uint64_t instructions = 0;
    std::uint64_t cycles = 0;

    Time useful_outside_omp() const { return useful - useful_in_omp; }
};

std::vector<ThreadBreakdown> thread_breakdowns(const replay::Trace& trace);

/// Whether events of `type` open and close what counts as "in OpenMP" (the stack above).
bool is_openmp_stack_type(std::uint32_t type);
/// The place of `type` among the stack's types (in the order above): changes at one time apply
/// in that order. Only for stack types.
std::uint8_t openmp_stack_order(std::uint32_t type);

/// Whether a thread in Paraver state `state` is active (PyPOP's runtime): any state but Idle,
/// Tracing disabled and the gaps no record covers.
bool is_active_state(std::uint8_t state);

using replay::inside;
using replay::Intervals;
using replay::parallel_regions;

/// The intervals in which thread `t` is in OpenMP, in time order.
Intervals openmp_intervals(const replay::ThreadTimeline& t, Time trace_end);

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Extrae's Paraver encoding of the event types and values popsim interprets
// (docs/file-formats.md lists their origin).
#include <cstdint>

namespace popsim::replay::extrae {

// MPI call events: value > 0 enters the call with that id, value 0 leaves it.
inline constexpr std::uint32_t k_mpi_point_to_point = 50000001;
inline constexpr std::uint32_t k_mpi_collective = 50000002;
inline constexpr std::uint32_t k_mpi_other = 50000003;
inline constexpr std::uint32_t k_mpi_one_sided = 50000004;
inline constexpr std::uint32_t k_mpi_io = 50000005;
constexpr bool is_mpi_call_type(std::uint32_t type) {
    return type >= k_mpi_point_to_point && type <= k_mpi_io;
}

// Collective attributes, on the line of the collective's entry.
inline constexpr std::uint32_t k_collective_send_size = 50100001;
inline constexpr std::uint32_t k_collective_recv_size = 50100002;
inline constexpr std::uint32_t k_collective_root = 50100003;
inline constexpr std::uint32_t k_collective_communicator = 50100004;

// The function that called an MPI call (level 1 of its call stack; the .pcf names the values), on
// the line of the call's entry.
inline constexpr std::uint32_t k_caller = 70000001;
/// Extrae's callers of MPI calls and their lines (levels 1-99) are points, on each call's entry
/// line (the computation leading to a call is at its site); other region types are intervals.
constexpr bool is_call_site_type(std::uint32_t type) {
    return (type > 70000000 && type < 70000100) || (type > 80000000 && type < 80000100);
}

// Instrumented user functions: the function's value at its entry, 0 at its exit; they nest.
inline constexpr std::uint32_t k_user_function = 60000019;

// Hardware counters: deltas since the previous read on the same thread.
inline constexpr std::uint32_t k_papi_total_instructions = 42000050;
inline constexpr std::uint32_t k_papi_total_cycles = 42000059;
/// Paraver's range of hardware counter types (its cutter's rule too).
constexpr bool is_counter_type(std::uint32_t type) {
    return type >= 42000000 && type < 50000000;
}
constexpr bool is_collective_attribute(std::uint32_t type) {
    return type >= k_collective_send_size && type <= k_collective_communicator;
}

inline constexpr std::uint32_t k_tracing_on_off = 40000012;

// OpenMP (Extrae 3.x encoding, as in the available traces).
inline constexpr std::uint32_t k_omp_parallel = 60000001;
inline constexpr std::uint32_t k_omp_worksharing = 60000002;
inline constexpr std::uint32_t k_omp_barrier = 60000005;
inline constexpr std::uint32_t k_omp_outlined_function = 60000018;
inline constexpr std::uint32_t k_omp_task_function = 60000023;
/// Extrae's OpenMP event types (600000xx).
constexpr bool is_openmp_event(std::uint32_t type) {
    return type / 100 == 600000;
}

// Paraver states written by Extrae.
inline constexpr std::uint8_t k_state_idle = 0;
inline constexpr std::uint8_t k_state_running = 1;
inline constexpr std::uint8_t k_state_not_created = 2;
inline constexpr std::uint8_t k_state_synchronization = 5;
inline constexpr std::uint8_t k_state_fork_join = 7; // "Scheduling and Fork/Join"
inline constexpr std::uint8_t k_state_tracing_disabled = 14;

} // namespace popsim::replay::extrae

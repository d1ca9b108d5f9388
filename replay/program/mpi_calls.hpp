// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Extrae's MPI call ids (the values of events 50000001-50000005), what each call does for the
// replay, and the Paraver state Extrae shows during it.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace popsim::replay {

enum class CallClass : std::uint8_t {
    blocking_send,  // Send, Ssend, Rsend: may wait for the receiver (rendezvous)
    immediate_send, // Isend, Ibsend, Issend, Irsend, Bsend: never waits
    blocking_recv,  // Recv, Mrecv
    immediate_recv, // Irecv, Imrecv: posts a receive
    wait,           // Wait*, Test*: completes posted receives
    sendrecv,       // Sendrecv, Sendrecv_replace
    probe,          // Probe, Iprobe, Mprobe, Improbe
    collective,     // blocking collectives
    immediate_collective,
    persistent_start, // Start, Startall
    init,             // MPI_Init: ends in a synchronisation
    other,            // no communication (Comm_rank, Finalize, ...)
};

struct MpiCall {
    std::uint16_t id = 0;
    std::uint32_t event_type = 0; // 50000001..50000005
    std::string_view name;        // without the "MPI_" prefix
    CallClass cls = CallClass::other;
    std::uint8_t state = 15; // Paraver state Extrae writes during the call
    bool rooted = false;     // collective with a root (Bcast, Reduce, Gather, Scatter, ...)
};

/// Extrae's ids of the calls the replay names: MPI_Init ends in an MPI_Barrier (as prv2dim writes
/// it), and a receive whose task calls MPI_Cancel may be re-paired (communication_repair.hpp).
inline constexpr std::uint16_t k_mpi_barrier = 8;
inline constexpr std::uint16_t k_mpi_cancel = 40;
/// MPI_Finalize, which with MPI_Init is the run's start-up and shut-down (metrics/startup.hpp).
inline constexpr std::uint16_t k_mpi_finalize = 32;

/// "MPI_Send", or "MPI call 1234" for an id popsim does not know.
std::string mpi_call_name(std::uint16_t id);
/// The call with Extrae id `id`, or nullopt for an id popsim does not know.
std::optional<MpiCall> mpi_call_by_id(std::uint16_t id);
/// The class of each call id below 256 (CallClass::other for ids popsim does not know).
extern const std::array<CallClass, 256> k_call_classes;
/// The class of call `id`; cheaper than mpi_call_by_id where only the class matters (the replay
/// asks once per record and call).
inline CallClass call_class(std::uint16_t id) {
    return id < k_call_classes.size() ? k_call_classes[id] : CallClass::other;
}
/// The calls the replay numbers in a communicator's sequence of collectives (MPI_Init ends in a
/// barrier), which a cut counts before its start.
inline bool numbered_as_collective(CallClass cls) {
    return cls == CallClass::collective || cls == CallClass::immediate_collective ||
           cls == CallClass::init;
}
/// By name, with or without "MPI_", case-insensitive ("Allreduce", "MPI_Send").
std::optional<MpiCall> mpi_call_by_name(std::string_view name);

/// Dimemas' collective operation id (0 Barrier, 1 Bcast, ...) for a collective call, or nullopt.
std::optional<std::uint32_t> dimemas_global_op_id(std::uint16_t call_id);

} // namespace popsim::replay

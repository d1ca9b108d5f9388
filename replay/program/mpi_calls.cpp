// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/mpi_calls.hpp"

#include "replay/text/ignoring_case.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace popsim::replay {

namespace {

constexpr std::uint32_t p2p = 50000001, coll = 50000002, oth = 50000003, rma = 50000004;
using C = CallClass;

// Ids from Extrae's MPI_EventEncoding.h; states from its mpi_prv_semantics.c
// (docs/file-formats.md).
constexpr std::array k_calls = {
    MpiCall{1, p2p, "Send", C::blocking_send, 4},
    MpiCall{2, p2p, "Recv", C::blocking_recv, 3},
    MpiCall{3, p2p, "Isend", C::immediate_send, 10},
    MpiCall{4, p2p, "Irecv", C::immediate_recv, 11},
    MpiCall{5, p2p, "Wait", C::wait, 8},
    MpiCall{6, p2p, "Waitall", C::wait, 8},
    MpiCall{33, p2p, "Bsend", C::immediate_send, 4},
    MpiCall{34, p2p, "Ssend", C::blocking_send, 4},
    MpiCall{35, p2p, "Rsend", C::blocking_send, 4},
    MpiCall{36, p2p, "Ibsend", C::immediate_send, 10},
    MpiCall{37, p2p, "Issend", C::immediate_send, 10},
    MpiCall{38, p2p, "Irsend", C::immediate_send, 10},
    MpiCall{40, p2p, "Cancel", C::other, 15},
    MpiCall{41, p2p, "Sendrecv", C::sendrecv, 16},
    MpiCall{42, p2p, "Sendrecv_replace", C::sendrecv, 16},
    MpiCall{59, p2p, "Waitany", C::wait, 8},
    MpiCall{60, p2p, "Waitsome", C::wait, 8},
    MpiCall{61, p2p, "Probe", C::probe, 6},
    MpiCall{62, p2p, "Iprobe", C::probe, 6},
    MpiCall{190, p2p, "Mprobe", C::probe, 6},
    MpiCall{191, p2p, "Improbe", C::probe, 6},
    MpiCall{192, p2p, "Mrecv", C::blocking_recv, 3},
    MpiCall{193, p2p, "Imrecv", C::immediate_recv, 11},
    MpiCall{112, p2p, "Bsend_init", C::other, 15},
    MpiCall{116, p2p, "Recv_init", C::other, 15},
    MpiCall{117, p2p, "Send_init", C::other, 15},
    MpiCall{121, p2p, "Rsend_init", C::other, 15},
    MpiCall{122, p2p, "Ssend_init", C::other, 15},
    MpiCall{7, coll, "Bcast", C::collective, 13, true},
    MpiCall{8, coll, "Barrier", C::collective, 13},
    MpiCall{9, coll, "Reduce", C::collective, 13, true},
    MpiCall{10, coll, "Allreduce", C::collective, 13},
    MpiCall{11, coll, "Alltoall", C::collective, 13},
    MpiCall{12, coll, "Alltoallv", C::collective, 13},
    MpiCall{13, coll, "Gather", C::collective, 13, true},
    MpiCall{14, coll, "Gatherv", C::collective, 13, true},
    MpiCall{15, coll, "Scatter", C::collective, 13, true},
    MpiCall{16, coll, "Scatterv", C::collective, 13, true},
    MpiCall{17, coll, "Allgather", C::collective, 13},
    MpiCall{18, coll, "Allgatherv", C::collective, 13},
    MpiCall{30, coll, "Scan", C::collective, 13},
    MpiCall{80, coll, "Reduce_scatter", C::collective, 13},
    MpiCall{168, coll, "Reduce_scatter_block", C::collective, 13},
    MpiCall{170, coll, "Alltoallw", C::collective, 13},
    MpiCall{214, coll, "Exscan", C::collective, 13},
    MpiCall{154, coll, "Ireduce", C::immediate_collective, 13, true},
    MpiCall{155, coll, "Iallreduce", C::immediate_collective, 13},
    MpiCall{156, coll, "Ibarrier", C::immediate_collective, 13},
    MpiCall{157, coll, "Ibcast", C::immediate_collective, 13, true},
    MpiCall{158, coll, "Ialltoall", C::immediate_collective, 13},
    MpiCall{159, coll, "Ialltoallv", C::immediate_collective, 13},
    MpiCall{160, coll, "Iallgather", C::immediate_collective, 13},
    MpiCall{161, coll, "Iallgatherv", C::immediate_collective, 13},
    MpiCall{162, coll, "Igather", C::immediate_collective, 13, true},
    MpiCall{163, coll, "Igatherv", C::immediate_collective, 13, true},
    MpiCall{164, coll, "Iscatter", C::immediate_collective, 13, true},
    MpiCall{165, coll, "Iscatterv", C::immediate_collective, 13, true},
    MpiCall{166, coll, "Ireduce_scatter", C::immediate_collective, 13},
    MpiCall{167, coll, "Iscan", C::immediate_collective, 13},
    MpiCall{169, coll, "Ireduce_scatter_block", C::immediate_collective, 13},
    MpiCall{215, coll, "Iexscan", C::immediate_collective, 13},
    MpiCall{19, oth, "Comm_rank", C::other, 15},
    MpiCall{20, oth, "Comm_size", C::other, 15},
    MpiCall{21, oth, "Comm_create", C::other, 15},
    MpiCall{22, oth, "Comm_dup", C::other, 15},
    MpiCall{23, oth, "Comm_split", C::other, 15},
    MpiCall{25, oth, "Comm_free", C::other, 15},
    MpiCall{31, oth, "Init", C::init, 15},
    MpiCall{32, oth, "Finalize", C::other, 15},
    MpiCall{39, oth, "Test", C::wait, 6},
    MpiCall{123, oth, "Start", C::persistent_start, 15},
    MpiCall{124, oth, "Startall", C::persistent_start, 15},
    MpiCall{125, oth, "Testall", C::wait, 6},
    MpiCall{126, oth, "Testany", C::wait, 6},
    MpiCall{128, oth, "Testsome", C::wait, 6},
    MpiCall{115, oth, "Request_free", C::other, 15},
    MpiCall{43, oth, "Cart_create", C::other, 15},
    MpiCall{194, oth, "Comm_split_type", C::other, 15},
    MpiCall{211, oth, "Comm_dup_with_info", C::other, 15},
    MpiCall{63, rma, "Win_create", C::other, 15},
    MpiCall{64, rma, "Win_free", C::other, 15},
    MpiCall{65, rma, "Put", C::other, 15},
    MpiCall{66, rma, "Get", C::other, 15},
    MpiCall{68, rma, "Win_fence", C::other, 15},
};

} // namespace

// Replay and synth look calls up once per record: index them by id (ids are below 256).
constexpr std::size_t k_max_id = 256;
constexpr auto k_index_by_id = [] {
    std::array<std::int16_t, k_max_id> index{};
    index.fill(-1);
    for (std::size_t i = 0; i < k_calls.size(); ++i)
        index[k_calls[i].id] = static_cast<std::int16_t>(i);
    return index;
}();

const std::array<CallClass, k_max_id> k_call_classes = [] {
    std::array<CallClass, k_max_id> classes{};
    classes.fill(CallClass::other);
    for (const auto& c : k_calls) classes[c.id] = c.cls;
    return classes;
}();

std::optional<MpiCall> mpi_call_by_id(std::uint16_t id) {
    if (id >= k_max_id || k_index_by_id[id] < 0) return std::nullopt;
    return k_calls[static_cast<std::size_t>(k_index_by_id[id])];
}

std::optional<MpiCall> mpi_call_by_name(std::string_view name) {
    if (name.size() > 4 && equal_ignoring_case(name.substr(0, 4), "MPI_")) name.remove_prefix(4);
    // Extrae records MPI_Init_thread as MPI_Init (its wrappers emit MPI_INIT_EV for both): so do
    // the readers of other tools' traces (Score-P's region MPI_Init_thread).
    if (equal_ignoring_case(name, "Init_thread")) name = "Init";
    for (const auto& c : k_calls)
        if (equal_ignoring_case(c.name, name)) return c;
    return std::nullopt;
}

std::optional<std::uint32_t> dimemas_global_op_id(std::uint16_t call_id) {
    switch (call_id) {
    case 8:
        return 0; // Barrier
    case 7:
        return 1; // Bcast
    case 13:
        return 2; // Gather
    case 14:
        return 3; // Gatherv
    case 15:
        return 4; // Scatter
    case 16:
        return 5; // Scatterv
    case 17:
        return 6; // Allgather
    case 18:
        return 7; // Allgatherv
    case 11:
        return 8; // Alltoall
    case 12:
        return 9; // Alltoallv
    case 9:
        return 10; // Reduce
    case 10:
        return 11; // Allreduce
    case 80:
        return 12; // Reduce_scatter
    case 168:
        return 13; // Reduce_scatter_block
    case 30:
        return 14; // Scan
    case 170:
        return 15; // Alltoallw
    case 214:
        return 14; // Exscan is modelled as a Scan
    default:
        return std::nullopt;
    }
}

std::string mpi_call_name(std::uint16_t id) {
    const auto call = mpi_call_by_id(id);
    return call ? fmt::format("MPI_{}", call->name) : fmt::format("MPI call {}", id);
}

} // namespace popsim::replay

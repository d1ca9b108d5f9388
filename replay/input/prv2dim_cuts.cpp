// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/prv2dim_cuts.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <array>

namespace popsim::replay {

namespace {

// The types prv2dim treats as blocks or drops, from its event encoding (Dimemas 5.5.0).
constexpr std::array<std::uint32_t, 16> k_openmp_types{
    60000001, 60000002, 60000005, 60000011, 60000018, 60000020, 60000022, 60000023,
    60000024, 60000028, 60000030, 60000031, 60000118, 60000120, 60000123, 60000124};
constexpr std::array<std::uint32_t, 3> k_user_types{60000019, 60000020, 60000021};
constexpr std::array<std::uint32_t, 7> k_other_blocks{
    90000001,           // cluster id
    63000000, 63000014, // CUDA library calls, memory transfers
    64000000, 64100000, // OpenCL host and accelerator calls
    50000300, 50000301, // MPI probe soft and time counters
};

bool among(std::span<const std::uint32_t> types, std::uint32_t type) {
    return std::find(types.begin(), types.end(), type) != types.end();
}

} // namespace

bool prv2dim_plain_event(std::uint32_t type) {
    if (type >= 9 && type <= 16) return false; // pseudo logical receives, dropped
    return !extrae::is_mpi_call_type(type) && !among(k_openmp_types, type) &&
           !among(k_user_types, type) && !among(k_other_blocks, type);
}

void Prv2dimCuts::record(Time time, std::vector<Time>& cuts) {
    if (started_) return;
    started_ = true;
    cuts.push_back(0);
    cuts.push_back(time);
    last_end_ = time;
}

void Prv2dimCuts::event(Time time, std::span<const EventPair> pairs, std::vector<Time>& cuts) {
    const auto cut_if_time_passed = [&] {
        if (time > last_end_) cuts.push_back(time);
        last_end_ = time;
    };
    for (const auto& p : pairs) {
        if (among(k_user_types, p.type)) {
            if (p.value != 0) {
                ++open_user_blocks_;
                cut_if_time_passed();
            } else if (open_user_blocks_ > 0) { // prv2dim ignores an end of no block
                --open_user_blocks_;
                cut_if_time_passed();
            }
        } else if (extrae::is_mpi_call_type(p.type)) {
            if (p.value != 0) {
                in_call_ = true;
            } else if (in_call_) { // prv2dim ignores an exit from no call
                in_call_ = false;
                last_end_ = time;
            }
        } else if (!in_call_ && prv2dim_plain_event(p.type) && (time != last_end_ || time == 0)) {
            cuts.push_back(time);
            last_end_ = time;
        }
    }
}

} // namespace popsim::replay

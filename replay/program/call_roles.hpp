// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which MPI call of a thread plays a part (send, post, completion) in a communication record: the
// rule both replay programs follow, the in-memory one (replay_program.cpp) and the streaming one
// (replay/streaming/).
#include "replay/program/mpi_calls.hpp"
#include "replay/time.hpp"

#include <cstdint>
#include <limits>
#include <utility>

namespace popsim::replay {

enum class Role { send, post, complete };

inline constexpr std::uint64_t k_no_call = std::numeric_limits<std::uint64_t>::max();

constexpr bool can_play(CallClass cls, Role role) {
    using C = CallClass;
    switch (role) {
    case Role::send:
        return cls == C::blocking_send || cls == C::immediate_send || cls == C::sendrecv ||
               cls == C::persistent_start || cls == C::probe;
    case Role::post:
        return cls == C::blocking_recv || cls == C::immediate_recv || cls == C::sendrecv ||
               cls == C::persistent_start;
    case Role::complete:
        return cls == C::blocking_recv || cls == C::sendrecv || cls == C::wait;
    }
    return false;
}

/// The call that plays `role` for a record time `t`, given `last`, the latest call beginning at or
/// before `t` (k_no_call: none), and the calls' `begin`, `end` and `id` by number. Records carry
/// call entry times (sends, Recv posts), exit times (completions, Irecv posts) or lie inside a
/// call; when one call ends and another begins at `t`, the one whose kind plays the role at that
/// end wins. A call found but of the wrong kind is returned too (its caller reports it); k_no_call
/// when no call is there.
template <class Begin, class End, class Id>
std::uint64_t call_playing(Time t, Role role, std::uint64_t last, Begin begin, End end, Id id) {
    if (last == k_no_call) return k_no_call;
    std::uint64_t beginning = k_no_call, ending = k_no_call;
    if (end(last) >= t) (begin(last) == t ? beginning : ending) = last;
    if (last > 0 && end(last - 1) == t) ending = last - 1;
    auto fits = [&](std::uint64_t c) {
        return c != k_no_call && can_play(call_class(id(c)), role);
    };
    const bool exit_time = role == Role::complete ||
                           (fits(ending) && call_class(id(ending)) == CallClass::immediate_recv);
    const auto [first, second] =
        exit_time ? std::pair{ending, beginning} : std::pair{beginning, ending};
    if (fits(first)) return first;
    if (fits(second)) return second;
    return beginning != k_no_call ? beginning : ending;
}

/// Whether a call of class `cls` that sends and completes as said lacks the record it should
/// have (warned as "calls-without-record").
constexpr bool lacks_record(CallClass cls, bool sends, bool completes) {
    return ((cls == CallClass::blocking_send || cls == CallClass::immediate_send) && !sends) ||
           (cls == CallClass::blocking_recv && !completes) ||
           (cls == CallClass::sendrecv && !sends && !completes);
}

} // namespace popsim::replay

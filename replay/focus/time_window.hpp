// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A window [from, to) of a trace and the rules that decide what of each record lies in it. One set
// of rules for every way popsim cuts a trace: `popsim cut` writing a file, and `--from/--to`,
// `--region` and `--phases` analysing in memory (docs/focus.md, "What a window keeps").
#include "replay/time.hpp"

#include <optional>
#include <utility>

namespace popsim::replay {

struct TimeWindow {
    Time from = 0;
    Time to = 0;

    Time length() const { return to - from; }
    /// Times in the window restart at 0, as in a trace Paraver's cutter writes.
    Time rebase(Time t) const { return t - from; }

    /// The part of a record spanning [begin, end) inside the window, if any.
    std::optional<std::pair<Time, Time>> clip(Time begin, Time end) const {
        const Time b = begin < from ? from : begin, e = end > to ? to : end;
        if (b >= e) return std::nullopt;
        return std::pair{b, e};
    }
    /// An event that sets a value (a call entry or exit, a region, an OpenMP construct) is kept
    /// after `from`; what is in effect at `from` is set again at `from`, and every value still
    /// set at `to` is reset to 0 there.
    bool keeps_event(Time t) const { return t > from && t < to; }
    /// A hardware counter read at `t` counts the burst that ends at `t`: reads after `from` up to
    /// `to` belong to the window.
    bool keeps_counter_read(Time t) const { return t > from && t <= to; }
    /// A message is kept when the calls that send and receive it lie in the window (Paraver's
    /// cutter: logical send and receive at or after the start, receive completed by the end).
    bool keeps_message(Time logical_send, Time logical_recv, Time physical_recv) const {
        return logical_send >= from && logical_recv >= from && physical_recv <= to;
    }
};

} // namespace popsim::replay

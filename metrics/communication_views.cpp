// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/communication_views.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace popsim::metrics {

namespace {

/// Sizes are 64-bit in the trace: a sum that would pass 2^64 - 1 bytes stays there (16 EiB,
/// shown as such) rather than wrapping round to a small number.
void add_bytes(std::uint64_t& sum, std::uint64_t bytes) {
    sum = bytes > UINT64_MAX - sum ? UINT64_MAX : sum + bytes;
}

/// Adds the span [from, to) to `bins` of width `width`, each bin its overlap.
void spread(Time from, Time to, Time width, std::vector<Time>& bins) {
    if (to <= from || width <= 0 || bins.empty()) return;
    const auto last = static_cast<std::size_t>(bins.size() - 1);
    for (auto k = std::min(static_cast<std::size_t>(from / width), last); from < to; ++k) {
        const Time bin_end = k == last ? to : std::min(to, static_cast<Time>(k + 1) * width);
        bins[k] += bin_end - from;
        from = bin_end;
    }
}

/// The bin of a message of `bytes`: 0 for none, else 1 + the position of its highest bit.
std::size_t size_bin(std::uint64_t bytes) {
    return bytes == 0 ? 0 : static_cast<std::size_t>(std::bit_width(bytes));
}

} // namespace

CommunicationViews communication_views(const replay::Trace& trace, std::size_t time_bins) {
    CommunicationViews v;
    v.ranks = trace.task_count();
    std::map<std::pair<std::uint32_t, std::uint32_t>, RankPair> pairs;
    std::vector<SizeBin> sizes(65);
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        sizes[k].from_bytes = k == 0 ? 0 : std::uint64_t{1} << (k - 1);
        sizes[k].to_bytes = k == 0 ? 1 : k == 64 ? UINT64_MAX : std::uint64_t{1} << k;
    }
    const auto& c = trace.comms;
    for (std::size_t m = 0; m < c.size(); ++m) {
        const auto from = trace.threads[c.sender[m]].name.task,
                   to = trace.threads[c.receiver[m]].name.task;
        auto& pair = pairs[{from, to}];
        pair.sender = from;
        pair.receiver = to;
        ++pair.messages;
        add_bytes(pair.bytes, c.bytes[m]);
        auto& bin = sizes[size_bin(c.bytes[m])];
        ++bin.messages;
        add_bytes(bin.bytes, c.bytes[m]);
        ++v.messages;
        add_bytes(v.bytes, c.bytes[m]);
    }
    for (const auto& [key, pair] : pairs) v.pairs.push_back(pair);
    for (const auto& bin : sizes)
        if (bin.messages > 0) v.sizes.push_back(bin);
    // The time profile: each rank's first thread, as the MPI model counts useful time.
    const Time end = std::max<Time>(trace.end_time(), 1);
    time_bins = std::max<std::size_t>(1, std::min<std::size_t>(time_bins, end));
    v.bin_ns = (end + static_cast<Time>(time_bins) - 1) / static_cast<Time>(time_bins);
    v.useful_ns.assign(v.ranks, std::vector<Time>(time_bins, 0));
    v.mpi_ns.assign(v.ranks, std::vector<Time>(time_bins, 0));
    std::vector<bool> seen(v.ranks, false);
    for (const auto& t : trace.threads) {
        const auto rank = t.name.task - 1;
        if (rank >= v.ranks || seen[rank]) continue;
        seen[rank] = true;
        for (std::size_t i = 0; i < t.state_count(); ++i)
            if (t.state_value[i] == replay::extrae::k_state_running)
                spread(t.state_begin[i], t.state_end(i), v.bin_ns, v.useful_ns[rank]);
        for (std::size_t i = 0; i < t.call_begin.size(); ++i)
            spread(t.call_begin[i], t.call_end[i], v.bin_ns, v.mpi_ns[rank]);
    }
    return v;
}

} // namespace popsim::metrics

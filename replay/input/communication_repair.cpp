// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/communication_repair.hpp"

#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <boost/container_hash/hash.hpp>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>
#include <optional>
#include <set>
#include <tuple>

namespace popsim::replay {

namespace {

constexpr std::uint32_t k_unpaired = 0xffffffffu;

/// The entry times of each thread's MPI_Cancel calls (empty for most threads).
std::vector<std::vector<Time>> cancel_times(const Trace& trace) {
    std::vector<std::vector<Time>> out(trace.threads.size());
    oneapi::tbb::parallel_for(std::size_t{0}, trace.threads.size(), [&](std::size_t t) {
        const auto& tl = trace.threads[t];
        for (std::size_t c = 0; c < tl.call_id.size(); ++c)
            if (tl.call_id[c] == k_mpi_cancel) out[t].push_back(tl.call_begin[c]);
    });
    return out;
}

/// The call of `tl` that a completion at `t` (a call's exit time) lies in; k_unpaired if none.
std::uint32_t completing_call(const ThreadTimeline& tl, Time t) {
    auto c = static_cast<std::uint32_t>(
        std::upper_bound(tl.call_begin.begin(), tl.call_begin.end(), t) - tl.call_begin.begin());
    if (c == 0) return k_unpaired;
    --c;
    if (c > 0 && tl.call_end[c - 1] == t) return c - 1; // the call ending at t, not the next
    return tl.call_end[c] >= t ? c : k_unpaired;
}

class ChannelRepair {
  public:
    ChannelRepair(const Trace& trace, const std::vector<Time>& receiver_cancels,
                  std::vector<std::uint32_t> records)
        : c_(trace.comms), receiver_(trace.threads[trace.comms.receiver[records[0]]]),
          cancels_(receiver_cancels), records_(std::move(records)) {}

    /// Each record's (as a send) new receive record, or k_unpaired; fills the counts.
    void pair(std::vector<std::uint32_t>& receive_of_send, CommunicationRepairs& counts) {
        std::vector<bool> cancelled = find_cancelled();
        const auto n_cancelled = std::count(cancelled.begin(), cancelled.end(), true);
        counts.cancelled_receives += static_cast<std::uint64_t>(n_cancelled);
        std::vector<std::uint32_t> sends = records_, receives;
        for (std::size_t k = 0; k < records_.size(); ++k)
            if (!cancelled[k]) receives.push_back(records_[k]);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
        if (n_cancelled > 0)
            pairs = first_in_first_out(sends, receives);
        else
            pairs = as_recorded();
        if (std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) { return backward(p); }))
            pairs = earliest_earlier_send(sends, receives);
        for (const auto& [send, receive] : pairs) {
            receive_of_send[send] = receive;
            counts.repaired_records += send != receive ? 1 : 0;
        }
        counts.unpaired_sends += records_.size() - pairs.size();
        counts.unpaired_receives += receives.size() - pairs.size();
    }

  private:
    bool backward(const std::pair<std::uint32_t, std::uint32_t>& p) const {
        return c_.physical_recv[p.second] < c_.logical_send[p.first];
    }

    std::vector<std::pair<std::uint32_t, std::uint32_t>> as_recorded() const {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
        for (auto r : records_) pairs.emplace_back(r, r);
        return pairs;
    }

    /// Cancelled: an MPI_Cancel of the receiving task lies between the receive's post and its
    /// recorded completion, and a receive of the channel posted later completes in the same call.
    std::vector<bool> find_cancelled() const {
        std::vector<bool> cancelled(records_.size(), false);
        if (cancels_.empty()) return cancelled;
        std::map<std::uint32_t, Time> latest_post; // per completing call
        std::vector<std::uint32_t> call(records_.size());
        for (std::size_t k = 0; k < records_.size(); ++k) {
            call[k] = completing_call(receiver_, c_.physical_recv[records_[k]]);
            auto [it, added] = latest_post.emplace(call[k], c_.logical_recv[records_[k]]);
            if (!added) it->second = std::max(it->second, c_.logical_recv[records_[k]]);
        }
        for (std::size_t k = 0; k < records_.size(); ++k) {
            const auto r = records_[k];
            const auto cancel =
                std::lower_bound(cancels_.begin(), cancels_.end(), c_.logical_recv[r]);
            cancelled[k] = call[k] != k_unpaired && cancel != cancels_.end() &&
                           *cancel < c_.physical_recv[r] &&
                           latest_post.at(call[k]) > c_.logical_recv[r];
        }
        return cancelled;
    }

    /// `records` in the order of one of their times (ties keep file order).
    static std::vector<std::uint32_t> by_time(std::vector<std::uint32_t> records,
                                              const Column<Time>& time) {
        std::stable_sort(records.begin(), records.end(),
                         [&](auto a, auto b) { return time[a] < time[b]; });
        return records;
    }

    /// MPI's order: the k-th send (by send time) with the k-th receive (by post time).
    std::vector<std::pair<std::uint32_t, std::uint32_t>>
    first_in_first_out(std::vector<std::uint32_t> sends,
                       std::vector<std::uint32_t> receives) const {
        sends = by_time(std::move(sends), c_.logical_send);
        receives = by_time(std::move(receives), c_.logical_recv);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
        for (std::size_t k = 0; k < std::min(sends.size(), receives.size()); ++k)
            pairs.emplace_back(sends[k], receives[k]);
        return pairs;
    }

    /// The fallback: receives in completion order, each with the earliest unpaired send that
    /// entered its call before the receive completed.
    std::vector<std::pair<std::uint32_t, std::uint32_t>>
    earliest_earlier_send(std::vector<std::uint32_t> sends,
                          std::vector<std::uint32_t> receives) const {
        sends = by_time(std::move(sends), c_.logical_send);
        receives = by_time(std::move(receives), c_.physical_recv);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
        std::size_t next_send = 0;
        for (auto r : receives) {
            if (next_send == sends.size() ||
                c_.logical_send[sends[next_send]] > c_.physical_recv[r])
                continue; // no earlier send left: the receive goes without a message
            pairs.emplace_back(sends[next_send++], r);
        }
        return pairs;
    }

    const Communications& c_;
    const ThreadTimeline& receiver_;
    const std::vector<Time>& cancels_;
    std::vector<std::uint32_t> records_; // the channel's records, in file order
};

Communications repaired(const Communications& c, const std::vector<std::uint32_t>& receive_of) {
    Communications out;
    for (std::uint32_t i = 0; i < c.size(); ++i) {
        const std::uint32_t r = receive_of[i];
        if (r == k_unpaired) continue;
        out.push_back_message(c, i, r, c.sender[i], c.receiver[r]);
    }
    return out;
}

std::string summary(const CommunicationRepairs& r) {
    return fmt::format("communication records break MPI's matching rules and were re-paired: {} "
                       "records received before they are sent, {} receives dropped as "
                       "cancelled, {} records re-paired, {} sends and {} receives left without a "
                       "partner (they replay without a message)",
                       r.backward_records, r.cancelled_receives, r.repaired_records,
                       r.unpaired_sends, r.unpaired_receives);
}

} // namespace

std::uint64_t drop_duplicate_records(Trace& trace) {
    const auto& c = trace.comms;
    auto key = [&c](std::uint32_t i) {
        return std::tuple(c.sender[i], c.receiver[i], c.logical_send[i], c.logical_recv[i],
                          c.physical_recv[i], c.bytes[i], c.tag[i]);
    };
    // The records ordered by a hash of their fields, then by file order: a copy comes right after
    // what it repeats, among the few records of its hash. Sorting 12-byte pairs is several times
    // faster than sorting record numbers by their fields (1.6 s of CPU for 3.5 M records).
    std::vector<std::pair<std::size_t, std::uint32_t>> order(c.size());
    oneapi::tbb::parallel_for(std::uint32_t{0}, static_cast<std::uint32_t>(c.size()),
                              [&](std::uint32_t i) {
                                  order[i] = {boost::hash_value(key(i)), i};
                              });
    oneapi::tbb::parallel_sort(order.begin(), order.end());
    std::vector<bool> copy(c.size());
    std::uint64_t copies = 0;
    std::optional<std::pair<std::uint32_t, std::uint32_t>> first; // (copy, its original)
    for (std::size_t group = 0, end = 0; group < order.size(); group = end) {
        while (end < order.size() && order[end].first == order[group].first) ++end;
        for (std::size_t k = group + 1; k < end; ++k) {
            const std::uint32_t record = order[k].second;
            for (std::size_t j = group; j < k; ++j) {
                const std::uint32_t earlier = order[j].second;
                if (copy[earlier] || key(earlier) != key(record)) continue;
                copy[record] = true;
                ++copies;
                if (!first || key(record) < key(first->first)) first = {record, earlier};
                break;
            }
        }
    }
    if (copies == 0) return 0;
    Communications kept;
    for (std::uint32_t i = 0; i < c.size(); ++i)
        if (!copy[i]) kept.push_back_message(c, i, i, c.sender[i], c.receiver[i]);
    trace.comms = std::move(kept);
    trace.warnings.add_many(
        "duplicate-communications",
        "communication records repeat an earlier record field for field (a "
        "merge that wrote them twice?); the copies are left out",
        copies, {fmt::format("record {} repeats record {}", first->first + 1, first->second + 1)});
    return copies;
}

CommunicationRepairs repair_communications(Trace& trace) {
    CommunicationRepairs counts;
    const auto& c = trace.comms;
    const auto cancels = cancel_times(trace);
    using Channel = std::tuple<ThreadIndex, ThreadIndex, std::uint32_t>;
    std::set<Channel> suspect; // channels with a backward record or a cancelling receiver
    std::string first_backward;
    for (std::uint32_t i = 0; i < c.size(); ++i) {
        const bool backward = c.physical_recv[i] < c.logical_send[i];
        if (backward && counts.backward_records++ == 0) {
            first_backward = fmt::format(
                "the first received before it is sent: record {} ({} -> {}, tag {}) sent at {} and "
                "received at {}",
                i + 1, to_string(trace.threads[c.sender[i]].name),
                to_string(trace.threads[c.receiver[i]].name), c.tag[i], seconds(c.logical_send[i]),
                seconds(c.physical_recv[i]));
        }
        if (backward || !cancels[c.receiver[i]].empty())
            suspect.emplace(c.sender[i], c.receiver[i], c.tag[i]);
    }
    if (suspect.empty()) return counts;
    std::map<Channel, std::vector<std::uint32_t>> channels;
    for (std::uint32_t i = 0; i < c.size(); ++i) {
        const Channel key{c.sender[i], c.receiver[i], c.tag[i]};
        if (suspect.contains(key)) channels[key].push_back(i);
    }
    std::vector<std::uint32_t> receive_of(c.size());
    std::iota(receive_of.begin(), receive_of.end(), 0u);
    for (auto& [key, records] : channels) {
        for (auto r : records) receive_of[r] = k_unpaired;
        ChannelRepair(trace, cancels[std::get<1>(key)], std::move(records))
            .pair(receive_of, counts);
    }
    // A backward record always changes a pairing, so nothing counted means nothing changed
    // (receivers cancel, but no record needed re-pairing).
    if (!counts.any()) return counts;
    trace.comms = repaired(c, receive_of);
    trace.warnings.add("repaired-communications", summary(counts), first_backward);
    return counts;
}

} // namespace popsim::replay

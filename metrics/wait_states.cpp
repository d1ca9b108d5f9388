// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/wait_states.hpp"

#include "replay/extrae_events.hpp"
#include "replay/program/mpi_calls.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace popsim::metrics {

namespace {

using replay::OpIndex;
using replay::OpKind;
using replay::ReplayProgram;
using replay::ReplayThread;

class Finder {
  public:
    Finder(const ReplayProgram& p, const CallTimeline& calls, const CodeRegions& regions)
        : p_(p), calls_(calls), regions_(regions) {}

    WaitStates run() {
        for (ReplayThread th = 0; th < p_.thread_count(); ++th) {
            for (OpIndex op = p_.thread_first_op[th]; op < p_.thread_end_op(th); ++op) {
                if (p_.op_kind[op] == OpKind::recv_wait) late_sender(th, op);
                if (p_.op_kind[op] == OpKind::send) late_receiver(th, op);
            }
        }
        for (const auto& c : p_.collectives)
            if (!c.thread_barrier) collective(c);
        return summed();
    }

  private:
    Time enter(ReplayThread th, std::uint32_t call) const { return calls_.enter[th][call]; }

    /// `th` waited in `call` until the late partner entered its call.
    void add(ReplayThread th, std::uint32_t call, WaitPattern pattern, ReplayThread late_thread,
             std::uint32_t late_call) {
        const Time wait = std::min(enter(late_thread, late_call) - enter(th, call),
                                   calls_.exit[th][call] - enter(th, call));
        if (wait <= 0) return;
        out_.instances.push_back({p_.thread_task[th], th, call, calls_.id[th][call],
                                  calls_.site[th][call], regions_.at_call(th, call), pattern, wait,
                                  p_.thread_task[late_thread], late_thread, late_call});
    }

    /// A completion of received messages waits for the latest of their sends to begin.
    void late_sender(ReplayThread th, OpIndex op) {
        const std::uint32_t list = p_.op_ref[op];
        Time latest = std::numeric_limits<Time>::min();
        ReplayThread late = th;
        std::uint32_t late_call = 0;
        for (auto i = p_.wait_first[list]; i < p_.wait_first[list + 1]; ++i) {
            const auto& m = p_.messages[p_.wait_messages[i]];
            const std::uint32_t send_call = p_.op_call[ops_.send[p_.wait_messages[i]]];
            const Time sent = enter(m.sender, send_call);
            if (sent > latest)
                std::tie(latest, late, late_call) = std::tuple(sent, m.sender, send_call);
        }
        if (late != th) add(th, p_.op_call[op], WaitPattern::late_sender, late, late_call);
    }

    /// A blocking send of a rendezvous message waits for its receive to be posted.
    void late_receiver(ReplayThread th, OpIndex op) {
        const replay::MessageIndex mi = p_.op_ref[op];
        const auto& m = p_.messages[mi];
        if (!m.rendezvous || m.immediate_send || ops_.post[mi] == replay::k_none) return;
        add(th, p_.op_call[op], WaitPattern::late_receiver, m.receiver, p_.op_call[ops_.post[mi]]);
    }

    void collective(const replay::Collective& c) {
        struct Member {
            ReplayThread thread;
            std::uint32_t call;
            Time enter;
        };
        std::vector<Member> members;
        for (std::uint32_t k = 0; k < c.member_count; ++k) {
            const OpIndex op = p_.collective_members[c.first_member + k];
            const ReplayThread th = p_.thread_of(op);
            const std::uint32_t call = p_.op_call[op];
            // MPI_Init ends in a barrier in the replay, not a wait state of the program.
            if (replay::call_class(calls_.id[th][call]) == replay::CallClass::init) return;
            members.push_back({th, call, enter(th, call)});
        }
        if (members.empty()) return;
        const auto latest = std::max_element(members.begin(), members.end(),
                                             [](auto& a, auto& b) { return a.enter < b.enter; });
        const auto root = std::find_if(members.begin(), members.end(), [&](const Member& m) {
            return p_.thread_task[m.thread] == c.root_task;
        });
        switch (replay::collective_flow(c, replay::CollectiveSync::mpi)) {
        case replay::CollectiveFlow::all_members: {
            const auto pattern = c.call_id == replay::k_mpi_barrier ? WaitPattern::wait_at_barrier
                                                                    : WaitPattern::wait_at_nxn;
            for (const auto& m : members)
                add(m.thread, m.call, pattern, latest->thread, latest->call);
            break;
        }
        case replay::CollectiveFlow::from_root:
            if (root == members.end()) break;
            for (const auto& m : members) {
                if (&m != &*root)
                    add(m.thread, m.call, WaitPattern::late_broadcast, root->thread, root->call);
            }
            break;
        case replay::CollectiveFlow::to_root: {
            if (root == members.end()) break;
            // The root waits for the last of the others to enter.
            const Member* last = nullptr;
            for (const auto& m : members)
                if (&m != &*root && (!last || m.enter > last->enter)) last = &m;
            if (last)
                add(root->thread, root->call, WaitPattern::early_reduce, last->thread, last->call);
            break;
        }
        }
    }

    WaitStates summed() {
        // A call's waits all run from its entry: one that waits for several partners (a
        // Sendrecv's late receiver and late sender) waited for the latest, its longest wait.
        std::sort(out_.instances.begin(), out_.instances.end(), [](const auto& a, const auto& b) {
            return std::tie(a.thread, a.call, b.time, a.pattern) <
                   std::tie(b.thread, b.call, a.time, b.pattern);
        });
        out_.instances.erase(std::unique(out_.instances.begin(), out_.instances.end(),
                                         [](const auto& a, const auto& b) {
                                             return std::tie(a.thread, a.call) ==
                                                    std::tie(b.thread, b.call);
                                         }),
                             out_.instances.end());
        out_.per_task.assign(p_.tasks, {});
        for (const auto& w : out_.instances) {
            out_.per_task[w.task][w.pattern] += w.time;
            out_.total[w.pattern] += w.time;
        }
        return std::move(out_);
    }

    const ReplayProgram& p_;
    const CallTimeline& calls_;
    const CodeRegions& regions_;
    const replay::MessageOps ops_ = replay::message_ops(p_);
    WaitStates out_;
};

} // namespace

namespace {
struct PatternNames {
    std::string_view key, label;
};
constexpr std::array<PatternNames, k_wait_patterns> k_pattern_names = {{
    {"late_sender", "late sender"},
    {"late_receiver", "late receiver"},
    {"wait_at_barrier", "wait at barrier"},
    {"wait_at_nxn", "wait at NxN"},
    {"late_broadcast", "late broadcast"},
    {"early_reduce", "early reduce"},
}};
} // namespace

std::string_view wait_pattern_key(WaitPattern pattern) {
    return k_pattern_names[static_cast<std::size_t>(pattern)].key;
}

std::string_view wait_pattern_label(WaitPattern pattern) {
    return k_pattern_names[static_cast<std::size_t>(pattern)].label;
}

namespace {
/// The wait states summed per `key_of(instance)` into `make(instance)`s, longest first.
template <class Summed, class Key, class Make>
std::vector<Summed> summed_by(const WaitStates& waits, Key key_of, Make make) {
    std::map<decltype(key_of(waits.instances.front())), Summed> sums;
    for (const auto& w : waits.instances) {
        auto [it, added] = sums.try_emplace(key_of(w), make(w));
        if (!added) it->second.time += w.time;
        if (!added) ++it->second.calls;
    }
    std::vector<Summed> out;
    for (const auto& [key, sum] : sums) out.push_back(sum);
    std::stable_sort(out.begin(), out.end(),
                     [](const Summed& a, const Summed& b) { return a.time > b.time; });
    return out;
}
} // namespace

std::vector<WaitPair> wait_pairs(const WaitStates& waits) {
    return summed_by<WaitPair>(
        waits, [](const WaitState& w) { return std::tuple(w.task, w.late_task, w.pattern); },
        [](const WaitState& w) {
            return WaitPair{w.task, w.late_task, w.pattern, w.time, 1};
        });
}

std::vector<WaitCall> wait_calls(const WaitStates& waits) {
    return summed_by<WaitCall>(
        waits, [](const WaitState& w) { return std::tuple(w.call_id, w.call_site, w.pattern); },
        [](const WaitState& w) {
            return WaitCall{w.call_id, w.call_site, w.pattern, w.time, 1};
        });
}

std::vector<WaitRegion> wait_regions(const WaitStates& waits) {
    return summed_by<WaitRegion>(
        waits, [](const WaitState& w) { return std::tuple(w.region, w.pattern); },
        [](const WaitState& w) {
            return WaitRegion{w.region, w.pattern, w.time, 1};
        });
}

Time PatternTimes::total() const {
    return std::accumulate(time.begin(), time.end(), Time{0});
}

CallTimeline traced_calls(const replay::Trace& trace, const ReplayProgram& p) {
    CallTimeline out;
    for (ReplayThread th = 0; th < p.thread_count(); ++th) {
        const auto& t = trace.threads[p.trace_thread[th]];
        out.enter.emplace_back(t.call_begin.begin(), t.call_begin.end());
        out.exit.emplace_back(t.call_end.begin(), t.call_end.end());
        out.id.emplace_back(t.call_id.begin(), t.call_id.end());
        // The caller event on the entry's line: the series' event at the call's entry.
        auto& sites = out.site.emplace_back(t.call_id.size(), 0);
        if (const auto* callers = t.series(replay::extrae::k_caller)) {
            for (std::size_t call = 0; call < sites.size(); ++call) {
                const auto at = std::lower_bound(callers->time.begin(), callers->time.end(),
                                                 t.call_begin[call]);
                if (at != callers->time.end() && *at == t.call_begin[call])
                    sites[call] =
                        callers->value[static_cast<std::size_t>(at - callers->time.begin())];
            }
        }
    }
    return out;
}

CallTimeline replayed_calls(const replay::Trace& trace, const ReplayProgram& p,
                            const replay::ReplayResult& r) {
    CallTimeline out = traced_calls(trace, p);
    for (ReplayThread th = 0; th < p.thread_count(); ++th) {
        std::uint32_t previous = replay::k_none;
        for (OpIndex op = p.thread_first_op[th]; op < p.thread_end_op(th); ++op) {
            const std::uint32_t call = p.op_call[op];
            if (call == replay::k_none) continue;
            if (call != previous) out.enter[th][call] = r.op_begin[op];
            out.exit[th][call] = r.op_end[op];
            previous = call;
        }
    }
    return out;
}

WaitStates wait_states(const ReplayProgram& program, const CallTimeline& calls,
                       const CodeRegions& regions) {
    return Finder(program, calls, regions).run();
}

} // namespace popsim::metrics

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/application_choice.hpp"

#include "replay/trace_error.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace popsim::replay {

namespace {

std::uint32_t application_to_keep(const Trace& trace, std::uint32_t requested) {
    const auto apps = static_cast<std::uint32_t>(trace.header.applications.size());
    if (requested > apps) {
        throw TraceError(trace.path, 0,
                         fmt::format("--app {}: the trace has {} application{}", requested, apps,
                                     apps == 1 ? "" : "s"));
    }
    if (requested > 0) return requested;
    std::vector<std::uint32_t> calling_mpi;
    for (const auto& t : trace.threads)
        if (!t.call_id.empty() && (calling_mpi.empty() || calling_mpi.back() != t.name.application))
            calling_mpi.push_back(t.name.application);
    if (calling_mpi.size() > 1) {
        throw TraceError(trace.path, 0,
                         fmt::format("applications {} all call MPI; name the one to analyse with "
                                     "--app N",
                                     fmt::join(calling_mpi, ", ")));
    }
    return calling_mpi.empty() ? 1 : calling_mpi.front();
}

void keep_communications(Communications& comms, const std::vector<ThreadIndex>& new_index) {
    Communications kept;
    for (std::size_t i = 0; i < comms.size(); ++i) {
        const ThreadIndex from = new_index[comms.sender[i]], to = new_index[comms.receiver[i]];
        if (from == k_dropped_thread || to == k_dropped_thread) continue;
        kept.push_back_message(comms, i, i, from, to);
    }
    comms = std::move(kept);
}

} // namespace

void keep_one_application(Trace& trace, std::uint32_t requested) {
    const std::uint32_t keep = application_to_keep(trace, requested);
    if (trace.header.applications.size() == 1) return;
    std::vector<ThreadIndex> new_index(trace.threads.size(), k_dropped_thread);
    std::vector<ThreadTimeline> kept;
    std::vector<std::string> kept_names;
    const auto& names = trace.labels.thread_names;
    for (ThreadIndex t = 0; t < trace.threads.size(); ++t) {
        if (trace.threads[t].name.application != keep) continue;
        new_index[t] = static_cast<ThreadIndex>(kept.size());
        kept.push_back(std::move(trace.threads[t]));
        if (t < names.size()) kept_names.push_back(names[t]);
    }
    std::vector<std::string> left_out;
    for (std::uint32_t a = 1; a <= trace.header.applications.size(); ++a) {
        if (a == keep) continue;
        const auto& tasks = trace.header.applications[a - 1].tasks;
        std::uint64_t threads = 0;
        for (const auto& task : tasks) threads += task.threads;
        left_out.push_back(
            fmt::format("application {} ({} tasks, {} threads)", a, tasks.size(), threads));
    }
    trace.warnings.add(
        "other-applications",
        fmt::format("the trace holds {} applications; popsim analyses application "
                    "{}{} and leaves out {}",
                    trace.header.applications.size(), keep,
                    requested == 0 ? " (the one that calls MPI; --app N picks another)" : "",
                    fmt::join(left_out, ", ")));
    const std::size_t records = trace.comms.size();
    keep_communications(trace.comms, new_index);
    if (trace.comms.size() < records) {
        trace.warnings.add("records-of-other-applications",
                           fmt::format("communication records involve a left-out application "
                                       "and are dropped"),
                           fmt::format("{} records", records - trace.comms.size()));
    }
    trace.threads = std::move(kept);
    if (!names.empty()) trace.labels.thread_names = std::move(kept_names);
    trace.header.applications = {trace.header.applications[keep - 1]};
    std::erase_if(trace.header.communicators,
                  [keep](const Communicator& c) { return c.application != keep; });
    trace.application = keep;
}

} // namespace popsim::replay

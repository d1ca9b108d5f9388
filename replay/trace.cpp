// SPDX-License-Identifier: BSD-3-Clause
#include "replay/trace.hpp"

#include "replay/extrae_events.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace popsim::replay {

void CollectiveAttributes::set(std::uint32_t type, std::uint64_t value) {
    switch (type) {
    case extrae::k_collective_send_size:
        send_bytes = value;
        break;
    case extrae::k_collective_recv_size:
        recv_bytes = value;
        break;
    case extrae::k_collective_root:
        is_root = value != 0;
        break;
    default:
        communicator = value;
        break;
    }
}

const EventSeries* ThreadTimeline::series(std::uint32_t type) const {
    for (const auto& s : tracked_events)
        if (s.type == type) return &s;
    return nullptr;
}

const CollectiveAttributes* ThreadTimeline::attributes_of(std::size_t call) const {
    const auto at =
        std::lower_bound(collectives.begin(), collectives.end(), call,
                         [](const CollectiveAttributes& a, std::size_t c) { return a.call < c; });
    return at != collectives.end() && at->call == call ? &*at : nullptr;
}

void CollectiveCounts::add(std::uint32_t application, std::uint32_t task,
                           std::uint64_t communicator, std::uint64_t calls) {
    calls_[{application, task, communicator}] += calls;
}

void CollectiveCounts::add(const std::vector<CollectivesBeforeCut>& counts) {
    for (const auto& c : counts) add(c.application, c.task, c.communicator, c.calls);
}

std::vector<CollectivesBeforeCut> CollectiveCounts::list() const {
    std::vector<CollectivesBeforeCut> out;
    for (const auto& [key, calls] : calls_) {
        const auto [application, task, communicator] = key;
        out.push_back({application, task, communicator, calls});
    }
    return out;
}

void Communications::push_back_message(const Communications& from, std::size_t send,
                                       std::size_t receive, ThreadIndex sender_thread,
                                       ThreadIndex receiver_thread) {
    sender.push_back(sender_thread);
    receiver.push_back(receiver_thread);
    logical_send.push_back(from.logical_send[send]);
    logical_recv.push_back(from.logical_recv[receive]);
    physical_recv.push_back(from.physical_recv[receive]);
    bytes.push_back(from.bytes[send]);
    tag.push_back(from.tag[send]);
}

std::uint32_t Trace::task_count() const {
    return header.applications.empty()
               ? 0
               : static_cast<std::uint32_t>(header.applications[0].tasks.size());
}

ThreadIndex Trace::index_of(const ThreadName& name) const {
    // Before keep_one_application the header lists every application, after it the kept one.
    const auto& apps = header.applications;
    const std::uint32_t first = apps.size() == 1 ? application : 1;
    if (name.application < first || name.application - first >= apps.size())
        throw std::out_of_range("no such application");
    ThreadIndex index = 0;
    for (std::uint32_t a = first; a < name.application; ++a)
        for (const auto& t : apps[a - first].tasks) index += t.threads;
    const auto& tasks = apps[name.application - first].tasks;
    if (name.task == 0 || name.task > tasks.size()) throw std::out_of_range("no such task");
    for (std::uint32_t t = 0; t + 1 < name.task; ++t) index += tasks[t].threads;
    if (name.thread == 0 || name.thread > tasks[name.task - 1].threads)
        throw std::out_of_range("no such thread");
    return index + name.thread - 1;
}

std::vector<ThreadIndex> Trace::first_threads() const {
    std::vector<ThreadIndex> first;
    ThreadIndex index = 0;
    if (header.applications.empty()) return first;
    for (const auto& t : header.applications[0].tasks) {
        first.push_back(index);
        index += t.threads;
    }
    return first;
}

bool Trace::threads_are_tasks() const {
    const auto first = first_threads();
    if (first.size() != thread_count()) return false;
    for (ThreadIndex t = 0; t < first.size(); ++t)
        if (first[t] != t) return false;
    return true;
}

std::string to_string(const ThreadName& name) {
    return fmt::format("{}.{}.{}", name.application, name.task, name.thread);
}

const std::string* TraceLabels::value_name(std::uint32_t type, std::uint64_t value) const {
    for (const auto& v : event_values)
        if (v.type == type && v.value == value) return &v.name;
    return nullptr;
}

} // namespace popsim::replay

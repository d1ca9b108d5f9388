// SPDX-License-Identifier: BSD-3-Clause
#include "replay/warnings.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace popsim::replay {

std::string Warning::line() const {
    if (instances.empty()) return count == 1 ? summary : fmt::format("{} {}", count, summary);
    if (count == 1) return fmt::format("{}: {}", summary, instances.front());
    return fmt::format("{} {}; the first: {}", count, summary, instances.front());
}

Warning& WarningLog::entry(std::string_view kind, std::string_view summary) {
    auto it =
        std::find_if(list_.begin(), list_.end(), [&](const Warning& w) { return w.kind == kind; });
    if (it != list_.end()) return *it;
    return list_.emplace_back(Warning{std::string(kind), std::string(summary), 0, {}});
}

void WarningLog::add(std::string_view kind, std::string_view summary, std::string instance) {
    auto& w = entry(kind, summary);
    ++w.count;
    if (!instance.empty() && w.instances.size() < k_kept_instances)
        w.instances.push_back(std::move(instance));
}

void WarningLog::add_many(std::string_view kind, std::string_view summary, std::uint64_t count,
                          std::vector<std::string> instances) {
    if (count == 0) return;
    auto& w = entry(kind, summary);
    w.count += count;
    for (auto& i : instances)
        if (w.instances.size() < k_kept_instances) w.instances.push_back(std::move(i));
}

void WarningLog::merge(const WarningLog& other) {
    for (const auto& w : other.list_) add_many(w.kind, w.summary, w.count, w.instances);
}

void WarningLog::merge_new_kinds(const WarningLog& other) {
    for (const auto& w : other.list_)
        if (!find(w.kind)) add_many(w.kind, w.summary, w.count, w.instances);
}

const Warning* WarningLog::find(std::string_view kind) const {
    auto it =
        std::find_if(list_.begin(), list_.end(), [&](const Warning& w) { return w.kind == kind; });
    return it == list_.end() ? nullptr : &*it;
}

std::string seconds(Time t) {
    const auto magnitude =
        t < 0 ? 0 - static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t);
    return fmt::format("{}{}.{:09} s", t < 0 ? "-" : "", magnitude / 1'000'000'000,
                       magnitude % 1'000'000'000);
}

} // namespace popsim::replay

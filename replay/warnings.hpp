// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Warnings about a trace, grouped by kind: people read one line per kind (how many, the first
// example), scripts read every instance from the JSON report.
//
// Example:
//   WarningLog log;
//   log.add("records-after-end", "records lie after the trace end the header declares",
//           "line 12: 1.5 s");
//   for (const auto& w : log.all()) fmt::print("warning: {}\n", w.line());
#include "replay/time.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::replay {

struct Warning {
    std::string kind;    // stable identifier, e.g. "cancelled-receives"
    std::string summary; // what happened, as a phrase that follows the count
    std::uint64_t count = 0;
    std::vector<std::string> instances; // the first WarningLog::k_kept_instances, in order met

    /// "3 records lie after ...; the first: line 12 at 1.5 s" (the count is left out when it is
    /// 1 and no instance names the case).
    std::string line() const;
};

class WarningLog {
  public:
    static constexpr std::size_t k_kept_instances = 1000;

    /// One more case of `kind`; `instance` describes it (may be empty).
    void add(std::string_view kind, std::string_view summary, std::string instance = {});
    /// `count` cases at once, of which `instances` are described.
    void add_many(std::string_view kind, std::string_view summary, std::uint64_t count,
                  std::vector<std::string> instances);
    void merge(const WarningLog& other);
    /// Only the kinds this log lacks: a window of a trace, built again from it, repeats what
    /// reading the trace said already (sampled counters, overlapping states).
    void merge_new_kinds(const WarningLog& other);

    const std::vector<Warning>& all() const { return list_; }
    bool empty() const { return list_.empty(); }
    const Warning* find(std::string_view kind) const;

  private:
    Warning& entry(std::string_view kind, std::string_view summary);
    std::vector<Warning> list_;
};

/// A trace time as people read it in warnings: "12.345678901 s".
std::string seconds(Time t);

} // namespace popsim::replay

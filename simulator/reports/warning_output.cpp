// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/warning_output.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

namespace popsim::simulator {

void add_out_of_range_warning(const std::vector<std::string>& values, replay::WarningLog& log) {
    if (values.empty()) return;
    log.add("efficiency-out-of-range",
            fmt::format("{} outside 0-100 %: an efficiency is a fraction of an ideal, so the times "
                        "it compares come from records that disagree (state records missing on "
                        "some threads, MPI calls without states, clocks out of step); read it as a "
                        "sign of the trace, not of the run",
                        fmt::join(values, ", ")));
}

void add_undefined_warning(const std::vector<std::string>& values, replay::WarningLog& log) {
    if (values.empty()) return;
    log.add("undefined-metrics",
            fmt::format("{} undefined (shown as -): ratios of zero times, the predicted run or its "
                        "counterpart on the ideal network lasting 0 ns (bursts scaled to nothing "
                        "by the CPU ratio, or a trace with no time in it)",
                        fmt::join(values, "; ")));
}

nlohmann::json warnings_json(const replay::WarningLog& log) {
    auto out = nlohmann::json::array();
    for (const auto& w : log.all()) {
        out.push_back(
            {{"kind", w.kind},
             {"count", w.count},
             {"message", w.line()},
             {"instances", w.instances},
             {"instances_truncated", w.instances.size() < w.count && !w.instances.empty()}});
    }
    return out;
}

nlohmann::json repairs_json(const replay::CommunicationRepairs& r) {
    return {{"backward_records", r.backward_records},
            {"cancelled_receives", r.cancelled_receives},
            {"repaired_records", r.repaired_records},
            {"unpaired_sends", r.unpaired_sends},
            {"unpaired_receives", r.unpaired_receives}};
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/warning_output.hpp"

#include "simulator/global_options.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

namespace popsim::simulator {

namespace {
void print_one(const std::string& path, const replay::Warning& w) {
    std::cerr << "popsim: warning: " << path << ": " << w.line() << "\n";
}
} // namespace

void print_warnings(const std::string& path, const replay::WarningLog& log) {
    if (global_options().quiet) return;
    for (const auto& w : log.all()) print_one(path, w);
}

void print_series_warnings(const std::vector<std::string>& paths,
                           const std::vector<replay::WarningLog>& logs) {
    if (global_options().quiet) return;
    struct Shared {
        const replay::Warning* first;                                       // its kind and summary
        std::vector<std::pair<std::size_t, const replay::Warning*>> traces; // index, its warning
    };
    std::vector<Shared> groups; // in the order first met
    for (std::size_t i = 0; i < logs.size(); ++i) {
        for (const auto& w : logs[i].all()) {
            auto same = std::ranges::find_if(groups, [&](const Shared& g) {
                return g.first->kind == w.kind && g.first->summary == w.summary;
            });
            if (same == groups.end()) same = groups.insert(groups.end(), Shared{&w, {}});
            same->traces.emplace_back(i, &w);
        }
    }
    for (const auto& g : groups) {
        if (g.traces.size() == 1) {
            print_one(paths[g.traces[0].first], *g.traces[0].second);
            continue;
        }
        // The counts only: each case is in the JSON report (--json).
        std::vector<std::string> where;
        for (const auto& [i, w] : g.traces)
            where.push_back(fmt::format("{} ({})", paths[i], w->count));
        std::cerr << fmt::format("popsim: warning: {} traces: {}: {}\n", g.traces.size(),
                                 g.first->summary, fmt::join(where, ", "));
    }
}

void print_warning(const std::string& message) {
    if (!global_options().quiet) std::cerr << "popsim: warning: " << message << "\n";
}

void print_note(const std::string& message) {
    if (!global_options().quiet) std::cerr << "popsim: note: " << message << "\n";
}

void add_out_of_range_warning(const std::vector<std::string>& values, replay::WarningLog& log) {
    if (values.empty()) return;
    log.add("efficiency-out-of-range",
            fmt::format("{} outside 0-100 %: an efficiency is a fraction of an ideal, so the times "
                        "it compares come from records that disagree (state records missing on "
                        "some threads, MPI calls without states, clocks out of step); read it as a "
                        "sign of the trace, not of the run",
                        fmt::join(values, ", ")));
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

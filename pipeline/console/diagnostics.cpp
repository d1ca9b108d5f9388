// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/console/diagnostics.hpp"

#include "pipeline/options/global_options.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

namespace popsim::pipeline {

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

} // namespace popsim::pipeline

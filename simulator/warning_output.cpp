// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/warning_output.hpp"

#include "simulator/global_options.hpp"

#include <iostream>

namespace popsim::simulator {

void print_warnings(const std::string& path, const replay::WarningLog& log) {
    if (global_options().quiet) return;
    for (const auto& w : log.all())
        std::cerr << "popsim: warning: " << path << ": " << w.line() << "\n";
}

void print_warning(const std::string& message) {
    if (!global_options().quiet) std::cerr << "popsim: warning: " << message << "\n";
}

void print_note(const std::string& message) {
    if (!global_options().quiet) std::cerr << "popsim: note: " << message << "\n";
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

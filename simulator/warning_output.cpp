#include "simulator/warning_output.hpp"

#include <iostream>

namespace popsim::simulator {

namespace {
bool g_quiet = false; // set once from the command line, before any command runs
} // namespace

bool quiet_warnings() {
    return g_quiet;
}
void set_quiet_warnings(bool quiet) {
    g_quiet = quiet;
}

void print_warnings(const std::string& path, const replay::WarningLog& log, bool quiet) {
    if (quiet) return;
    for (const auto& w : log.all())
        std::cerr << "popsim: warning: " << path << ": " << w.line() << "\n";
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

} // namespace popsim::simulator

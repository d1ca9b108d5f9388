// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/global_options.hpp"

#include <charconv>

#include "simulator/units.hpp"

namespace popsim::simulator {

namespace {
GlobalOptions g_options; // written by the command-line parser only, before any command runs
} // namespace

const GlobalOptions& global_options() {
    return g_options;
}

void add_global_options(CLI::App& app) {
    app.fallthrough();
    app.add_flag("-q,--quiet", g_options.quiet,
                 "Print no warnings or notes (the JSON reports still list the warnings)");
    app.add_option("--app", g_options.application,
                   "In a trace with several applications, analyse application N (default: the "
                   "one that calls MPI)")
        ->check(CLI::Validator(
            [](const std::string& value) {
                std::uint32_t n = 0;
                const auto [end, ec] =
                    std::from_chars(value.data(), value.data() + value.size(), n);
                return ec == std::errc{} && end == value.data() + value.size() && n >= 1
                           ? std::string()
                           : "applications are numbered from 1, not '" + value + "'";
            },
            "N"));
    app.add_flag("--strict", g_options.strict,
                 "Refuse traces whose communications need repairs (mispaired or cancelled "
                 "receives) instead of repairing them");
    app.add_flag("--allow-truncated", g_options.allow_truncated,
                 "Analyse a truncated trace (records stopping before the end its header "
                 "declares) up to its last record, with a warning, instead of refusing it");
    app.add_option("--max-memory", g_options.max_memory,
                   "Refuse a trace whose header alone needs more memory than SIZE (e.g. 8GB; "
                   "default: the machine's memory)")
        ->type_name("SIZE");
}

void set_global_options(const GlobalOptions& options) {
    g_options = options;
}

replay::ReadOptions read_options() {
    replay::ReadOptions options;
    options.application = g_options.application;
    options.repair_communications = !g_options.strict;
    options.allow_truncated = g_options.allow_truncated;
    if (!g_options.max_memory.empty()) options.max_memory_bytes = parse_bytes(g_options.max_memory);
    return options;
}

} // namespace popsim::simulator

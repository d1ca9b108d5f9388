// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/commands/options.hpp"

#include "pipeline/options/trace_inputs.hpp"
#include "pipeline/options/units.hpp"
#include "pipeline/whatif/code_whatif.hpp"
#include "replay/focus/event_spec.hpp"
#include "simulator/cli_suggestions.hpp"
#include "simulator/output_paths.hpp"

#include <charconv>
#include <filesystem>
#include <fmt/format.h>

namespace popsim::simulator {

namespace {

/// A check whose error is the input's (a TraceError: exit status 2), not a usage error.
CLI::Validator input_check(void (*check)(const std::string&), std::string name) {
    return CLI::Validator(
        [check](const std::string& path) {
            check(path);
            return std::string();
        },
        std::move(name));
}

} // namespace

CLI::Validator existing_input_file() {
    return input_check(pipeline::require_input_file, "FILE");
}

CLI::Validator existing_trace_file() {
    return input_check(pipeline::refuse_companion_file, "TRACE");
}

namespace {
/// An empty file name means "not given" to the commands: refused when given.
std::string empty_name(const std::string& path) {
    return path.empty() ? std::string("the file name is empty") : std::string();
}
} // namespace

CLI::Validator output_file_name() {
    return CLI::Validator(empty_name, "FILE");
}

CLI::Validator report_file_name() {
    return CLI::Validator(
        [](std::string& path) {
            if (path == "-") path = k_standard_output;
            return empty_name(path);
        },
        "FILE");
}

void add_global_options(CLI::App& app) {
    auto& g_options = pipeline::global_options();
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
    app.add_option("--read-block", g_options.read_block,
                   "Read and parse a .prv's text SIZE at a time (default: 2MiB); under mpirun, the "
                   "range each helping process reads (larger: fewer messages)")
        ->check(CLI::Validator(
            [](const std::string& text) {
                constexpr std::uint64_t k_most = std::uint64_t{256} << 20;
                try {
                    const auto bytes = pipeline::parse_bytes(text);
                    if (bytes >= 64 && bytes <= k_most) return std::string();
                } catch (const std::invalid_argument& e) {
                    return std::string(e.what());
                }
                return fmt::format("must be from 64B to 256MiB, not {}", text);
            },
            "SIZE"));
}

/// A time with its unit, checked as the command line is read (a usage error, before the trace is
/// read); the window's bounds are checked against the trace later.
CLI::Validator time_value() {
    return CLI::Validator(
        [](const std::string& text) {
            try {
                (void)pipeline::parse_time(text);
                return std::string();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
        },
        "TIME");
}

void add_window_options(CLI::App* command, pipeline::FocusOptions& o) {
    command
        ->add_option("--from", o.from,
                     "The window starts at this time of the trace (e.g. 2.5s, 300ms, 1200000ns)")
        ->check(time_value());
    command->add_option("--to", o.to, "The window ends at this time of the trace")
        ->check(time_value());
}

void add_focus_options(CLI::App* command, pipeline::FocusOptions& o) {
    add_window_options(command, o);
    auto* region = command->add_option(
        "--region", o.region,
        "A code region: its instances together and each apart. SPEC is an event type, "
        "TYPE:VALUE or a name from the .pcf, wildcards allowed ('Iteration', 60000019:12, "
        "'solve*'); popsim events lists them");
    auto* phases = command->add_option(
        "--phases", o.phases,
        "Split the run at each occurrence of an event (SPEC as for --region) into phases, each "
        "apart");
    region->excludes(phases);
    for (auto* focus : {region, phases}) {
        focus->check(CLI::Validator(
            [](const std::string& spec) { return replay::event_spec_syntax_error(spec); }, "SPEC"));
    }
    for (auto* focus : {region, phases})
        for (const char* window : {"--from", "--to"}) focus->excludes(window);
}

void add_speedup_option(CLI::App* cmd, std::vector<std::string>& values, bool sweep) {
    cmd->add_option("--speedup", values,
                    std::string("The computation inside a code region runs FACTOR times faster: "
                                "REGION=FACTOR, REGION as --region takes it ('solve*=2', "
                                "60000019:12=1.5); repeatable, and a part of a burst inside "
                                "several regions takes the largest factor") +
                        (sweep ? "; FACTOR may be a comma-separated list to sweep" : ""))
        ->type_name("REGION=FACTOR")
        ->check(CLI::Validator(
            [sweep](const std::string& text) {
                try {
                    const auto o = pipeline::parse_speedup_option(text);
                    if (!sweep && o.factors.size() > 1)
                        return fmt::format("'{}': one factor here (whatif sweeps several)", text);
                    return std::string();
                } catch (const std::invalid_argument& e) {
                    return std::string(e.what());
                }
            },
            "REGION=FACTOR"));
}

void add_balance_option(CLI::App* cmd, std::optional<std::string>& value, bool sweep) {
    cmd->add_option("--balance", value,
                    std::string("Balanced computation: between two collectives, every thread "
                                "that computes gets an equal share of their computation; with "
                                "REGION (as --region takes it), of that region's computation "
                                "alone (docs/network-model.md)") +
                        (sweep ? "; each configuration is replayed as traced and balanced" : ""))
        ->expected(0, 1)
        ->default_str("")
        ->type_name("[REGION]");
}

void add_network_options(CLI::App* cmd, pipeline::NetworkOptions& o, bool single_values) {
    const char* list = single_values ? "" : " (a comma-separated list sweeps it)";
    // The value's kind, as --help and the man page name it: a list where whatif sweeps it.
    auto kind = [single_values](const char* value) {
        return single_values ? std::string(value) : std::string(value) + ",...";
    };
    cmd->add_option("--network", o.model, "Network model: ideal or dimemas")
        ->transform(one_of({"ideal", "dimemas"}))
        ->capture_default_str();
    cmd->add_option("--config", o.config,
                    "A Dimemas configuration file (.cfg; implies --network dimemas)")
        ->check(existing_input_file());
    cmd->add_option("--latency", o.latency, std::string("Inter-node latency, e.g. 5us") + list)
        ->type_name(kind("TIME"));
    cmd->add_option("--bandwidth", o.bandwidth,
                    std::string("Inter-node bandwidth, e.g. 10GB/s, 500MiB/s, inf") + list)
        ->type_name(kind("RATE"));
    cmd->add_option("--buses", o.buses,
                    std::string("Concurrent inter-node transfers, 0 = unlimited") + list)
        ->type_name(kind("N"));
    cmd->add_option("--links", o.links,
                    "Input and output links per node, 0 = unlimited (default 1, as in Dimemas "
                    "configuration files)")
        ->type_name("N");
    cmd->add_option("--tasks-per-node", o.tasks_per_node,
                    std::string("Tasks per node (filled in order)") + list)
        ->type_name(kind("N"));
    cmd->add_option("--cpus-per-node", o.cpus_per_node,
                    "CPUs per node, shared by its tasks first come first served as in Dimemas "
                    "(default: one per task)")
        ->type_name("N");
    cmd->add_option("--cpu-ratio", o.cpu_ratio,
                    std::string("Relative CPU speed: bursts take traced / ratio") + list)
        ->type_name(kind("RATIO"));
    cmd->add_option("--mapping", o.mapping,
                    "Tasks to nodes: fill (tasks-per-node consecutive tasks per node), interleaved "
                    "(round robin), or a list of "
                    "0-based nodes, one per task (0:0:1:1); default: the --config file's "
                    "\"mapping information\", or fill")
        ->type_name("MAPPING");
    add_eager_option(cmd, o.eager);
    add_collectives_option(cmd, o.collectives);
}

void add_eager_option(CLI::App* cmd, std::string& value) {
    cmd->add_option("--eager", value,
                    "Sends of at least this size use rendezvous (Dimemas -S), e.g. 32k, 64KiB, "
                    "4096 (bytes)")
        ->type_name("SIZE")
        ->capture_default_str();
}

void add_collectives_option(CLI::App* cmd, std::string& value) {
    cmd->add_option("--collectives", value,
                    "How collectives synchronise in the replay: dimemas (as Dimemas and "
                    "published POP numbers: every member waits for the last, but Reduce only at "
                    "its root) or mpi (only where data flows: Gather/Reduce roots wait for all, "
                    "Bcast/Scatter members for the root)")
        ->transform(one_of({"dimemas", "mpi"}))
        ->capture_default_str();
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
// The library runs the pipeline as the commands do: their options parsed by the same CLI11
// definitions and checked by the same steps (so every option, unit and check is the program's),
// then the pipeline, then the commands' reports, returned instead of printed.
#include "popsim/popsim.hpp"

#include "pipeline/options/global_options.hpp"
#include "popsim/version.hpp"
#include "simulator/commands/analyze_command.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/commands/simulate_command.hpp"
#include "simulator/commands/whatif_command.hpp"
#include "simulator/failure.hpp"
#include "simulator/reports/html_report.hpp"
#include "simulator/reports/json_report.hpp"

#include <algorithm>
#include <mutex>

namespace popsim {

namespace {

/// The global options are the process's, so calls take turns.
std::mutex g_calls;

Error::Kind kind_of(int status) {
    if (status == simulator::k_exit_usage) return Error::Kind::usage;
    if (status == simulator::k_exit_bad_input) return Error::Kind::bad_input;
    return Error::Kind::failure;
}

/// `popsim COMMAND OPTIONS -- POSITIONAL`, as CLI11 takes a vector: last argument first.
std::vector<std::string> command_line(const std::string& command, const Options& options,
                                      const std::vector<std::string>& positional) {
    std::vector<std::string> args{command};
    for (const auto& [name, value] : options) {
        args.push_back((name.size() == 1 ? "-" : "--") + name);
        if (!value.empty()) args.push_back(value);
    }
    args.emplace_back("--"); // a trace named "-x" is a trace
    args.insert(args.end(), positional.begin(), positional.end());
    std::reverse(args.begin(), args.end());
    return args;
}

/// `options` and `positional` parsed into the typed options of `command` by its CLI11
/// definitions (`add_options`); the global options set.
template <class CommandOptions, class AddOptions>
CommandOptions parsed(AddOptions add_options, const std::string& command, const Options& options,
                      const std::vector<std::string>& positional) {
    CommandOptions parsed;
    CLI::App app;
    app.require_subcommand(1);
    simulator::add_global_options(app);
    add_options(app.add_subcommand(command), parsed);
    pipeline::set_global_options({.quiet = true}); // the reports list the warnings
    auto args = command_line(command, options, positional);
    app.parse(args);
    return parsed;
}

/// `call()`, one call at a time, its failures as Errors of their kind.
template <class Call> auto one_call(Call call) {
    const std::lock_guard lock(g_calls);
    try {
        return call();
    } catch (...) {
        const auto failure = simulator::current_failure();
        throw Error(kind_of(failure.status), failure.message);
    }
}

Metric public_metric(const simulator::MetricRow& row) {
    using K = simulator::ValueKind;
    const char* unit = row.kind == K::efficiency ? "fraction"
                       : row.kind == K::number   ? "number"
                       : row.kind == K::time_ns  ? "ns"
                                                 : "count";
    return {
        .key = row.key, .label = row.label, .level = row.level, .unit = unit, .values = row.values};
}

std::vector<Metric> public_metrics(const std::vector<simulator::MetricRow>& rows) {
    std::vector<Metric> out;
    for (const auto& row : rows) out.push_back(public_metric(row));
    return out;
}

} // namespace

std::string version() {
    return k_version;
}

Error::Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

Analysis analyze(const std::vector<std::string>& traces, const Options& options) {
    return one_call([&] {
        auto command = parsed<simulator::AnalyzeCommandOptions>(simulator::add_analyze_options,
                                                                "analyze", options, traces);
        (void)simulator::check_analyze_command(command); // nothing printed either way
        auto analysis = pipeline::analyze(command.analysis);
        const auto shown = simulator::show_analysis(analysis, command, false, true);
        const auto& t = shown.table;
        return Analysis{.table = {.model = t.model,
                                  .description = t.description,
                                  .column_title = t.table.column_title,
                                  .columns = t.table.columns,
                                  .metrics = public_metrics(t.table.factors),
                                  .raw = public_metrics(t.table.raw),
                                  .html = simulator::metric_table_html(t.table)},
                        .json = simulator::report_text(shown.report)};
    });
}

std::string simulate(const std::string& trace, const Options& options) {
    return one_call([&] {
        auto command = parsed<simulator::SimulateCommandOptions>(simulator::add_simulate_options,
                                                                 "simulate", options, {trace});
        (void)simulator::check_simulate_command(command);
        auto simulation = pipeline::simulate(command.simulation);
        return simulator::report_text(simulator::show_simulation(simulation, command, false));
    });
}

std::string whatif(const std::string& trace, const Options& options) {
    return one_call([&] {
        auto command = parsed<simulator::WhatifCommandOptions>(simulator::add_whatif_options,
                                                               "whatif", options, {trace});
        (void)simulator::check_whatif_command(command);
        auto sweep = pipeline::sweep(command.sweep);
        return simulator::report_text(simulator::show_sweep(sweep, command, false));
    });
}

} // namespace popsim

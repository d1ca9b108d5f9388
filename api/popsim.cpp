// SPDX-License-Identifier: BSD-3-Clause
// The library runs the commands themselves: their options parsed by the same CLI11 definitions
// (so every option, unit and check is the program's), their results returned instead of printed.
#include "popsim/popsim.hpp"

#include "pipeline/global_options.hpp"
#include "popsim/version.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/failure.hpp"
#include "simulator/reports/html_report.hpp"
#include "simulator/reports/json_report.hpp"

#include <algorithm>
#include <mutex>

namespace popsim {

namespace {

using simulator::CommandOutput;

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

template <class AddCommand>
CommandOutput run(AddCommand add_command, const std::string& name, const Options& options,
                  const std::vector<std::string>& positional) {
    const std::lock_guard lock(g_calls);
    CommandOutput output{.print = false, .report = {}, .analysis = {}, .division = nullptr};
    try {
        CLI::App app;
        app.require_subcommand(1);
        simulator::add_global_options(app);
        add_command(app, output);
        pipeline::set_global_options({.quiet = true}); // the reports list the warnings
        auto args = command_line(name, options, positional);
        app.parse(args);
    } catch (...) {
        const auto failure = simulator::current_failure();
        throw Error(kind_of(failure.status), failure.message);
    }
    return output;
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
    const auto output = run(simulator::add_analyze_command, "analyze", options, traces);
    const auto& a = *output.analysis;
    return {.table = {.model = a.model,
                      .description = a.description,
                      .column_title = a.table.column_title,
                      .columns = a.table.columns,
                      .metrics = public_metrics(a.table.factors),
                      .raw = public_metrics(a.table.raw),
                      .html = simulator::metric_table_html(a.table)},
            .json = simulator::report_text(output.report)};
}

std::string simulate(const std::string& trace, const Options& options) {
    return simulator::report_text(
        run(simulator::add_simulate_command, "simulate", options, {trace}).report);
}

std::string whatif(const std::string& trace, const Options& options) {
    return simulator::report_text(
        run(simulator::add_whatif_command, "whatif", options, {trace}).report);
}

} // namespace popsim

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/commands/whatif_command.hpp"
#include "pipeline/console/diagnostics.hpp"
#include "pipeline/whatif_sweep.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/output_paths.hpp"
#include "simulator/reports/csv_table.hpp"
#include "simulator/reports/html_report.hpp"
#include "simulator/reports/json_report.hpp"
#include "simulator/reports/modelfactors_csv.hpp"
#include "simulator/reports/terminal_report.hpp"
#include "simulator/reports/warning_output.hpp"

#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace popsim::simulator {

// The commands run the pipeline's stages and show what they give.
using namespace pipeline;

namespace {

/// A parameter's base value: "inf" for an infinite bandwidth, else its shortest exact form.
std::string csv_number(double v) {
    if (std::isinf(v)) return "inf";
    return fmt::format("{}", v);
}

/// An efficiency or speed-up; empty when undefined (docs: csv_table.hpp).
std::string csv_metric(double v) {
    return std::isfinite(v) ? fmt::format("{:.6f}", v) : std::string();
}

std::string format_csv(const std::vector<SweptParameter>& parameters,
                       const std::vector<Configuration>& configs,
                       const std::vector<Prediction>& predictions) {
    std::vector<std::string> header;
    for (const auto& p : parameters)
        if (p.typed_column()) header.push_back(p.name);
    for (const auto& p : parameters) header.push_back(p.base_column);
    for (const char* column : {"predicted_runtime_ns", "ideal_runtime_ns", "speedup",
                               "parallel_efficiency", "load_balance", "communication_efficiency",
                               "serialization_efficiency", "transfer_efficiency"})
        header.emplace_back(column);
    std::string csv = csv_line(header);
    for (std::size_t i = 0; i < configs.size(); ++i) {
        std::vector<std::string> row;
        for (std::size_t k = 0; k < parameters.size(); ++k)
            if (parameters[k].typed_column())
                row.push_back(parameters[k].values[configs[i].value[k]]);
        for (double v : predictions[i].base) row.push_back(csv_number(v));
        const auto& e = predictions[i].e;
        row.push_back(std::to_string(predictions[i].runtime));
        row.push_back(std::to_string(predictions[i].ideal));
        for (double v :
             {e.speedup, e.parallel, e.load_balance, e.communication, e.serialization, e.transfer})
            row.push_back(csv_metric(v));
        csv += csv_line(row);
    }
    return csv;
}

nlohmann::json json_metric(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); // undefined: null
}

/// A parameter's base value: whole values as integers (counts, nanoseconds), inf as null.
nlohmann::json json_number(double v) {
    if (!std::isfinite(v)) return nullptr;
    if (v == std::floor(v) && std::abs(v) < 9e15) return static_cast<std::int64_t>(v);
    return v;
}

/// The five efficiencies into `out` under their JSON names.
nlohmann::json configurations_json(const std::vector<SweptParameter>& parameters,
                                   const std::vector<Configuration>& configs,
                                   const std::vector<Prediction>& predictions) {
    auto list = nlohmann::json::array();
    for (std::size_t i = 0; i < configs.size(); ++i) {
        nlohmann::json c;
        for (std::size_t k = 0; k < parameters.size(); ++k) {
            const auto& p = parameters[k];
            if (p.speedup) { // by region, under one key: the regions are the user's names
                c["speedups"][p.base_column.substr(p.base_column.find(':') + 1)] =
                    predictions[i].base[k];
                continue;
            }
            if (p.balance) {
                c["balanced"] = configs[i].code.balanced;
                continue;
            }
            if (p.typed_column()) c[p.name] = p.values[configs[i].value[k]];
            c[p.base_column] = json_number(predictions[i].base[k]);
        }
        const auto& e = predictions[i].e;
        c["predicted_runtime_ns"] = predictions[i].runtime;
        c["ideal_runtime_ns"] = predictions[i].ideal;
        c["speedup"] = json_metric(e.speedup);
        add_efficiencies_json(e, c);
        list.push_back(std::move(c));
    }
    return list;
}

/// One line per configuration: the parameters that vary (as typed), the runtime, the speed-up
/// and the efficiencies on the POP colours; stacked in two blocks with the configurations
/// numbered when the terminal is too narrow.
/// A configuration as its row shows it: the swept parameters' values ("latency 1us, buses 2").
std::string configuration_name(const std::vector<SweptParameter>& parameters,
                               const Configuration& c) {
    std::vector<std::string> values;
    for (std::size_t k = 0; k < parameters.size(); ++k)
        if (parameters[k].values.size() > 1)
            values.push_back(parameters[k].name + " " + parameters[k].values[c.value[k]]);
    return fmt::format("{}", fmt::join(values, ", "));
}

/// Warns of the efficiencies outside 0-100 %, the traced run's and each configuration's, naming
/// them ("latency 1us: PE 200.00%, CommE 200.00%; latency 10us: ...").
void warn_out_of_range(const std::string& trace, const std::optional<WhatifEfficiencies>& traced,
                       const std::vector<SweptParameter>& parameters,
                       const std::vector<Configuration>& configs,
                       const std::vector<Prediction>& predictions, replay::WarningLog& warnings) {
    std::vector<std::string> beyond, undefined_runs;
    const auto add = [&](const std::string& name, const WhatifEfficiencies& e) {
        for (auto [values, runs] :
             {std::pair{out_of_range(e), &beyond}, std::pair{undefined(e), &undefined_runs}})
            if (!values.empty())
                runs->push_back(
                    fmt::format("{}{}", name.empty() ? "" : name + ": ", fmt::join(values, ", ")));
    };
    if (traced) add("traced run", *traced);
    for (std::size_t i = 0; i < configs.size(); ++i)
        add(configuration_name(parameters, configs[i]), predictions[i].e);
    replay::WarningLog log;
    if (!beyond.empty())
        add_out_of_range_warning({fmt::format("{}", fmt::join(beyond, "; "))}, log);
    add_undefined_warning(undefined_runs, log);
    print_warnings(trace, log);
    warnings.merge(log);
}

std::string format_terminal(const std::vector<SweptParameter>& parameters,
                            const std::vector<Configuration>& configs,
                            const std::vector<Prediction>& predictions,
                            const TerminalStyle& style) {
    std::vector<TextColumn> columns;
    for (std::size_t k = 0; k < parameters.size(); ++k) {
        if (parameters[k].values.size() < 2) continue;
        TextColumn column{.header = parameters[k].name};
        for (const auto& c : configs) column.cells.push_back(parameters[k].values[c.value[k]]);
        columns.push_back(std::move(column));
    }
    TextColumn runtime{.header = "runtime (s)"}, speedup{.header = "speed-up"};
    for (const auto& p : predictions) {
        runtime.cells.push_back(fmt::format("{:.6f}", static_cast<double>(p.runtime) * 1e-9));
        speedup.cells.push_back(std::isfinite(p.e.speedup) ? fmt::format("{:.4f}", p.e.speedup)
                                                           : "-");
    }
    columns.push_back(std::move(runtime));
    columns.push_back(std::move(speedup));
    for (const auto& f : k_efficiency_fields) {
        TextColumn column{.header = f.name, .min_width = k_efficiency_width};
        for (const auto& p : predictions) {
            const double v = p.e.*f.value;
            const bool defined = std::isfinite(v);
            column.cells.push_back(defined ? efficiency_text(v, style) : "-");
            // Not on the POP scale outside 0-100 % (warned): no colour.
            column.colours.push_back(defined && !metrics::outside_0_100(v) ? std::optional(v)
                                                                           : std::nullopt);
        }
        columns.push_back(std::move(column));
    }
    return format_columns(std::move(columns), style, {.number_rows_when_stacked = true});
}

/// The sweep's parameters that vary, for the HTML charts: where each value stands on a log axis
/// (0 a decade before the smallest positive value, inf a decade after the largest).
std::vector<WhatifAxis> axes_of(const std::vector<SweptParameter>& parameters,
                                const std::vector<Configuration>& configs,
                                const std::vector<Prediction>& predictions) {
    std::vector<WhatifAxis> out;
    for (std::size_t k = 0; k < parameters.size(); ++k) {
        if (parameters[k].values.size() < 2) continue;
        WhatifAxis axis{.parameter = k,
                        .name = parameters[k].name,
                        .labels = parameters[k].values,
                        .positions = {}};
        std::vector<double> base(parameters[k].values.size(), 0);
        for (std::size_t i = 0; i < configs.size(); ++i)
            base[configs[i].value[k]] = predictions[i].base[k];
        double low = INFINITY, high = -INFINITY;
        for (double v : base)
            if (v > 0 && std::isfinite(v)) {
                low = std::min(low, std::log10(v));
                high = std::max(high, std::log10(v));
            }
        if (!std::isfinite(low)) low = high = 0;
        for (double v : base)
            axis.positions.push_back(v <= 0 ? low - 1 : std::isinf(v) ? high + 1 : std::log10(v));
        out.push_back(std::move(axis));
    }
    return out;
}

} // namespace

bool check_whatif_command(const WhatifCommandOptions& command) {
    const std::vector<OutputPath> outputs{
        {"--csv", command.csv_path}, {"--json", command.json_path}, {"--html", command.html_path}};
    return check_report_outputs({command.sweep.trace}, outputs,
                                config_files(command.sweep.network.config));
}

nlohmann::json show_sweep(Sweep& s, const WhatifCommandOptions& command, bool print) {
    std::ostream& out = terminal(print);
    const auto& o = command.sweep;
    const auto& parameters = s.parameters;
    const auto& configs = s.configs;
    const auto& predictions = s.predictions;
    const auto& traced = s.traced;
    const Time real_runtime = s.real_runtime, ideal_runtime = s.ideal_runtime;
    auto& loaded = *s.loaded;
    const auto& program = loaded.program;
    const auto& code = *s.code;
    const auto style = terminal_style(command.no_color, command.fraction);
    out << wrap_text(fmt::format("{}: real runtime {:.6f} s, ideal network {:.6f} s", o.trace,
                                 static_cast<double>(real_runtime) * 1e-9,
                                 static_cast<double>(ideal_runtime) * 1e-9),
                     style.width);
    std::vector<std::string> swept;
    for (const auto& p : parameters)
        if (p.values.size() > 1) swept.push_back(p.name);
    const std::string network = describe_network(configs.front().network, program.tasks, swept);
    out << wrap_text(fmt::format("network: {}", network), style.width);
    if (!code.empty()) out << wrap_text(fmt::format("code: {}", code.describe()), style.width);
    // The reference: the traced run with the same definitions (PE, LB, CommE as analyze's).
    std::optional<WhatifEfficiencies> traced_e;
    if (traced) {
        traced_e = efficiencies(traced->runtime, ideal_runtime, traced->average, traced->maximum,
                                traced->runtime);
        out << wrap_text(
            fmt::format("traced run: {:.6f} s, PE {}, LB {}, CommE {}, SerE {}, TE {} (useful "
                        "computation as analyze counts it: each network below runs the same)",
                        static_cast<double>(traced->runtime) * 1e-9,
                        efficiency_text(traced_e->parallel, style),
                        efficiency_text(traced_e->load_balance, style),
                        efficiency_text(traced_e->communication, style),
                        efficiency_text(traced_e->serialization, style),
                        efficiency_text(traced_e->transfer, style)),
            style.width);
    }
    warn_out_of_range(o.trace, traced_e, parameters, configs, predictions, loaded.warnings);
    out << '\n' << format_terminal(parameters, configs, predictions, style);
    if (!command.csv_path.empty())
        write_text_file(command.csv_path, format_csv(parameters, configs, predictions));
    if (!command.html_path.empty()) {
        WhatifReport report{.trace = o.trace,
                            .network = network,
                            .real_s = static_cast<double>(real_runtime) * 1e-9,
                            .ideal_s = static_cast<double>(ideal_runtime) * 1e-9,
                            .axes = axes_of(parameters, configs, predictions),
                            .points = {},
                            .traced = traced_e,
                            .warnings = loaded.warnings.all()};
        for (std::size_t i = 0; i < configs.size(); ++i)
            report.points.push_back(
                {.value = configs[i].value,
                 .runtime_s = static_cast<double>(predictions[i].runtime) * 1e-9,
                 .e = predictions[i].e});
        write_text_file(command.html_path, render_whatif_html(report));
    }
    nlohmann::json j = report_header("whatif");
    j["trace"] = o.trace;
    j["real_runtime_ns"] = real_runtime;
    j["ideal_runtime_ns"] = ideal_runtime;
    j["warnings"] = warnings_json(loaded.warnings);
    j["program_pass"] = pass_json(loaded.pass);
    if (!code.empty()) j["code"] = code.json();
    j["configurations"] = configurations_json(parameters, configs, predictions);
    if (traced_e) {
        j["traced"] = {{"runtime_ns", traced->runtime}};
        add_efficiencies_json(*traced_e, j["traced"]);
    }
    if (!command.json_path.empty()) write_text_file(command.json_path, report_text(j));
    return j;
}

void add_whatif_options(CLI::App* cmd, WhatifCommandOptions& command_options) {
    auto* command = &command_options;
    auto* options = &command->sweep;
    add_trace_argument(
        cmd, options->trace,
        "Paraver trace (.prv or .prv.gz), OTF2 archive (traces.otf2) or Dimemas trace (.dim)");
    add_network_options(cmd, options->network, false);
    add_speedup_option(cmd, options->speedups, true);
    add_balance_option(cmd, options->balance, true);
    add_window_options(cmd, options->window);
    cmd->add_option("--csv", command->csv_path,
                    "Write one row per configuration to FILE: each swept parameter as typed and "
                    "every parameter in its base unit, the predicted runtime and efficiencies")
        ->transform(report_file_name());
    cmd->add_option("--json", command->json_path,
                    "Write every configuration's parameters and predictions to FILE")
        ->transform(report_file_name());
    cmd->add_option("--html", command->html_path,
                    "Write an HTML report charting the predicted runtime and efficiencies "
                    "against each swept parameter to FILE")
        ->transform(report_file_name());
    cmd->add_flag("--fraction", command->fraction,
                  "Show efficiencies as fractions (0-1) instead of %");
    cmd->add_flag("--no-color,--no-colour", command->no_color, "No colours, even on a terminal");
    add_in_memory_option(cmd, options->in_memory);
}

void add_whatif_command(CLI::App& app, pipeline::WorkDivision* division) {
    auto command = std::make_shared<WhatifCommandOptions>();
    auto* cmd = app.add_subcommand(
        "whatif",
        "Predict the runtime on many networks: the cross product of the swept parameters");
    add_whatif_options(cmd, *command);
    cmd->callback([command, division] {
        const bool print = check_whatif_command(*command);
        auto swept = pipeline::sweep(command->sweep, division);
        if (swept.reports_here) // else the first process of the MPI run shows it
            show_sweep(swept, *command, print);
    });
}

} // namespace popsim::simulator

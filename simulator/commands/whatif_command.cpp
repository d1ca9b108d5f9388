// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/ideal_replay.hpp"
#include "metrics/trace_summary.hpp"
#include "pipeline/code_whatif.hpp"
#include "pipeline/diagnostics.hpp"
#include "pipeline/load_program.hpp"
#include "pipeline/network_options.hpp"
#include "pipeline/predicted_efficiencies.hpp"
#include "pipeline/progress_bar.hpp"
#include "pipeline/units.hpp"
#include "replay/engine/engine.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/network/ideal.hpp"
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
#include <map>
#include <nlohmann/json.hpp>
#include <oneapi/tbb/parallel_for.h>

namespace popsim::simulator {

// The commands run the pipeline's stages and show what they give.
using namespace pipeline;

namespace {

struct WhatifOptions {
    std::string trace;
    FocusOptions window;                // --from/--to
    NetworkOptions network;             // values may be comma-separated lists
    std::vector<std::string> speedups;  // --speedup REGION=FACTOR[,FACTOR...]
    std::optional<std::string> balance; // --balance [REGION]: each configuration also balanced
    std::string csv_path, json_path, html_path;
    bool no_color = false;
    bool fraction = false;
    bool in_memory = false;
};

/// A parameter `whatif` can sweep: its option, its values as typed, and their value in the
/// parameter's base unit (the CSV's and JSON's typed columns).
struct SweptParameter {
    std::string name;        // "latency": the option without dashes, the column's name
    std::string base_column; // "latency_ns", "bandwidth_bytes_per_s", "buses"
    std::optional<std::string> NetworkOptions::*field; // null for a --speedup
    std::vector<std::string> values;                   // as typed; empty when not given
    bool has_unit = false;              // typed with a unit: a column as typed beside the base one
    std::optional<std::size_t> speedup; // the --speedup it is, in their order
    bool balance = false;               // --balance: "no", "yes"

    /// Given with a unit: the CSV and JSON have the values as typed too.
    bool typed_column() const { return has_unit && !values.empty(); }
};

std::vector<SweptParameter> swept_parameters(const NetworkOptions& sweep,
                                             const std::vector<SpeedupOption>& speedups,
                                             bool balance) {
    std::vector<SweptParameter> out{
        {"latency", "latency_ns", &NetworkOptions::latency, {}, true, {}},
        {"bandwidth", "bandwidth_bytes_per_s", &NetworkOptions::bandwidth, {}, true, {}},
        {"buses", "buses", &NetworkOptions::buses, {}, false, {}},
        {"tasks-per-node", "tasks_per_node", &NetworkOptions::tasks_per_node, {}, false, {}},
        {"cpu-ratio", "cpu_ratio", &NetworkOptions::cpu_ratio, {}, false, {}}};
    for (auto& p : out)
        if (sweep.*p.field) p.values = split_list(*(sweep.*p.field));
    for (std::size_t k = 0; k < speedups.size(); ++k) {
        out.push_back({fmt::format("speedup {}", speedups[k].region),
                       fmt::format("speedup:{}", speedups[k].region), nullptr, speedups[k].typed,
                       false, k});
    }
    if (balance) out.push_back({"balanced", "balanced", nullptr, {"no", "yes"}, false, {}, true});
    return out;
}

/// One configuration of the sweep: the index of its value in each parameter's list.
struct Configuration {
    std::vector<std::size_t> value; // per parameter; 0 for those not given
    NetworkOptions network;         // single values
    CodeChange code;                // each --speedup's factor, and --balance
};

/// Each parameter's value in its base unit, as the network will use it (from the .cfg where the
/// parameter is not given): nanoseconds, bytes per second (+inf: instantaneous), counts, ratios.
std::vector<double> base_values(const replay::network::DimemasParameters& p, const Configuration& c,
                                bool balance) {
    std::vector<double> out{
        static_cast<double>(p.inter_latency), bandwidth_bytes_per_s(p.inter_bandwidth_mbps),
        static_cast<double>(p.buses), static_cast<double>(p.tasks_per_node), p.cpu_ratio};
    out.insert(out.end(), c.code.factors.begin(), c.code.factors.end());
    if (balance) out.push_back(c.code.balanced ? 1 : 0);
    return out;
}

/// Every combination of the swept values, the first parameter varying slowest.
std::vector<Configuration> configurations(const NetworkOptions& sweep,
                                          const std::vector<SpeedupOption>& speedups,
                                          const std::vector<SweptParameter>& parameters) {
    // Each configuration is a whole replay: a sweep of millions would run for days (and hold
    // every row), so the count is checked before anything is built.
    constexpr std::uint64_t k_max_configurations = 100'000;
    std::uint64_t count = 1;
    for (const auto& p : parameters) {
        count *= std::max<std::size_t>(p.values.size(), 1);
        if (count > k_max_configurations) {
            throw std::invalid_argument(
                fmt::format("the sweep has more than {} configurations (each is a whole replay): "
                            "sweep fewer values at once",
                            k_max_configurations));
        }
    }
    std::vector<Configuration> out{{std::vector<std::size_t>(parameters.size(), 0), sweep,
                                    CodeChange{std::vector<double>(speedups.size()), false}}};
    for (std::size_t k = 0; k < parameters.size(); ++k) {
        const auto& p = parameters[k];
        if (p.values.empty()) continue;
        std::vector<Configuration> next;
        for (const auto& base : out) {
            for (std::size_t v = 0; v < p.values.size(); ++v) {
                next.push_back(base);
                next.back().value[k] = v;
                if (p.speedup)
                    next.back().code.factors[*p.speedup] = speedups[*p.speedup].factors[v];
                else if (p.balance)
                    next.back().code.balanced = v == 1;
                else
                    next.back().network.*p.field = p.values[v];
            }
        }
        out = std::move(next);
    }
    for (auto& c : out) c.network.model = "dimemas";
    return out;
}

struct Prediction {
    Time runtime = 0, ideal = 0; // on the network, and on the ideal one with the same CPUs
    std::vector<double> base;    // each parameter's value in its base unit
    WhatifEfficiencies e;
};

/// A configuration's prediction as bytes (CBOR: every number exact, NaN and +inf kept), to carry
/// it between the processes of an MPI run; and back.
std::string prediction_to_bytes(const Prediction& p) {
    const nlohmann::json j = {p.runtime,
                              p.ideal,
                              p.base,
                              {p.e.speedup, p.e.parallel, p.e.load_balance, p.e.communication,
                               p.e.serialization, p.e.transfer}};
    std::string bytes;
    nlohmann::json::to_cbor(j, bytes);
    return bytes;
}

Prediction prediction_from_bytes(const std::string& bytes) {
    const auto j = nlohmann::json::from_cbor(bytes);
    const auto& e = j.at(3);
    return {.runtime = j.at(0).get<Time>(),
            .ideal = j.at(1).get<Time>(),
            .base = j.at(2).get<std::vector<double>>(),
            .e = {.speedup = e.at(0).get<double>(),
                  .parallel = e.at(1).get<double>(),
                  .load_balance = e.at(2).get<double>(),
                  .communication = e.at(3).get<double>(),
                  .serialization = e.at(4).get<double>(),
                  .transfer = e.at(5).get<double>()}};
}

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
    std::vector<std::string> runs;
    const auto add = [&](const std::string& name, const WhatifEfficiencies& e) {
        const auto values = out_of_range(e);
        if (!values.empty())
            runs.push_back(
                fmt::format("{}{}", name.empty() ? "" : name + ": ", fmt::join(values, ", ")));
    };
    if (traced) add("traced run", *traced);
    for (std::size_t i = 0; i < configs.size(); ++i)
        add(configuration_name(parameters, configs[i]), predictions[i].e);
    replay::WarningLog log;
    if (!runs.empty()) add_out_of_range_warning({fmt::format("{}", fmt::join(runs, "; "))}, log);
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

void run_whatif(const WhatifOptions& o, CommandOutput& output) {
    check_output_paths({o.trace},
                       {{"--csv", o.csv_path}, {"--json", o.json_path}, {"--html", o.html_path}});
    auto speedups = parse_speedups(o.speedups);
    for (auto& m : config_modules(o.network.config)) speedups.push_back(std::move(m));
    const bool balance = o.balance.has_value();
    const auto parameters = swept_parameters(o.network, speedups, balance);
    auto configs = configurations(o.network, speedups, parameters); // before the trace
    if (!balanced_regions(o.balance).empty()) // one region's computation balanced
        for (auto& c : configs)
            if (c.code.balanced) c.code.balance_region = 0;
    for (const auto& c : configs) check_network_options(c.network);
    CodeWhatif code(o.trace, speedups, balance, balanced_regions(o.balance));
    ProgressBar progress({{.label = "reading", .total = input_file_bytes({o.trace})},
                          {.label = "simulating", .unit = ProgressBar::Unit::operations}});
    auto loaded = load_program(o.trace, program_options(o.network),
                               {.window = o.window,
                                .in_memory = o.in_memory || !code.empty(), // regions: the trace
                                .on_read_progress = progress.running_total(0),
                                .event_types = code.event_types(),
                                .summarize = true,
                                .cut_bursts_for = [&](std::uint32_t tasks) {
                                    return std::ranges::any_of(configs, [&](const auto& c) {
                                        return replays_burst_pieces(c.network, tasks);
                                    });
                                }});
    code.prepare(loaded);
    const auto& program = loaded.program;
    const Time real_runtime = loaded.real_runtime.value_or(0); // unknown for .dim input
    const auto summary = traced_summary(loaded);
    const auto traced = traced_useful(summary);
    for (const auto& c : configs) make_network(c.network, program.tasks); // validate every value
    // Configurations that change the code alike replay the same burst durations: group by group.
    std::map<CodeChange, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < configs.size(); ++i) groups[configs[i].code].push_back(i);
    // Per group, the ideal network of each CPU ratio it sweeps: Transfer on a network compares
    // with it. The report's reference is the traced program on the traced CPUs.
    std::vector<std::map<double, Time>> ideal_of_ratio;
    for (const auto& [factors, members] : groups) {
        auto& ideal = ideal_of_ratio.emplace_back();
        for (const auto i : members)
            ideal.emplace(dimemas_parameters(configs[i].network, program.tasks).cpu_ratio, 0);
    }
    const CodeChange as_traced = code.as_traced();
    std::size_t replays = configs.size() + (loaded.ideal_runtime ? 0 : 1);
    for (const auto& ideal : ideal_of_ratio) replays += ideal.size();
    if (groups.begin()->first == as_traced && ideal_of_ratio.front().contains(1.0)) --replays;
    progress.add_total(1, replays * program.op_count());
    const replay::EngineOptions engine{
        .timeline = false, .on_progress = [&](std::uint64_t ops) { progress.add(1, ops); }};
    // The same cycles break on every network: reported once, from the reference's run.
    Time ideal_runtime = loaded.ideal_runtime.value_or(0); // the streaming pass replayed it
    if (!loaded.ideal_runtime) {
        replay::network::IdealNetwork ideal;
        ideal_runtime = replay_reporting(loaded, ideal, engine).runtime;
    }
    std::vector<Prediction> predictions(configs.size());
    // Under mpirun each process replays its share of the configurations (round robin); an error
    // is carried to the first process, which reports it as one process would.
    auto* const division = output.division;
    const auto here = division ? division->done_here(std::vector<std::uint64_t>(configs.size(), 1))
                               : std::vector<bool>(configs.size(), true);
    std::vector<std::exception_ptr> failures(configs.size());
    // One group's replays: the ideal network at each CPU ratio it sweeps, then its configurations
    // done here, side by side.
    const auto replay_group = [&](const CodeChange& change, const std::vector<std::size_t>& members,
                                  std::map<double, Time>& ideal_runtimes) {
        // The group's burst durations, the program's own when the code is as traced.
        const auto durations =
            code.empty() ? std::nullopt : std::optional(code.burst_durations(change));
        auto replayed = engine;
        replayed.burst_durations = durations ? &*durations : nullptr;
        for (auto& [ratio, runtime] : ideal_runtimes) {
            if (ratio == 1 && change == as_traced) {
                runtime = ideal_runtime;
                continue;
            }
            runtime = ideal_runtime_at(loaded, ratio, replayed);
        }
        // The useful computation, as analyze counts it, with the code sped up.
        auto useful = traced;
        if (summary)
            std::tie(useful->average, useful->maximum) =
                code.useful_spread(*summary, change, *durations);
        oneapi::tbb::parallel_for(std::size_t{0}, members.size(), [&](std::size_t m) {
            const std::size_t i = members[m];
            if (!here[i]) return;
            const auto network = make_network(configs[i].network, program.tasks);
            const auto p = dimemas_parameters(configs[i].network, program.tasks);
            const auto result = replay_on(loaded, *network, replayed, nullptr);
            auto& out = predictions[i];
            out.runtime = result.runtime;
            out.ideal = ideal_runtimes.at(p.cpu_ratio);
            out.base = base_values(p, configs[i], balance);
            out.e = on_network(result, program, useful, p.cpu_ratio, real_runtime, out.ideal);
        });
    };
    std::size_t group = 0;
    for (const auto& [change, members] : groups) {
        auto& ideal_runtimes = ideal_of_ratio[group++];
        if (std::ranges::none_of(members, [&](std::size_t i) { return here[i]; })) continue;
        try {
            replay_group(change, members, ideal_runtimes);
        } catch (...) {
            if (!division) throw;
            for (const auto i : members)
                if (here[i]) failures[i] = std::current_exception();
        }
    }
    if (division) {
        std::vector<std::string> results(configs.size());
        for (std::size_t i = 0; i < configs.size(); ++i)
            if (here[i] && !failures[i] && !division->reports_here())
                results[i] = prediction_to_bytes(predictions[i]);
        const auto others = division->gather(results, here, failures);
        if (!division->reports_here()) return; // the first process shows them
        for (std::size_t i = 0; i < configs.size(); ++i)
            if (!here[i]) predictions[i] = prediction_from_bytes(others[i]);
    }
    const auto style = terminal_style(o.no_color, o.fraction);
    std::ostream& out = output.terminal();
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
    if (!o.csv_path.empty())
        write_text_file(o.csv_path, format_csv(parameters, configs, predictions));
    if (!o.html_path.empty()) {
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
        write_text_file(o.html_path, render_whatif_html(report));
    }
    nlohmann::json& j = output.report = report_header("whatif");
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
    if (!o.json_path.empty()) write_text_file(o.json_path, report_text(j));
}

} // namespace

void add_whatif_command(CLI::App& app, CommandOutput& output) {
    auto options = std::make_shared<WhatifOptions>();
    auto* cmd = app.add_subcommand(
        "whatif",
        "Predict the runtime on many networks: the cross product of the swept parameters");
    add_trace_argument(
        cmd, options->trace,
        "Paraver trace (.prv or .prv.gz), OTF2 archive (traces.otf2) or Dimemas trace (.dim)");
    add_network_options(cmd, options->network, false);
    add_speedup_option(cmd, options->speedups, true);
    add_balance_option(cmd, options->balance, true);
    add_window_options(cmd, options->window);
    cmd->add_option("--csv", options->csv_path,
                    "Write one row per configuration to FILE: each swept parameter as typed and "
                    "every parameter in its base unit, the predicted runtime and efficiencies")
        ->check(output_file_name());
    cmd->add_option("--json", options->json_path,
                    "Write every configuration's parameters and predictions to FILE")
        ->check(output_file_name());
    cmd->add_option("--html", options->html_path,
                    "Write an HTML report charting the predicted runtime and efficiencies "
                    "against each swept parameter to FILE")
        ->check(output_file_name());
    cmd->add_flag("--fraction", options->fraction,
                  "Show efficiencies as fractions (0-1) instead of %");
    cmd->add_flag("--no-color,--no-colour", options->no_color, "No colours, even on a terminal");
    add_in_memory_option(cmd, options->in_memory);
    cmd->callback([options, &output] { run_whatif(*options, output); });
}

} // namespace popsim::simulator

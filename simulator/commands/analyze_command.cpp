// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/commands/analyze_command.hpp"
#include "pipeline/analysis.hpp"
#include "pipeline/options/trace_inputs.hpp"
#include "simulator/cli_suggestions.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/commands/options.hpp"
#include "simulator/output_paths.hpp"
#include "simulator/reports/analysis_report.hpp"
#include "simulator/reports/breakdown_report.hpp"
#include "simulator/reports/communication_report.hpp"
#include "simulator/reports/gains_report.hpp"
#include "simulator/reports/html_report.hpp"
#include "simulator/reports/hybrid_tables.hpp"
#include "simulator/reports/json_report.hpp"
#include "simulator/reports/modelfactors_csv.hpp"
#include "simulator/reports/projection_report.hpp"
#include "simulator/reports/root_causes_report.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <optional>

namespace popsim::simulator {

using pipeline::Analyzed;
using pipeline::AnalyzeOptions;
using pipeline::is_mpi_model;
using pipeline::pcf_labels;
using pipeline::TraceFocus;

namespace {

/// Each trace's warnings, for the HTML report.
std::vector<TraceWarnings> trace_warnings(const Analyzed& analyzed) {
    std::vector<TraceWarnings> out;
    for (std::size_t i = 0; i < analyzed.summaries.size(); ++i)
        out.push_back({analyzed.summaries[i].path, analyzed.warnings[i].all()});
    return out;
}

std::vector<PartSpan> part_spans(const TraceFocus& focus) {
    std::vector<PartSpan> spans;
    for (const auto& part : focus.parts) {
        spans.push_back({.from_s = static_cast<double>(part.window.from) / 1e9,
                         .length_s = static_cast<double>(part.window.length()) / 1e9});
    }
    return spans;
}

/// The communication views of each trace analysed with --communication.
std::vector<CommunicationReport> communication_reports(const Analyzed& analyzed,
                                                       const std::vector<std::string>& labels) {
    std::vector<CommunicationReport> out;
    for (std::size_t i = 0; i < analyzed.communication.size(); ++i)
        if (const auto& views = analyzed.communication[i])
            out.push_back({analyzed.summaries[i].path, labels[i], *views});
    return out;
}

/// Each run's .pcf names, for the HTML report's parallel regions.
std::vector<replay::TraceLabels> run_pcf_labels(const std::vector<metrics::HybridRun>& runs) {
    std::vector<replay::TraceLabels> out;
    for (const auto& run : runs) out.push_back(pcf_labels(run.path));
    return out;
}

/// The root causes of each trace analysed with --root-causes, for the HTML report and the CSV.
std::vector<RootCausesReport> root_causes_reports(const Analyzed& analyzed,
                                                  const std::vector<std::string>& labels) {
    std::vector<RootCausesReport> out;
    for (std::size_t i = 0; i < analyzed.root_causes.size(); ++i) {
        if (const auto& causes = analyzed.root_causes[i]) {
            const auto& s = analyzed.summaries[i];
            out.push_back({s.path, labels[i], *causes, pcf_labels(s.path), s.runtime,
                           static_cast<std::uint32_t>(s.task_first_thread.size())});
        }
    }
    return out;
}

/// The projection to the measured counts and the asked ones, for the HTML charts; none without
/// --project.
std::optional<metrics::Projection> charted_projection(const metrics::SeriesAnalysis& series,
                                                      const std::vector<std::uint32_t>& asked) {
    if (asked.empty()) return std::nullopt;
    std::vector<std::uint32_t> counts = asked;
    for (const auto& t : series.traces) counts.push_back(t.processes);
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return metrics::project(series, counts);
}

/// --project's check of each count: empty when it is one. --project takes the words after it, so
/// a trace that follows it is read as a count.
std::string project_count_error(const std::string& value) {
    std::uint32_t count = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), count);
    if (ec == std::errc{} && end == value.data() + value.size() && count > 0) return {};
    const bool path_like = std::ranges::any_of(
        value, [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '/'; });
    return fmt::format("process counts are whole numbers from 1, not '{}'{}", value,
                       path_like ? " (a trace? --project takes the words after it: write "
                                   "--project=4,8, or give it after the traces)"
                                 : "");
}

} // namespace

bool check_analyze_command(AnalyzeCommandOptions& command) {
    auto& given = command.analysis;
    given.traces = pipeline::expand_trace_inputs(given.traces);
    const std::vector<OutputPath> outputs{{"--csv", command.csv_path},
                                          {"--json", command.json_path},
                                          {"--html", command.html_path},
                                          {"--parts-csv", command.parts_csv_path},
                                          {"--root-causes-csv", command.root_causes_csv_path},
                                          {"--gains-csv", command.gains_csv_path},
                                          {"--gnuplot", command.gnuplot_path},
                                          {"--communication-csv", command.communication_csv_path}};
    const bool print =
        check_report_outputs(given.traces, outputs, config_files(given.gains_config));
    pipeline::check_analyze_options(given);
    if (!command.parts_csv_path.empty() && given.focus.region.empty() && given.focus.phases.empty())
        throw std::invalid_argument("--parts-csv needs --region or --phases");
    if (!command.root_causes_csv_path.empty() && !given.root_causes)
        throw std::invalid_argument("--root-causes-csv writes the tables of --root-causes: add it");
    if (!command.gnuplot_path.empty() && given.project.empty())
        throw std::invalid_argument("--gnuplot writes the fits of --project: add it");
    if (!command.gains_csv_path.empty() && !given.gains)
        throw std::invalid_argument("--gains-csv writes the table of --gains: add it");
    if (!command.communication_csv_path.empty() && !given.communication)
        throw std::invalid_argument(
            "--communication-csv writes the views of --communication: add it");
    return print;
}

ShownAnalysis show_analysis(pipeline::Analysis& c, const AnalyzeCommandOptions& command, bool print,
                            bool with_report) {
    std::ostream& out = terminal(print);
    AnalysisTable shown = shown_table(c);
    const auto& o = c.options;
    const auto& analyzed = c.analyzed;
    const auto& series = c.series;
    const auto& omp = c.omp;
    const auto& model = c.model;
    const auto& model_description = shown.description;
    const auto& table = shown.table;
    const auto convention = series.convention;
    const TerminalStyle style = terminal_style(command.no_color, command.fraction);
    for (const auto& parts : analyzed.parts) { // what the table covers, unless the whole run
        if (parts.focus.kind == TraceFocus::Kind::window)
            out << fmt::format("{}: {}\n", parts.focus.path, parts.focus.description);
        if (parts.focus.kind == TraceFocus::Kind::region)
            out << fmt::format("{}: {}, all together\n", parts.focus.path, parts.focus.description);
    }
    const bool mpi_model = is_mpi_model(model);
    out << model_description << "\n\n" << format_terminal_table(table, style);
    if (mpi_model) {
        for (const auto& trace : series.traces) out << format_rank_breakdown(trace, style);
    }
    // Each trace's root causes with its names, read once for the terminal, the CSV and the HTML.
    const auto labels = run_labels(o.traces, o.labels);
    const auto causes = root_causes_reports(analyzed, labels);
    for (std::size_t i = 0, next = 0; i < analyzed.root_causes.size(); ++i) {
        if (!analyzed.root_causes[i]) continue;
        const auto& s = analyzed.summaries[i];
        const auto& report = causes[next++];
        out << format_root_causes(report.causes, s.path, report.runtime, report.tasks,
                                  report.labels, style);
    }
    const auto communication = communication_reports(analyzed, labels);
    for (const auto& r : communication) out << format_communication(r.views, r.path, style);
    std::vector<GainsReport> gains;
    for (std::size_t i = 0; i < analyzed.gains.size(); ++i)
        if (analyzed.gains[i]) gains.push_back({analyzed.summaries[i].path, *analyzed.gains[i]});
    for (const auto& g : gains) out << format_gains(g, style);
    if (!o.project.empty()) {
        const auto projection = metrics::project(series, o.project);
        out << format_projection(projection, style);
        if (!command.gnuplot_path.empty())
            write_text_file(command.gnuplot_path, projection_gnuplot(projection));
    }
    if (!command.gains_csv_path.empty()) write_text_file(command.gains_csv_path, gains_csv(gains));
    if (!mpi_model) {
        for (const auto& run : omp.runs) {
            out << format_thread_breakdown(run, style)
                << format_region_table(run, pcf_labels(run.path), style);
        }
    }
    std::string parts_csv;
    std::vector<PartsReport> reports;
    for (const auto& parts : analyzed.parts) {
        if (parts.summaries.empty()) continue;
        PartsReport report{
            fmt::format("{}: {}", parts.summaries.front().path, parts.focus.description),
            parts_table(model, parts, convention)};
        out << "\n"
            << wrap_text(report.title, style.width)
            << format_parts_table(report.table, part_spans(parts.focus), style);
        if (!parts_csv.empty()) parts_csv += '\n';
        parts_csv += model == "openmp" ? format_pypop_csv(report.table)
                                       : format_modelfactors_csv(report.table);
        reports.push_back(std::move(report));
    }
    if (!command.parts_csv_path.empty()) write_text_file(command.parts_csv_path, parts_csv);
    if (!command.root_causes_csv_path.empty())
        write_text_file(command.root_causes_csv_path, root_causes_csv(causes));
    if (!command.communication_csv_path.empty())
        write_text_file(command.communication_csv_path, communication_csv(communication));
    if (!command.csv_path.empty())
        write_text_file(command.csv_path, model == "openmp" ? format_pypop_csv(table)
                                                            : format_modelfactors_csv(table));
    nlohmann::json report;
    if (with_report || !command.json_path.empty()) report = analysis_json(c);
    if (!command.json_path.empty()) write_text_file(command.json_path, report_text(report));
    if (!command.html_path.empty())
        write_text_file(command.html_path,
                        render_analysis_html({.table = table,
                                              .description = model_description,
                                              .series = series,
                                              .runs = omp.runs,
                                              .per_thread = !mpi_model,
                                              .parts = reports,
                                              .root_causes = causes,
                                              .communication = communication,
                                              .gains = gains,
                                              .projection = charted_projection(series, o.project),
                                              .warnings = trace_warnings(c.analyzed),
                                              .run_labels = run_pcf_labels(omp.runs)}));
    return {.table = std::move(shown), .report = std::move(report)};
}

void add_analyze_options(CLI::App* cmd, AnalyzeCommandOptions& command_options) {
    auto* command = &command_options;
    auto* options = &command->analysis;
    cmd->add_option(
           "traces", options->traces,
           "Paraver traces (.prv or .prv.gz) or OTF2 archives (traces.otf2), one per run of "
           "the series, or folders of them (a Score-P experiment folder is one run; "
           "simulated *.sim.prv left out)")
        ->required();
    cmd->add_option("--csv", command->csv_path, "Write BSC modelfactors' CSV layout to FILE")
        ->transform(report_file_name());
    cmd->add_option("--json", command->json_path,
                    "Write every number, with names and units, to FILE")
        ->transform(report_file_name());
    cmd->add_option(
           "--html", command->html_path,
           "Write a self-contained HTML report (table, scaling plots, per-rank breakdown) to FILE")
        ->transform(report_file_name());
    cmd->add_option("--scaling", options->scaling,
                    "Scaling kind of the series (auto = detect as modelfactors)")
        ->transform(one_of({"auto", "strong", "weak"}));
    cmd->add_option("--convention", options->convention,
                    "Serialisation/Transfer split: modelfactors (SerE = ideal max useful / ideal "
                    "runtime) or pop (TE = ideal runtime / runtime)")
        ->transform(one_of({"modelfactors", "pop"}));
    cmd->add_option("--model", options->model,
                    "Table to print: mpi (multiplicative, modelfactors), additive (PyPOP MPI), "
                    "openmp (PyPOP; CSV in PyPOP's layout), hybrid-additive, "
                    "hybrid-multiplicative or talp; auto = openmp for runs without MPI, else mpi. "
                    "JSON always has all")
        ->transform(one_of({"auto", "mpi", "additive", "openmp", "hybrid-additive",
                            "hybrid-multiplicative", "talp"}))
        ->capture_default_str();
    cmd->add_flag("!--no-replay", options->replay,
                  "Skip the ideal-network replay (no Serialisation/Transfer)");
    cmd->add_option("--replay-method", options->replay_method,
                    "How to replay on the ideal network: events (the event engine) or longest-path "
                    "(one pass over the dependency graph); same result")
        ->transform(one_of({"longest-path", "events"}));
    cmd->add_flag("--in-memory", options->in_memory,
                  "Read each trace into memory and replay it there, instead of analysing it in one "
                  "streaming pass (memory ~35 bytes per record instead of the trace's width; the "
                  "same numbers)");
    cmd->add_flag("--root-causes", options->root_causes,
                  "Also find the wait states (late sender, late receiver, wait at barrier or NxN, "
                  "late broadcast, early reduce) of the traced run and of its ideal-network "
                  "replay, per rank, call site and code region, who waited for whom, the critical "
                  "path and whose computation caused the waiting; reads the trace into memory");
    cmd->add_option(
           "--code-regions", options->code_regions,
           "With --root-causes: the event type whose values are the code regions (SPEC "
           "as for --region, e.g. 60000019, 'Caller at level 2'; default: --region's type, "
           "else user functions, else the callers of MPI calls)")
        ->type_name("SPEC");
    cmd->add_flag("--communication", options->communication,
                  "Also show who sends how much to whom (the communication matrix), the message "
                  "sizes and a time profile of each rank's useful and MPI time; reads the trace "
                  "into memory");
    cmd->add_option("--communication-csv", command->communication_csv_path,
                    "With --communication: write its views to FILE (one row per rank pair, size "
                    "bin, or rank and time bin)")
        ->transform(report_file_name());
    cmd->add_option("--root-causes-csv", command->root_causes_csv_path,
                    "With --root-causes: write its tables to FILE (one row per number: run, "
                    "table, timeline, pattern, ranks, call, call site, region, time, calls)")
        ->transform(report_file_name());
    cmd->add_flag("--gains", options->gains,
                  "Also rank candidate fixes by the time they would save: the ideal network, "
                  "balanced computation, and each of the code regions with the most computation "
                  "on the ideal critical path twice as fast (replayed on the ideal network), "
                  "with the efficiency each moves; reads the trace into memory");
    cmd->add_option("--project", options->project,
                    "Fit each factor of the series against the process count and extrapolate it "
                    "to these counts (comma-separated): modelfactors' Amdahl fit, and the form "
                    "that fits best with its leave-one-out range")
        ->delimiter(',')
        ->check(CLI::Validator(project_count_error, "COUNT"))
        ->type_name("COUNTS");
    cmd->add_option("--gnuplot", command->gnuplot_path,
                    "With --project: write the fits and the measured points as a gnuplot script, "
                    "as modelfactors' modelfactors.gp")
        ->transform(report_file_name());
    cmd->add_option("--gains-csv", command->gains_csv_path,
                    "With --gains: write its table to FILE (one row per run and fix)")
        ->transform(report_file_name());
    cmd->add_option("--gains-config", options->gains_config,
                    "With --gains: also replay each fix on this Dimemas configuration (.cfg), "
                    "a model of the traced network; each fix then saves on the traced run what "
                    "it saves there")
        ->check(existing_input_file());
    add_eager_option(cmd, options->eager_limit);
    add_collectives_option(cmd, options->collectives);
    cmd->add_flag("--whole-trace", options->whole_trace,
                  "Analyse the whole trace, also where tracing was switched off on every thread "
                  "(by default those spans are left out: the traced windows are analysed)");
    add_focus_options(cmd, options->focus);
    cmd->add_option("--parts-csv", command->parts_csv_path,
                    "With --region or --phases: write the metrics of each instance or phase to "
                    "FILE (modelfactors' layout, one column each; one table per trace)")
        ->transform(report_file_name());
    cmd->add_option("--label", options->labels,
                    "Name the runs in the JSON report, one per trace in the order given "
                    "(comma-separated or repeated; default: each trace's file name)")
        ->type_name("NAME")
        ->delimiter(',');
    cmd->add_flag("--fraction", command->fraction,
                  "Show efficiencies as fractions (0-1) instead of %");
    cmd->add_flag("--no-color,--no-colour", command->no_color, "No colours, even on a terminal");
}

void add_analyze_command(CLI::App& app, pipeline::WorkDivision* division) {
    auto command = std::make_shared<AnalyzeCommandOptions>();
    auto* cmd =
        app.add_subcommand("analyze", "Compute the POP metrics of one trace or a scaling series");
    add_analyze_options(cmd, *command);
    cmd->callback([command, division] {
        const bool print = check_analyze_command(*command);
        pipeline::Analysis analysis = pipeline::analyze(command->analysis, division);
        if (analysis.reports_here) // else another process of the MPI run shows it
            show_analysis(analysis, *command, print, false);
    });
}

} // namespace popsim::simulator

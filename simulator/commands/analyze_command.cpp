// SPDX-License-Identifier: BSD-3-Clause
#include "metrics/communication_views.hpp"
#include "metrics/ideal_replay.hpp"
#include "metrics/scaling.hpp"
#include "metrics/streaming_analysis.hpp"
#include "replay/engine/engine.hpp"
#include "replay/extrae_events.hpp"
#include "replay/focus/trace_window.hpp"
#include "replay/input/paraver_reader.hpp"
#include "simulator/analysis.hpp"
#include "simulator/cli_suggestions.hpp"
#include "simulator/code_whatif.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/focus.hpp"
#include "simulator/global_options.hpp"
#include "simulator/load_program.hpp"
#include "simulator/network_options.hpp"
#include "simulator/output_paths.hpp"
#include "simulator/progress_bar.hpp"
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
#include "simulator/reports/warning_output.hpp"
#include "simulator/trace_inputs.hpp"
#include "simulator/units.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <map>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <optional>
#include <span>
#include <unistd.h>

namespace popsim::simulator {

namespace {

/// The command's options: what to compute, and where and how to show it.
struct AnalyzeCommandOptions {
    AnalyzeOptions analysis;
    std::string csv_path;
    std::string json_path;
    std::string html_path;
    std::string parts_csv_path;
    std::string root_causes_csv_path;
    std::string gains_csv_path;
    std::string gnuplot_path; // --gnuplot, with --project
    std::string communication_csv_path;
    bool fraction = false;
    bool no_color = false;
};

metrics::IdealOptions ideal_options(const AnalyzeOptions& o) {
    metrics::IdealOptions options;
    options.program.eager_limit_bytes = parse_bytes(o.eager_limit);
    options.program.whole_trace = o.whole_trace;
    options.program.collectives = collective_sync(o.collectives);
    options.method = o.replay_method == "longest-path" ? metrics::ReplayMethod::longest_path
                                                       : metrics::ReplayMethod::events;
    return options;
}

/// The metrics of each instance of a region, or of each phase, of one trace.
struct FocusParts {
    TraceFocus focus;
    std::vector<metrics::TraceSummary> summaries;
    std::vector<metrics::HybridRun> runs;
    /// Each window's own (its times count from the window's start); in the JSON, not printed:
    /// thousands of instances would repeat the same lines.
    std::vector<replay::WarningLog> warnings;
};

struct Analyzed {
    std::vector<TracePass> passes; // per trace
    std::vector<metrics::TraceSummary> summaries;
    std::vector<metrics::HybridRun> runs;     // the same traces, for the OpenMP and hybrid models
    std::vector<replay::WarningLog> warnings; // per trace
    std::vector<replay::CommunicationRepairs> repairs;
    std::vector<FocusParts> parts; // per trace, with --region or --phases
    std::vector<std::optional<metrics::RootCauses>> root_causes; // per trace, with --root-causes
    std::vector<std::optional<Gains>> gains;                     // per trace, with --gains
    std::vector<std::optional<metrics::CommunicationViews>> communication; // --communication
};

/// Tells which windows are analysed when tracing was switched off on every thread for a while.
void note_untraced_spans(const metrics::TraceSummary& s, Time trace_end, replay::WarningLog& log) {
    if (s.runtime == trace_end) return;
    const Time covered = s.runtime; // the windows' total
    log.add("untraced-spans",
            fmt::format("tracing was switched off on every thread for {} of the trace's {}: the "
                        "analysis covers the {} traced window{} ({} in total; --whole-trace "
                        "analyses everything)",
                        replay::seconds(trace_end - covered), replay::seconds(trace_end),
                        s.windows.size(), s.windows.size() == 1 ? "" : "s",
                        replay::seconds(covered)));
}

/// Says why efficiencies are shown as "-": ratios of zero times are undefined (metrics/ratio.hpp).
void note_undefined_metrics(const metrics::TraceSummary& s, replay::WarningLog& log) {
    if (s.runtime == 0) {
        log.add("undefined-metrics",
                "the trace lasts 0 ns: its efficiencies and scalings are undefined (shown as -)");
    } else if (s.useful_max() == 0) {
        log.add("undefined-metrics",
                "no thread is ever in the Running state (no useful computation): load balance, "
                "the scalings and IPC are undefined (shown as -)");
    }
}

/// Start-up and shut-down beyond this share of the runtime are worth a warning: Extrae's traces
/// hold a few hundred microseconds of them, Score-P's the whole of MPI_Init.
constexpr double k_startup_share_warned = 0.05;

void note_startup(const metrics::TraceSummary& s, replay::WarningLog& log) {
    if (s.runtime == 0) return;
    const double share = static_cast<double>(s.startup.traced) / static_cast<double>(s.runtime);
    if (share <= k_startup_share_warned) return;
    log.add("startup-shutdown",
            fmt::format("start-up and shut-down (tasks not created yet, in MPI_Init or "
                        "MPI_Finalize) take {:.1f}% of the run ({:.6f} s): shown on a line of "
                        "their own, left out of Serialisation and Transfer; to analyse from the "
                        "end of MPI_Init to the start of MPI_Finalize: --from {}ns --to {}ns",
                        100 * share, static_cast<double>(s.startup.traced) / 1e9,
                        s.startup.init_end, s.startup.finalize_begin));
}

/// What a trace's summary is warned about, streamed or in memory.
void note_summary(const metrics::TraceSummary& s, Time trace_end, replay::WarningLog& log) {
    note_untraced_spans(s, trace_end, log);
    note_undefined_metrics(s, log);
    note_startup(s, log);
}

/// A series is one program and input at several scales. A run whose useful computation or
/// instruction count (per process, for weak scaling) is more than 3 times off the reference's is
/// another program or input: its scalings and Global efficiency would compare unrelated runs.
/// (Real strong-scaling series stay within 1.5 times: cache effects, replicated work.)
void note_mixed_series(const metrics::SeriesAnalysis& series, Analyzed& analyzed) {
    constexpr double k_limit = 3.0;
    for (std::size_t i = 1; i < series.traces.size(); ++i) {
        const auto& f = series.scaling[i];
        std::vector<std::string> off;
        for (const auto& [what, scalability] :
             {std::pair{"useful computation", std::optional(f.computation_scalability)},
              std::pair{"instructions", f.instruction_scalability}}) {
            if (!scalability || !std::isfinite(*scalability)) continue;
            if (*scalability <= k_limit && *scalability >= 1 / k_limit) continue;
            const double times = 1 / *scalability;
            off.push_back(times >= 100 ? fmt::format("{:.0f} times the {}", times, what)
                                       : fmt::format("{:.3g} times the {}", times, what));
        }
        if (off.empty()) continue;
        replay::WarningLog log;
        log.add("mixed-series",
                fmt::format("the series mixes runs of different programs or inputs: this run "
                            "has {} of {} (the reference){}; its scalings and Global efficiency "
                            "compare unrelated runs",
                            fmt::join(off, " and "), series.traces.front().path,
                            series.kind == metrics::ScalingKind::weak ? ", per process" : ""));
        const auto& path = series.traces[i].path;
        print_warnings(path, log);
        for (std::size_t j = 0; j < analyzed.summaries.size(); ++j)
            if (analyzed.summaries[j].path == path) analyzed.warnings[j].merge(log);
    }
}

/// The names in a trace's .pcf (an OTF2 archive's definitions), for its parallel regions, call
/// sites and code regions; none when it has no readable .pcf (the reader has said so).
replay::TraceLabels pcf_labels(const std::string& trace_path) {
    try {
        return replay::read_trace_labels(trace_path);
    } catch (const replay::TraceError&) {
        return {};
    }
}

/// Each trace's warnings, for the HTML report.
std::vector<TraceWarnings> trace_warnings(const Analyzed& analyzed) {
    std::vector<TraceWarnings> out;
    for (std::size_t i = 0; i < analyzed.summaries.size(); ++i)
        out.push_back({analyzed.summaries[i].path, analyzed.warnings[i].all()});
    return out;
}

/// Whether `model` (--model) is one of the MPI models, whose columns are the MPI series' traces;
/// the others list runs by threads and layout (metrics::OpenMpSeries).
bool is_mpi_model(const std::string& model) {
    return model == "mpi" || model == "additive";
}

/// Efficiencies are fractions of an ideal: one above 100 % (or below 0) says that the times it
/// compares come from records that disagree. Each is shown with a warning saying so, unless the
/// trace already has the one that explains it (ideal-after-real, for the network's efficiencies).
/// Scalabilities, and Global efficiency with them, may exceed 100 % (super-linear speed-up).
/// `column_paths`: the trace of each column of `table`; `region_runs`: the runs whose parallel
/// regions the report lists (the OpenMP and hybrid models), else empty.
void note_out_of_range(const MetricTable& table, const std::vector<std::string>& column_paths,
                       std::span<const metrics::HybridRun> region_runs, Analyzed& analyzed) {
    for (std::size_t i = 0; i < column_paths.size(); ++i) {
        const auto& path = column_paths[i];
        const auto at = std::find_if(analyzed.summaries.begin(), analyzed.summaries.end(),
                                     [&](const auto& s) { return s.path == path; });
        if (at == analyzed.summaries.end()) continue;
        auto& warnings =
            analyzed.warnings[static_cast<std::size_t>(at - analyzed.summaries.begin())];
        const bool explained = warnings.find("ideal-after-real") != nullptr;
        std::vector<std::string> out;
        for (const auto& row : table.factors) {
            if (!is_bounded_efficiency(row) || i >= row.values.size() || !row.values[i] ||
                !outside_0_100(*row.values[i]))
                continue;
            const bool network = row.key.find("transfer") != std::string::npos ||
                                 row.key.find("serialization") != std::string::npos ||
                                 row.key.find("communication") != std::string::npos;
            if (!(explained && network))
                out.push_back(fmt::format("{} {:.2f}%", row.label, 100 * *row.values[i]));
        }
        for (const auto& run : region_runs) {
            if (run.path != path) continue;
            std::optional<replay::TraceLabels> labels; // read for the first region named only
            for (const auto& g : metrics::region_metrics(run)) {
                // Its efficiencies, and its shares of the run (the table's "of run", "ORE loss").
                const double of_run = static_cast<double>(g.total_length) /
                                      static_cast<double>(std::max<Time>(run.processes, 1)) /
                                      static_cast<double>(std::max<Time>(run.runtime, 1));
                for (const auto& [what, v] :
                     {std::pair{"parallel efficiency", g.parallel_efficiency},
                      std::pair{"load balance", g.load_balance},
                      std::pair{"share of the run", of_run},
                      std::pair{"share of the OpenMP region loss",
                                g.parallel_inefficiency_contribution}}) {
                    if (!outside_0_100(v)) continue;
                    if (!labels) labels = pcf_labels(path);
                    out.push_back(fmt::format("parallel region \"{}\" {} {:.2f}%",
                                              region_name(g.region, *labels), what, 100 * v));
                }
            }
        }
        if (out.empty()) continue;
        replay::WarningLog log;
        add_out_of_range_warning(out, log);
        print_warnings(path, log);
        warnings.merge(log);
    }
}

/// The meters of analyze's progress bar.
constexpr std::size_t k_reading = 0, k_replaying = 1;

/// --gains-config as network options, with the program's eager limit and collectives.
std::optional<NetworkOptions> gains_network(const AnalyzeOptions& o) {
    if (o.gains_config.empty()) return std::nullopt;
    NetworkOptions network;
    network.model = "dimemas";
    network.config = o.gains_config;
    network.eager = o.eager_limit;
    network.collectives = o.collectives;
    return network;
}

/// The metrics of one trace, or of a window of it (a trace in its own right).
/// With `causes`, also the root causes (--root-causes), by the code regions of `region_type`.
void summarize_one(const replay::Trace& trace, const AnalyzeOptions& o,
                   metrics::TraceSummary& summary, metrics::HybridRun& run,
                   replay::WarningLog& warnings, ProgressBar& progress,
                   std::optional<metrics::RootCauses>* causes = nullptr,
                   std::uint32_t region_type = 0, std::optional<Gains>* gains = nullptr) {
    auto options = ideal_options(o);
    options.on_progress = [&](std::uint64_t ops) { progress.add(k_replaying, ops); };
    // The replay program is built on every core; the replay itself is sequential, so the
    // summaries run beside it.
    const auto program =
        o.replay ? replay::build_replay_program(trace, options.program) : replay::ReplayProgram{};
    progress.add_total(k_replaying, program.op_count());
    std::optional<metrics::IdealRun> ideal;
    oneapi::tbb::parallel_invoke(
        [&] {
            // The program found the untraced spans already (none with --whole-trace).
            summary = o.replay ? metrics::summarize(trace, program.untraced)
                               : metrics::summarize(trace, o.whole_trace);
            run = metrics::hybrid_run(trace, summary.startup);
        },
        [&] {
            if (!o.replay) return;
            ideal = naming_trace(
                trace.path, [&] { return metrics::ideal_run(trace, program, options, &warnings); });
        });
    summary.ideal = run.ideal = ideal;
    if (causes && o.root_causes)
        *causes = naming_trace(trace.path,
                               [&] { return metrics::root_causes(trace, program, region_type); });
    if (gains && o.gains) {
        *gains = naming_trace(
            trace.path, [&] { return rank_gains(trace, program, summary, gains_network(o)); });
    }
    note_summary(summary, trace.end_time(), warnings);
}

/// Whether the analysis asked for is one the streaming pass computes: a whole trace, replayed by
/// the event engine's rules (the longest-path cross-check needs the dependency graph).
bool streamable(const AnalyzeOptions& o) {
    return !o.in_memory && !o.focus.any() && o.replay_method == "events" && !o.root_causes &&
           !o.communication && !o.gains;
}

/// The trace analysed in one streaming pass (try_streaming); false when it needs the in-memory
/// analysis.
bool analyze_streaming(const std::string& path, const AnalyzeOptions& o,
                       const replay::ReadOptions& read, metrics::TraceSummary& summary,
                       metrics::HybridRun& run, replay::WarningLog& warnings,
                       replay::CommunicationRepairs& repairs, TracePass& pass) {
    const auto ideal = ideal_options(o);
    return try_streaming(path, pass, [&] {
        auto s = metrics::analyze_streaming(path, read, o.whole_trace, o.replay ? &ideal : nullptr);
        summary = std::move(s.summary);
        run = std::move(s.run);
        warnings = std::move(s.trace.warnings);
        repairs = s.trace.repairs;
        note_summary(summary, s.trace.end_time(), warnings);
    });
}

/// Each instance or phase apart.
FocusParts summarize_parts(const replay::Trace& trace, const TraceFocus& focus,
                           const AnalyzeOptions& o, ProgressBar& progress) {
    const std::size_t n = focus.parts.size();
    FocusParts out{.focus = focus,
                   .summaries = std::vector<metrics::TraceSummary>(n),
                   .runs = std::vector<metrics::HybridRun>(n),
                   .warnings = std::vector<replay::WarningLog>(n)};
    const replay::TraceWindows windows(trace); // indexed once for every part
    oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
        const replay::Trace window = windows.window(focus.parts[k].window);
        out.warnings[k] = window.warnings;
        summarize_one(window, o, out.summaries[k], out.runs[k], out.warnings[k], progress);
    });
    return out;
}

Analyzed summarize_all(const AnalyzeOptions& o) {
    const auto& paths = o.traces;
    Analyzed a;
    a.passes.resize(paths.size());
    a.summaries.resize(paths.size());
    a.runs.resize(paths.size());
    a.warnings.resize(paths.size());
    a.repairs.resize(paths.size());
    a.parts.resize(paths.size());
    a.root_causes.resize(paths.size());
    a.gains.resize(paths.size());
    a.communication.resize(paths.size());
    ProgressBar progress({{.label = "reading", .total = input_file_bytes(paths)},
                          {.label = "replaying", .unit = ProgressBar::Unit::operations}});
    oneapi::tbb::parallel_for(std::size_t{0}, paths.size(), [&](std::size_t i) {
        replay::ReadOptions read = read_options();
        read.on_progress = progress.running_total(k_reading);
        // The root causes' call sites and code regions.
        const std::uint32_t region_type =
            o.code_regions.empty() ? 0
                                   : resolve_event_type(paths[i], "--code-regions", o.code_regions);
        if (o.root_causes || o.gains) { // the call sites and code regions
            for (const auto type :
                 {replay::extrae::k_caller, replay::extrae::k_user_function, region_type})
                if (type != 0) read.tracked_event_types.push_back(type);
        }
        if (streamable(o) && analyze_streaming(paths[i], o, read, a.summaries[i], a.runs[i],
                                               a.warnings[i], a.repairs[i], a.passes[i]))
            return;
        read.on_progress = progress.running_total(k_reading); // read again
        const FocusedTrace focused = read_focused(paths[i], o.focus, read);
        const replay::Trace& trace = focused.trace; // not a structured binding: lambdas below
        const TraceFocus& focus = focused.focus;    // capture them, which clang 14 refuses
        a.parts[i].focus = focus;
        if (o.communication) a.communication[i] = metrics::communication_views(trace);
        a.warnings[i] = trace.warnings;
        a.repairs[i] = trace.repairs;
        switch (focus.kind) {
        case TraceFocus::Kind::whole:
        case TraceFocus::Kind::window: // the reader read the window alone
            summarize_one(trace, o, a.summaries[i], a.runs[i], a.warnings[i], progress,
                          &a.root_causes[i], region_type, &a.gains[i]);
            break;
        case TraceFocus::Kind::region: {
            a.parts[i] = summarize_parts(trace, focus, o, progress);
            replay::Intervals windows;
            for (const auto& part : focus.parts)
                windows.emplace_back(part.window.from, part.window.to);
            a.summaries[i] = metrics::concatenate(a.parts[i].summaries, windows);
            a.runs[i] = a.parts[i].runs.front(); // the hybrid models are refused with --region
            if (o.root_causes) {                 // of the whole run, by the regions --region names
                a.root_causes[i] = naming_trace(paths[i], [&] {
                    return metrics::root_causes(
                        trace, replay::build_replay_program(trace, ideal_options(o).program),
                        region_type != 0 ? region_type : focus.selector->type);
                });
            }
            break;
        }
        case TraceFocus::Kind::phases:
            oneapi::tbb::parallel_invoke(
                [&] {
                    summarize_one(trace, o, a.summaries[i], a.runs[i], a.warnings[i], progress,
                                  &a.root_causes[i], region_type);
                },
                [&] { a.parts[i] = summarize_parts(trace, focus, o, progress); });
            break;
        }
    });
    print_series_warnings(paths, a.warnings);
    return a;
}

/// The table `--model` names; the OpenMP and hybrid ones list runs by threads and layout.
MetricTable model_table(const std::string& model, const metrics::SeriesAnalysis& series,
                        const metrics::OpenMpSeries& omp) {
    if (model == "additive") return additive_table(series);
    if (model == "openmp") return openmp_table(omp);
    if (model == "hybrid-additive") return hybrid_additive_table(omp.runs);
    if (model == "hybrid-multiplicative") return hybrid_multiplicative_table(omp.runs);
    if (model == "talp") return talp_table(omp.runs);
    return modelfactors_table(series);
}

/// The metrics of each phase or instance of a trace, as a table with one column each; the
/// scalings between them are left out (they are parts of one run, not runs at other scales).
MetricTable parts_table(const std::string& model, const FocusParts& parts,
                        metrics::SerTransConvention convention) {
    const auto series =
        metrics::analyze_series(parts.summaries, metrics::ScalingKind::strong, convention);
    MetricTable table = model_table(model, series, metrics::analyze_openmp_series(parts.runs));
    table.column_title = parts.focus.kind == TraceFocus::Kind::phases ? "Phase" : "Instance";
    table.columns.clear();
    for (const auto& part : parts.focus.parts) table.columns.push_back(part.label);
    std::erase_if(table.factors, [](const MetricRow& row) {
        return row.key.ends_with("scalability") || row.key == "global_efficiency" ||
               row.key == "speedup" || row.key.ends_with("_scaling") || row.key == "global" ||
               row.key == "computational";
    });
    return table;
}

std::vector<PartSpan> part_spans(const TraceFocus& focus) {
    std::vector<PartSpan> spans;
    for (const auto& part : focus.parts) {
        spans.push_back({.from_s = static_cast<double>(part.window.from) / 1e9,
                         .length_s = static_cast<double>(part.window.length()) / 1e9});
    }
    return spans;
}

nlohmann::json parts_json(const FocusParts& parts, const MetricTable& table) {
    nlohmann::json j;
    j["kind"] = parts.focus.kind == TraceFocus::Kind::phases ? "phases" : "region";
    j["description"] = parts.focus.description;
    j["event_type"] = parts.focus.selector->type;
    j["event_values"] = parts.focus.selector->values;
    auto& list = j["parts"] = nlohmann::json::array();
    for (std::size_t k = 0; k < parts.focus.parts.size(); ++k) {
        nlohmann::json part;
        part["label"] = parts.focus.parts[k].label;
        part["from_ns"] = parts.focus.parts[k].window.from;
        part["to_ns"] = parts.focus.parts[k].window.to;
        part["warnings"] = warnings_json(parts.warnings[k]);
        for (const auto* rows : {&table.factors, &table.raw})
            for (const auto& row : *rows)
                part[row.key] = row.values[k] ? nlohmann::json(*row.values[k]) : nlohmann::json();
        list.push_back(std::move(part));
    }
    return j;
}

/// Each trace's label: --label's, else its file name.
std::vector<std::string> run_labels(const std::vector<std::string>& traces,
                                    const std::vector<std::string>& given) {
    if (!given.empty() && given.size() != traces.size()) {
        throw std::invalid_argument(
            fmt::format("--label names {} runs for {} traces", given.size(), traces.size()));
    }
    if (!given.empty()) return given;
    std::vector<std::string> out;
    for (const auto& t : traces) out.push_back(std::filesystem::path(t).filename().string());
    return out;
}

nlohmann::json analysis_json(const metrics::SeriesAnalysis& series, const Analyzed& analyzed,
                             const std::vector<std::string>& labels) {
    auto j = series_to_json(series);
    for (auto& t : j["traces"]) {
        for (std::size_t i = 0; i < analyzed.runs.size(); ++i) {
            if (analyzed.runs[i].path != t["path"]) continue;
            t["label"] = labels[i];
            t["hybrid"] = hybrid_json(analyzed.runs[i]);
            const auto labels = pcf_labels(analyzed.runs[i].path);
            for (auto& region : t["hybrid"]["regions"])
                region["name"] = region_name(region["region"].get<std::uint64_t>(), labels);
            t["warnings"] = warnings_json(analyzed.warnings[i]);
            t["communication_repairs"] = repairs_json(analyzed.repairs[i]);
            t["analysis_pass"] = pass_json(analyzed.passes[i]);
            if (const auto& causes = analyzed.root_causes[i])
                t["root_causes"] = root_causes_json(*causes, labels);
            if (const auto& gains = analyzed.gains[i]) t["gains"] = gains_json(*gains);
            if (const auto& views = analyzed.communication[i])
                t["communication"] = communication_json(*views);
            const auto& parts = analyzed.parts[i];
            if (!parts.summaries.empty()) {
                t["focus"] = parts_json(parts, parts_table("mpi", parts, series.convention));
            } else if (parts.focus.kind == TraceFocus::Kind::window) {
                t["focus"] = {{"kind", "window"},
                              {"description", parts.focus.description},
                              {"from_ns", parts.focus.parts[0].window.from},
                              {"to_ns", parts.focus.parts[0].window.to}};
            }
        }
    }
    return j;
}

/// What the table shows: the model, then the scaling kind and how it was chosen, the convention.
std::string describe_model(const std::string& model, const metrics::SeriesAnalysis& series) {
    static const std::map<std::string, std::string> k_models = {
        {"mpi", "MPI, multiplicative (modelfactors)"},
        {"additive", "MPI, additive (PyPOP)"},
        {"openmp", "OpenMP (PyPOP)"},
        {"hybrid-additive", "hybrid MPI+OpenMP, additive"},
        {"hybrid-multiplicative", "hybrid MPI+OpenMP, multiplicative"},
        {"talp", "hybrid MPI+OpenMP, TALP"}};
    std::string text = fmt::format("Model: {}", k_models.at(model));
    std::vector<std::string> details;
    if (series.traces.size() > 1) {
        details.push_back(fmt::format("Scaling: {} ({})",
                                      series.kind == metrics::ScalingKind::weak ? "weak" : "strong",
                                      series.kind_forced ? "--scaling" : "detected"));
    }
    if (model == "mpi" || model == "additive") {
        details.push_back(fmt::format(
            "Serialisation/Transfer convention: {}",
            series.convention == metrics::SerTransConvention::pop ? "POP" : "modelfactors"));
    }
    if (!details.empty()) text += fmt::format("\n{}", fmt::join(details, "; "));
    return text;
}

/// The model --model names, or for auto: the OpenMP model for runs without MPI (and with threads),
/// else modelfactors' MPI model. A model that does not fit the runs is warned about.
std::string choose_model(const AnalyzeOptions& o, const std::vector<metrics::HybridRun>& runs) {
    const bool mpi = std::any_of(runs.begin(), runs.end(), [](const metrics::HybridRun& r) {
        return std::any_of(r.threads.begin(), r.threads.end(),
                           [](const metrics::ThreadBreakdown& t) { return t.mpi > 0; });
    });
    const bool threads = std::any_of(runs.begin(), runs.end(), [](const metrics::HybridRun& r) {
        return r.total_threads > r.processes;
    });
    const std::string runs_are = runs.size() == 1 ? "the trace makes" : "the traces make";
    if (o.model == "auto") {
        if (mpi && threads && o.focus.region.empty()) {
            print_note(fmt::format(
                "{} MPI calls from processes of several threads: this MPI table counts the "
                "OpenMP overheads as communication (its Transfer holds them); --model "
                "hybrid-multiplicative (PyPOP) or --model talp (DLB) separates MPI from OpenMP",
                runs_are));
        }
        if (mpi || !threads || !o.focus.region.empty()) return "mpi";
        print_note(fmt::format(
            "{} no MPI call: showing the OpenMP model (--model mpi shows the MPI one)", runs_are));
        return "openmp";
    }
    if ((o.model == "mpi" || o.model == "additive") && !mpi && threads) {
        print_warning(fmt::format(
            "{} no MPI call: the MPI model sees one process per run and counts "
            "the OpenMP overheads as communication; --model openmp shows the OpenMP metrics",
            runs_are));
    }
    if (o.model != "mpi" && o.model != "additive" && !threads) {
        print_warning(
            fmt::format("every process runs one thread: the {} model's thread metrics are "
                        "those of serial processes; --model mpi shows the MPI metrics",
                        o.model));
    }
    return o.model;
}

/// Everything analyze computes, for its reports.
struct Computed {
    AnalyzeOptions options; // with the folders expanded
    Analyzed analyzed;
    metrics::SeriesAnalysis series;
    metrics::OpenMpSeries omp;
    AnalysisTable shown;
};

/// Refuses options that do not go together, before any work.
void check_analyze_options(const AnalyzeOptions& o) {
    run_labels(o.traces, o.labels); // a wrong count
    if (!o.gains_config.empty() && !o.gains)
        throw std::invalid_argument("--gains-config replays the fixes of --gains: add it");
    if (const auto network = gains_network(o)) {
        check_network_options(*network);
        if (!config_modules(o.gains_config).empty())
            throw std::invalid_argument(
                "--gains-config " + o.gains_config +
                ": its \"modules information\" change the code, not the network; --gains tries "
                "its own code fixes: give a configuration without modules");
    }
    if (o.root_causes && !o.replay)
        throw std::invalid_argument(
            "--root-causes needs the ideal-network replay (not --no-replay)");
    if (o.gains && !o.replay)
        throw std::invalid_argument("--gains replays fixes on the ideal network (not --no-replay)");
    if (o.gains && (!o.focus.region.empty() || !o.focus.phases.empty()))
        throw std::invalid_argument(
            "--gains ranks the fixes of a whole run or a --from/--to window, not of --region or "
            "--phases");
    if (!o.project.empty() && o.traces.size() < 2)
        throw std::invalid_argument(
            "--project fits the factors against the process count: give runs at two process "
            "counts at least");
    if (!o.code_regions.empty() && !o.root_causes)
        throw std::invalid_argument("--code-regions names the regions of --root-causes: add it");
    if (!o.focus.region.empty() && o.model != "mpi" && o.model != "additive" && o.model != "auto") {
        throw std::invalid_argument(fmt::format(
            "--region with --model {}: the metrics of all instances together exist for the MPI "
            "models (mpi, additive); for the OpenMP and hybrid models, analyse one instance with "
            "--from/--to, or each with --phases",
            o.model));
    }
}

/// The analysis of options whose folders are expanded and which check_analyze_options accepted.
Computed compute_analysis(AnalyzeOptions o) {
    if (o.traces.size() > 1) {
        for (const auto& path : o.traces) {
            if (!is_simulated_trace(path)) continue;
            print_warning(fmt::format("{}: a simulated trace: its column is a "
                                      "simulated run, not a traced one",
                                      path));
        }
    }
    std::optional<metrics::ScalingKind> forced;
    if (o.scaling == "strong") forced = metrics::ScalingKind::strong;
    if (o.scaling == "weak") forced = metrics::ScalingKind::weak;
    const auto convention = o.convention == "pop" ? metrics::SerTransConvention::pop
                                                  : metrics::SerTransConvention::modelfactors;
    Analyzed analyzed = summarize_all(o);
    const auto series = metrics::analyze_series(analyzed.summaries, forced, convention);
    note_mixed_series(series, analyzed);
    const auto omp = metrics::analyze_openmp_series(analyzed.runs);
    if (forced && series.weak_indicator) {
        const bool detected_weak = *series.weak_indicator > 0.9;
        if (detected_weak != (*forced == metrics::ScalingKind::weak)) {
            print_warning(fmt::format("--scaling {} overrides the detected {} scaling", o.scaling,
                                      detected_weak ? "weak" : "strong"));
        }
    }
    const std::string model = choose_model(o, omp.runs);
    AnalysisTable shown{.model = model,
                        .description = describe_model(model, series),
                        .table = model_table(model, series, omp)};
    std::vector<std::string> column_paths;
    if (is_mpi_model(model)) {
        for (const auto& t : series.traces) column_paths.push_back(t.path);
    } else {
        for (const auto& r : omp.runs) column_paths.push_back(r.path);
    }
    note_out_of_range(shown.table, column_paths,
                      is_mpi_model(model) ? std::span<const metrics::HybridRun>{}
                                          : std::span<const metrics::HybridRun>(omp.runs),
                      analyzed);
    return {.options = std::move(o),
            .analyzed = std::move(analyzed),
            .series = series,
            .omp = omp,
            .shown = std::move(shown)};
}

nlohmann::json report_of(const Computed& c) {
    auto j = analysis_json(c.series, c.analyzed, run_labels(c.options.traces, c.options.labels));
    if (!c.options.project.empty())
        j["projection"] = projection_json(metrics::project(c.series, c.options.project));
    return j;
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

void run_analyze(const AnalyzeCommandOptions& command, CommandOutput& output) {
    AnalyzeOptions given = command.analysis;
    given.traces = expand_trace_inputs(given.traces);
    check_output_paths(given.traces, {{"--csv", command.csv_path},
                                      {"--json", command.json_path},
                                      {"--html", command.html_path},
                                      {"--parts-csv", command.parts_csv_path},
                                      {"--root-causes-csv", command.root_causes_csv_path},
                                      {"--gains-csv", command.gains_csv_path},
                                      {"--gnuplot", command.gnuplot_path},
                                      {"--communication-csv", command.communication_csv_path}});
    check_analyze_options(given);
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
    Computed c = compute_analysis(given);
    const auto& [o, analyzed, series, omp, shown] = c;
    const auto& [model, model_description, table] = shown;
    const auto convention = series.convention;
    const TerminalStyle style = terminal_style(command.no_color, command.fraction);
    std::ostream& out = output.terminal();
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
    if (!output.print || !command.json_path.empty()) output.report = report_of(c);
    if (!command.json_path.empty()) write_text_file(command.json_path, report_text(output.report));
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
    if (!output.print) output.analysis = std::move(c.shown);
}

} // namespace

nlohmann::json analysis_report(const AnalyzeOptions& options) {
    AnalyzeOptions given = options;
    given.traces = expand_trace_inputs(given.traces);
    check_analyze_options(given);
    return report_of(compute_analysis(std::move(given)));
}

void add_analyze_command(CLI::App& app, CommandOutput& output) {
    auto command = std::make_shared<AnalyzeCommandOptions>();
    auto* options = &command->analysis;
    auto* cmd =
        app.add_subcommand("analyze", "Compute the POP metrics of one trace or a scaling series");
    cmd->add_option(
           "traces", options->traces,
           "Paraver traces (.prv or .prv.gz) or OTF2 archives (traces.otf2), one per run of "
           "the series, or folders of them (a Score-P experiment folder is one run; "
           "simulated *.sim.prv left out)")
        ->required();
    cmd->add_option("--csv", command->csv_path, "Write BSC modelfactors' CSV layout to FILE")
        ->check(output_file_name());
    cmd->add_option("--json", command->json_path,
                    "Write every number, with names and units, to FILE")
        ->check(output_file_name());
    cmd->add_option(
           "--html", command->html_path,
           "Write a self-contained HTML report (table, scaling plots, per-rank breakdown) to FILE")
        ->check(output_file_name());
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
        ->check(output_file_name());
    cmd->add_option("--root-causes-csv", command->root_causes_csv_path,
                    "With --root-causes: write its tables to FILE (one row per number: run, "
                    "table, timeline, pattern, ranks, call, call site, region, time, calls)")
        ->check(output_file_name());
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
        ->check(CLI::PositiveNumber)
        ->type_name("COUNTS");
    cmd->add_option("--gnuplot", command->gnuplot_path,
                    "With --project: write the fits and the measured points as a gnuplot script, "
                    "as modelfactors' modelfactors.gp")
        ->check(output_file_name());
    cmd->add_option("--gains-csv", command->gains_csv_path,
                    "With --gains: write its table to FILE (one row per run and fix)")
        ->check(output_file_name());
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
        ->check(output_file_name());
    cmd->add_option("--label", options->labels,
                    "Name the runs in the JSON report, one per trace in the order given "
                    "(comma-separated or repeated; default: each trace's file name)")
        ->type_name("NAME")
        ->delimiter(',');
    cmd->add_flag("--fraction", command->fraction,
                  "Show efficiencies as fractions (0-1) instead of %");
    cmd->add_flag("--no-color,--no-colour", command->no_color, "No colours, even on a terminal");
    cmd->callback([command, &output] { run_analyze(*command, output); });
}

} // namespace popsim::simulator

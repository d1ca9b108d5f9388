// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/analysis.hpp"

#include "metrics/ideal_replay.hpp"
#include "metrics/streaming_analysis.hpp"
#include "pipeline/console/diagnostics.hpp"
#include "pipeline/console/progress_bar.hpp"
#include "pipeline/load_program.hpp"
#include "pipeline/options/global_options.hpp"
#include "pipeline/options/network_options.hpp"
#include "pipeline/options/trace_inputs.hpp"
#include "pipeline/options/units.hpp"
#include "pipeline/processes/analysis_bytes.hpp"
#include "pipeline/processes/work_division.hpp"
#include "pipeline/whatif/code_whatif.hpp"
#include "replay/extrae_events.hpp"
#include "replay/focus/trace_window.hpp"
#include "replay/input/paraver_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>

namespace popsim::pipeline {

namespace {

metrics::IdealOptions ideal_options(const AnalyzeOptions& o) {
    metrics::IdealOptions options;
    options.program.eager_limit_bytes = parse_bytes(o.eager_limit);
    options.program.whole_trace = o.whole_trace;
    options.program.collectives = collective_sync(o.collectives);
    options.method = o.replay_method == "longest-path" ? metrics::ReplayMethod::longest_path
                                                       : metrics::ReplayMethod::events;
    return options;
}

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

/// Who reads each trace of a series under mpirun, and who helps.
struct TraceShare {
    std::vector<std::uint32_t> readers;
    std::vector<std::vector<std::uint32_t>> helpers;
};

/// Each trace read by one process (the largest first, to the process with the fewest bytes), or
/// all by the reporting one when the streaming pass does not compute what is asked (a focus,
/// root causes, ...); the processes left without a trace help read the traces they can divide. A
/// trace they cannot (a gzip stream) is noted on the reporting process.
TraceShare share_traces(const AnalyzeOptions& o, const WorkDivision& division) {
    const auto& paths = o.traces;
    std::vector<std::uint64_t> sizes;
    std::vector<bool> dividable;
    std::vector<std::string> why_not(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
        sizes.push_back(trace_bytes(paths[i]));
        dividable.push_back(dividable_trace(paths[i], &why_not[i]));
    }
    TraceShare share;
    share.readers.assign(paths.size(), 0);
    if (streamable(o)) share.readers = divide_by_weight(sizes, division.processes());
    for (std::size_t i = 0; i < paths.size(); ++i)
        if (read_by_reporting_process(paths[i])) share.readers[i] = 0;
    share.helpers = helpers_of(share.readers, sizes, dividable, division.processes());
    const auto could_help = helpers_of(share.readers, sizes, std::vector<bool>(paths.size(), true),
                                       division.processes());
    for (std::size_t i = 0; i < paths.size() && division.reports_here(); ++i)
        if (!dividable[i] && !could_help[i].empty() && !why_not[i].empty())
            print_note(fmt::format("{} is read by one process, the others cannot help: {}",
                                   paths[i], why_not[i]));
    return share;
}

/// The traces of the series among the processes of an MPI run (share_traces): this process reads
/// its traces, or helps another read one, then every result goes to the reporting process, which
/// ends with every trace's results in `a`.
template <class AnalyzeOne>
void analyze_divided(const AnalyzeOptions& o, WorkDivision& division,
                     std::vector<std::unique_ptr<replay::ReadHelpers>>& helpers,
                     const AnalyzeOne& analyze_one, Analyzed& a) {
    const auto& paths = o.traces;
    std::vector<bool> here(paths.size(), false);
    std::vector<std::exception_ptr> failures(paths.size());
    const auto gather = [&] {
        gather_items(
            division, here, failures, [&](std::size_t i) { return trace_to_bytes(a, i); },
            [&](std::size_t i, const std::string& bytes) { trace_from_bytes(bytes, a, i); });
    };
    if (!division.all_ready()) return gather(); // which reports the failure
    const TraceShare share = share_traces(o, division);
    const auto me = division.process();
    for (std::size_t i = 0; i < paths.size(); ++i) {
        here[i] = share.readers[i] == me;
        const auto& h = share.helpers[i];
        if (here[i] && !h.empty()) helpers[i] = division.read_helpers(h);
        if (std::find(h.begin(), h.end(), me) != h.end())
            replay::help_read(paths[i], *division.read_requests(share.readers[i]));
    }
    oneapi::tbb::parallel_for(std::size_t{0}, paths.size(), [&](std::size_t i) {
        if (!here[i]) return;
        try {
            analyze_one(i);
        } catch (...) {
            failures[i] = std::current_exception();
        }
    });
    for (auto& h : helpers) h.reset(); // released
    gather();
    for (std::size_t i = 0; i < paths.size(); ++i)
        a.passes[i].processes = static_cast<std::uint32_t>(1 + share.helpers[i].size());
}

Analyzed summarize_all(const AnalyzeOptions& o, WorkDivision* division) {
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
    // Under mpirun, the processes that help read each trace (none: read alone).
    std::vector<std::unique_ptr<replay::ReadHelpers>> helpers(paths.size());
    const auto analyze_one = [&](std::size_t i) {
        replay::ReadOptions read = read_options();
        read.helpers = helpers[i].get();
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
    };
    if (division == nullptr) {
        oneapi::tbb::parallel_for(std::size_t{0}, paths.size(), analyze_one);
    } else {
        analyze_divided(o, *division, helpers, analyze_one, a);
        if (!division->reports_here()) return a;
    }
    print_series_warnings(paths, a.warnings);
    return a;
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

} // namespace

bool is_mpi_model(const std::string& model) {
    return model == "mpi" || model == "additive";
}

replay::TraceLabels pcf_labels(const std::string& trace_path) {
    try {
        return replay::read_trace_labels(trace_path);
    } catch (const replay::TraceError&) {
        return {};
    }
}

/// Refuses options that do not go together, before any work.
void check_analyze_options(const AnalyzeOptions& o) {
    if (!o.labels.empty() && o.labels.size() != o.traces.size()) {
        throw std::invalid_argument(
            fmt::format("--label names {} runs for {} traces", o.labels.size(), o.traces.size()));
    }
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

Analysis analyze(AnalyzeOptions o, WorkDivision* division) {
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
    Analyzed analyzed = summarize_all(o, division);
    if (division != nullptr && !division->reports_here())
        return {.options = std::move(o),
                .analyzed = std::move(analyzed),
                .series = {},
                .omp = {},
                .model = {},
                .reports_here = false};
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
    return {.options = std::move(o),
            .analyzed = std::move(analyzed),
            .series = series,
            .omp = omp,
            .model = model};
}

} // namespace popsim::pipeline

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What `popsim analyze` computes, apart from how it is shown: each trace read once (streamed, or in
// memory when the analysis needs the trace), focused, summarised and replayed on the ideal
// network; the series' POP metrics; the model the table shows. The command, the library and the
// Python module show it (simulator/reports/analysis_report.hpp).
#include "metrics/communication_views.hpp"
#include "metrics/pop_openmp.hpp"
#include "metrics/root_causes.hpp"
#include "metrics/scaling.hpp"
#include "metrics/thread_breakdown.hpp"
#include "metrics/trace_summary.hpp"
#include "pipeline/options/focus.hpp"
#include "pipeline/trace_pass.hpp"
#include "pipeline/whatif/gains.hpp"

#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

/// analyze's options, as the command line gives them.
struct AnalyzeOptions {
    std::vector<std::string> traces; // files or folders of them
    std::string scaling = "auto";    // auto | strong | weak
    std::string convention = "modelfactors";
    std::string model = "auto";
    bool replay = true;
    bool whole_trace = false;
    std::string collectives = "dimemas";
    std::string replay_method = "events";
    bool in_memory = false;        // read each trace into memory rather than stream it
    bool root_causes = false;      // wait states, in memory (metrics/root_causes.hpp)
    bool communication = false;    // matrix, sizes, time profile, in memory (communication_views)
    bool gains = false;            // candidate fixes ranked, in memory (gains.hpp)
    std::string gains_config = {}; // --gains-config: a Dimemas .cfg modelling the traced network
    std::vector<std::uint32_t> project = {}; // --project: process counts to extrapolate to
    std::string code_regions =
        {}; // --code-regions SPEC: the event type naming the root causes' regions
    std::string eager_limit = "32k";
    FocusOptions focus = {};
    std::vector<std::string> labels = {}; // --label, one per trace
};

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

/// Everything analyze computes.
struct Analysis {
    AnalyzeOptions options; // with the folders expanded
    Analyzed analyzed;
    metrics::SeriesAnalysis series;
    metrics::OpenMpSeries omp;
    std::string model; // the table's model (--model, auto resolved): "mpi", "openmp", ...
    /// False on a process of an MPI run that analysed its traces for another to report.
    bool reports_here = true;
};

/// Refuses options that do not go together (std::invalid_argument), before any work; the folders
/// among the traces expanded (expand_trace_inputs).
void check_analyze_options(const AnalyzeOptions& options);

class WorkDivision;

/// Reads, summarises and replays the traces (folders expanded, options checked) and computes every
/// model's metrics. Bad traces are replay::TraceError. Warnings go to stderr unless --quiet.
/// `division`: the traces divided among the processes of an MPI run (work_division.hpp), each
/// analysed whole by one; every process calls analyze, and the reporting one computes the series.
Analysis analyze(AnalyzeOptions options, WorkDivision* division = nullptr);

/// Whether `model` (--model) is one of the MPI models, whose columns are the MPI series' traces;
/// the others list runs by threads and layout (metrics::OpenMpSeries).
bool is_mpi_model(const std::string& model);

/// The names in a trace's .pcf (an OTF2 archive's definitions), for its parallel regions, call
/// sites and code regions; none when it has no readable .pcf (the reader has said so).
replay::TraceLabels pcf_labels(const std::string& trace_path);

} // namespace popsim::pipeline

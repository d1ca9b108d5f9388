// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/analysis_report.hpp"

#include "metrics/pop_openmp.hpp"
#include "pipeline/console/diagnostics.hpp"
#include "pipeline/options/trace_inputs.hpp"
#include "simulator/reports/breakdown_report.hpp"
#include "simulator/reports/communication_report.hpp"
#include "simulator/reports/gains_report.hpp"
#include "simulator/reports/hybrid_tables.hpp"
#include "simulator/reports/json_report.hpp"
#include "simulator/reports/projection_report.hpp"
#include "simulator/reports/root_causes_report.hpp"
#include "simulator/reports/warning_output.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <span>

namespace popsim::simulator {

using pipeline::Analyzed;
using pipeline::FocusParts;
using pipeline::is_mpi_model;
using pipeline::pcf_labels;
using pipeline::print_warnings;
using pipeline::TraceFocus;

namespace {

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
                !metrics::outside_0_100(*row.values[i]))
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
                    if (!metrics::outside_0_100(v)) continue;
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

/// The series' JSON with each trace's own: its label, hybrid metrics, warnings, focus...
nlohmann::json series_json(const metrics::SeriesAnalysis& series, const Analyzed& analyzed,
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

} // namespace

AnalysisTable shown_table(pipeline::Analysis& a) {
    const auto& series = a.series;
    const auto& omp = a.omp;
    const auto& model = a.model;
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
                      a.analyzed);
    return shown;
}

// The scalings between the parts are left out: they are parts of one run, not runs at other scales.
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

nlohmann::json analysis_json(const pipeline::Analysis& c) {
    auto j = series_json(c.series, c.analyzed, run_labels(c.options.traces, c.options.labels));
    if (!c.options.project.empty())
        j["projection"] = projection_json(metrics::project(c.series, c.options.project));
    return j;
}

nlohmann::json analysis_report(const pipeline::AnalyzeOptions& options) {
    pipeline::AnalyzeOptions given = options;
    given.traces = pipeline::expand_trace_inputs(given.traces);
    pipeline::check_analyze_options(given);
    auto analysis = pipeline::analyze(std::move(given));
    (void)shown_table(analysis); // its warnings are the report's
    return analysis_json(analysis);
}

} // namespace popsim::simulator

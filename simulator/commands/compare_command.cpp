// SPDX-License-Identifier: BSD-3-Clause
// popsim compare: two results side by side, failing when an efficiency drops by more than allowed:
// the check a project runs in CI after each merge.
#include "metrics/ratio.hpp"
#include "pipeline/analysis.hpp"
#include "pipeline/console/diagnostics.hpp"
#include "replay/trace_error.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/reports/analysis_report.hpp"
#include "simulator/reports/json_report.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

namespace popsim::simulator {

// The commands run the pipeline's stages and show what they give.
using namespace pipeline;

namespace {

struct CompareOptions {
    std::string base, current;
    double max_drop = 0.02;
    std::vector<std::string> metrics{"parallel_efficiency", "load_balance",
                                     "communication_efficiency", "serialization_efficiency",
                                     "transfer_efficiency"};
    bool no_color = false;
};

/// The sections of a trace's report where efficiencies are found, in the order they are looked
/// up: the MPI model, the scalings, then the OpenMP and hybrid models.
constexpr const char* k_sections[] = {"mpi_multiplicative", "scaling", "mpi_additive"};

/// A result: an `analyze --json` report, or the traces it analyses (files or folders).
nlohmann::json load_result(const std::string& input) {
    if (!input.ends_with(".json")) return analysis_report({.traces = {input}});
    std::ifstream in(input);
    if (!in) throw replay::TraceError(input, 0, "cannot open");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) { // a syntax error, a number out of range
        throw replay::TraceError(input, 0, fmt::format("not JSON popsim can read: {}", e.what()));
    }
    if (!j.is_object() || !j.contains("traces") || !j["traces"].is_array() || j["traces"].empty())
        throw replay::TraceError(input, 0, "not a report of popsim analyze --json (no traces)");
    if (j.contains("schema") && j["schema"] != k_json_schema) {
        throw replay::TraceError(input, 0,
                                 fmt::format("a report of schema {}: this popsim reads {}",
                                             j["schema"].dump(), k_json_schema));
    }
    return j;
}

/// Where `metric` is in a trace's report (its sections, then the hybrid models), or nullptr.
const nlohmann::json* find_metric(const nlohmann::json& trace, const std::string& metric) {
    for (const char* section : k_sections)
        if (trace.contains(section) && trace[section].contains(metric))
            return &trace[section][metric];
    if (trace.contains("hybrid"))
        for (const auto& [model, values] : trace["hybrid"].items())
            if (values.is_object() && values.contains(metric)) return &values[metric];
    return nullptr;
}

/// Its value; none when undefined (null in the report). Anything else is refused: a gate that
/// read it as undefined would pass.
std::optional<double> value_of(const nlohmann::json* v, const std::string& input,
                               const std::string& metric) {
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number())
        throw replay::TraceError(
            input, 0,
            fmt::format("{} is {}, not a number: not a report popsim wrote", metric, v->dump()));
    return v->get<double>();
}

/// "parallel_efficiency" -> "Parallel efficiency" (British spelling, as the other reports).
std::string label_of(std::string metric) {
    for (auto& c : metric)
        if (c == '_') c = ' ';
    if (const auto at = metric.find("serialization"); at != std::string::npos)
        metric.replace(at, 13, "serialisation");
    if (!metric.empty()) metric[0] = static_cast<char>(std::toupper(metric[0]));
    return metric;
}

/// The run's label (analyze --label), else its file name.
std::string file_name(const nlohmann::json& trace) {
    if (trace.contains("label") && trace["label"].is_string()) return trace["label"];
    const std::string path = trace.value("path", std::string("?"));
    return std::filesystem::path(path).filename().string();
}

/// "4 processes" or "2x4 (2 processes of 4 threads)": what a run's layout is called.
std::string layout_of(const nlohmann::json& trace) {
    const auto processes = trace.value("processes", 0), threads = trace.value("threads", 0);
    if (threads <= processes)
        return fmt::format("{} process{}", processes, processes == 1 ? "" : "es");
    return fmt::format("{} processes of {} threads", processes, threads / std::max(processes, 1));
}

/// Which base run each current run is compared with: the one of the same label (analyze --label,
/// else the file name) when every current label is a base one, else the one of the same layout
/// (processes and threads). Never by position: a series given in another order, or a run that
/// the other result lacks, would compare different runs and pass or fail for that alone.
std::vector<std::size_t> pair_runs(const nlohmann::json& base, const nlohmann::json& current,
                                   const CompareOptions& o) {
    // Each key's run; traces.size() for a key that several runs share.
    auto index_by = [](const nlohmann::json& traces, auto key) {
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < traces.size(); ++i)
            if (!index.emplace(key(traces[i]), i).second) index[key(traces[i])] = traces.size();
        return index;
    };
    const auto base_labels = index_by(base, file_name);
    const bool by_label = std::ranges::all_of(current, [&](const nlohmann::json& t) {
        const auto at = base_labels.find(file_name(t));
        return at != base_labels.end() && at->second < base.size();
    });
    const auto base_layouts = index_by(base, layout_of);
    std::vector<std::string> layouts;
    for (const auto& b : base) layouts.push_back(layout_of(b));
    std::vector<std::size_t> partner;
    for (const auto& c : current) {
        if (by_label) {
            const auto b = base_labels.at(file_name(c));
            if (layout_of(base[b]) != layout_of(c)) {
                throw replay::TraceError(
                    o.current, 0,
                    fmt::format("run {} has {} where the base's run {} has {}: a comparison of "
                                "different runs (compare runs of one layout; analyze a scaling "
                                "series)",
                                file_name(c), layout_of(c), file_name(base[b]),
                                layout_of(base[b])));
            }
            partner.push_back(b);
            continue;
        }
        const auto at = base_layouts.find(layout_of(c));
        if (at == base_layouts.end()) {
            throw replay::TraceError(
                o.current, 0,
                fmt::format("run {} has {}, and no run of {} has ({}): a comparison of different "
                            "runs (compare runs of one layout; analyze a scaling series)",
                            file_name(c), layout_of(c), o.base, fmt::join(layouts, ", ")));
        }
        if (at->second == base.size()) {
            throw replay::TraceError(
                o.base, 0,
                fmt::format("several runs have {} and their labels differ from {}'s: name the "
                            "runs alike with analyze --label",
                            layout_of(c), o.current));
        }
        partner.push_back(at->second);
    }
    for (std::size_t i = 0; i < partner.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (partner[i] == partner[j])
                throw replay::TraceError(
                    o.current, 0,
                    fmt::format("runs {} and {} both pair with {}'s run {}: name the runs alike "
                                "with analyze --label",
                                file_name(current[j]), file_name(current[i]), o.base,
                                file_name(base[partner[i]])));
    if (partner.size() != base.size()) {
        throw replay::TraceError(o.current, 0,
                                 fmt::format("{} runs against {} in {}: each run is compared with "
                                             "its own, and some have none",
                                             current.size(), base.size(), o.base));
    }
    return partner;
}

/// An efficiency outside 0-100 % that its report did not warn about (analyze warns of each it
/// computes: efficiency-out-of-range), said before it is compared: an edited or corrupt report
/// would otherwise pass as one popsim wrote. Scalabilities and the global efficiency may exceed
/// 100 % (docs/metrics.md); nothing is below 0.
void check_range(const nlohmann::json& report, const nlohmann::json& trace,
                 const std::string& input, const std::string& metric, double value) {
    const bool may_exceed = metric.ends_with("scalability") || metric == "global_efficiency";
    if (value < 0)
        throw replay::TraceError(input, 0,
                                 fmt::format("{} of {} is {}: below 0, not a report popsim wrote",
                                             metric, file_name(trace), value));
    if (!metrics::outside_0_100(value) || may_exceed) return; // analyze's own test for its warning
    for (const auto* warnings : {&trace, &report})
        if (warnings->contains("warnings") && (*warnings)["warnings"].is_array())
            for (const auto& w : (*warnings)["warnings"])
                if (w.is_object() && w.value("kind", "") == "efficiency-out-of-range") return;
    pipeline::print_warning(fmt::format("{}: {} of {} is {:.2f}%, outside 0-100 %, and the report "
                                        "does not say why (an edited or corrupt report?)",
                                        input, metric, file_name(trace), 100 * value));
}

void run_compare(const CompareOptions& o) {
    if (!(o.max_drop >= 0 && o.max_drop <= 1))
        throw std::invalid_argument(
            fmt::format("--max-drop {} is not between 0 and 1", o.max_drop));
    const auto base = load_result(o.base), current = load_result(o.current);
    const auto& base_traces = base["traces"];
    const auto& current_traces = current["traces"];
    const auto partner = pair_runs(base_traces, current_traces, o);
    for (const auto& metric : o.metrics) {
        if (find_metric(base_traces[0], metric) == nullptr) {
            throw std::invalid_argument(
                fmt::format("--metrics: no efficiency named {} in {}", metric, o.base));
        }
    }
    for (std::size_t i = 0; i < current_traces.size(); ++i) // refused before anything is printed
        for (const auto& metric : o.metrics) {
            const auto& b = base_traces[partner[i]];
            if (const auto x = value_of(find_metric(b, metric), o.base, metric))
                check_range(base, b, o.base, metric, *x);
            if (const auto y = value_of(find_metric(current_traces[i], metric), o.current, metric))
                check_range(current, current_traces[i], o.current, metric, *y);
        }
    const TerminalStyle style = terminal_style(o.no_color, false);
    std::vector<std::string> dropped;
    std::size_t label_width = 6;
    for (const auto& m : o.metrics) label_width = std::max(label_width, label_of(m).size());
    for (std::size_t i = 0; i < current_traces.size(); ++i) {
        const auto& b = base_traces[partner[i]];
        const auto& c = current_traces[i];
        std::cout << wrap_text(
            fmt::format("{}{} -> {}", i > 0 ? "\n" : "", file_name(b), file_name(c)), style.width);
        std::cout << fmt::format("{:<{}} | {:>8} | {:>8} | {:>9}\n", "metric", label_width, "base",
                                 "current", "change");
        for (const auto& metric : o.metrics) {
            const auto x = value_of(find_metric(b, metric), o.base, metric);
            const auto y = value_of(find_metric(c, metric), o.current, metric);
            const std::string base_text = x ? efficiency_text(*x, style) : "-";
            const std::string current_text = y ? efficiency_text(*y, style) : "-";
            std::string change = "-";
            std::optional<double> mark; // the POP colours: red for a drop beyond the limit
            if (x && y) {
                const double delta = *y - *x;
                change = fmt::format("{:+.2f} pp", 100 * delta);
                if (-delta > o.max_drop) {
                    mark = 0.0;
                    dropped.push_back(fmt::format("{} of {} dropped by {:.2f} points ({:.2f}% -> "
                                                  "{:.2f}%)",
                                                  label_of(metric), file_name(c), -100 * delta,
                                                  100 * *x, 100 * *y));
                } else if (delta > o.max_drop) {
                    mark = 1.0;
                }
            }
            std::cout << fmt::format("{:<{}} | {:>8} | {:>8} | ", label_of(metric), label_width,
                                     base_text, current_text)
                      << pop_colored(fmt::format("{:>9}", change), mark, style) << '\n';
        }
    }
    if (!dropped.empty()) {
        throw RegressionFound(
            fmt::format("{} (more than --max-drop {:g})", fmt::join(dropped, "; "), o.max_drop));
    }
}

} // namespace

void add_compare_command(CLI::App& app) {
    auto options = std::make_shared<CompareOptions>();
    auto* cmd = app.add_subcommand(
        "compare",
        "Compare two results and fail (exit 4) when an efficiency drops by more than --max-drop");
    cmd->add_option("base", options->base,
                    "The reference: a report of analyze --json, or a trace (or folder) to analyse")
        ->required();
    cmd->add_option("current", options->current, "The result to check, in the same forms")
        ->required();
    cmd->add_option("--max-drop", options->max_drop,
                    "The largest drop allowed, as a fraction of 1 (0.02 = 2 percentage points)")
        ->type_name("FRACTION")
        ->capture_default_str();
    cmd->add_option("--metrics", options->metrics,
                    "The efficiencies to check (JSON names: parallel_efficiency, load_balance, "
                    "global_efficiency, omp_region_efficiency, ...)")
        ->type_name("NAME")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_flag("--no-color,--no-colour", options->no_color, "No colours, even on a terminal");
    cmd->callback([options] { run_compare(*options); });
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// analyze between its options and the pipeline, in steps the command and the library
// (api/popsim.cpp) both take: the options parsed by their CLI11 definitions and checked, the
// pipeline run (pipeline::analyze), its results shown.
#include "pipeline/analysis.hpp"
#include "simulator/reports/analysis_report.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace popsim::simulator {

/// analyze's options: what to compute, and where and how to show it.
struct AnalyzeCommandOptions {
    pipeline::AnalyzeOptions analysis;
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

/// The traces argument and every option of analyze, on `command`.
void add_analyze_options(CLI::App* command, AnalyzeCommandOptions& options);

/// Expands the folders among the traces and checks what needs no trace: the options together,
/// and that no report overwrites an input. Returns whether the terminal report is printed (not
/// when a report goes to standard output in its place).
bool check_analyze_command(AnalyzeCommandOptions& options);

/// What analyze gives besides what it prints and writes.
struct ShownAnalysis {
    AnalysisTable table;   // the chosen model's table
    nlohmann::json report; // what --json writes; null unless asked for or written
};

/// Prints the terminal report of `analysis` on standard output when `print`, writes the files the
/// options name.
ShownAnalysis show_analysis(pipeline::Analysis& analysis, const AnalyzeCommandOptions& options,
                            bool print, bool with_report);

} // namespace popsim::simulator

#include "metrics/ideal_replay.hpp"
#include "popsim/version.hpp"
#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/paraver_reader.hpp"
#include "simulator/commands.hpp"
#include "simulator/html_report.hpp"
#include "simulator/json_report.hpp"
#include "simulator/load_program.hpp"
#include "simulator/modelfactors_csv.hpp"
#include "simulator/network_options.hpp"
#include "simulator/output_paths.hpp"
#include "simulator/progress_bar.hpp"
#include "simulator/warning_output.hpp"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <oneapi/tbb/parallel_for.h>

namespace popsim::simulator {

namespace {

struct WhatifOptions {
    std::string trace;
    FocusOptions window;    // --from/--to
    NetworkOptions network; // values may be comma-separated lists
    std::string csv_path, json_path, html_path;
};

struct Outcome {
    NetworkOptions network; // single values
    replay::ReplayResult result;
};

std::vector<std::string> split_list(const std::optional<std::string>& text) {
    if (!text) return {""};
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = text->find(',', start);
        out.push_back(text->substr(start, comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

/// Every combination of the swept values, in the order the lists are written.
std::vector<NetworkOptions> configurations(const NetworkOptions& sweep) {
    // Each configuration is a whole replay: a sweep of millions would run for days (and hold
    // every row), so the count is checked before anything is built.
    constexpr std::uint64_t k_max_configurations = 100'000;
    std::uint64_t count = 1;
    for (auto field : {&NetworkOptions::latency, &NetworkOptions::bandwidth, &NetworkOptions::buses,
                       &NetworkOptions::tasks_per_node, &NetworkOptions::cpu_ratio}) {
        count *= split_list(sweep.*field).size();
        if (count > k_max_configurations) {
            throw std::invalid_argument(
                fmt::format("the sweep has more than {} configurations (each is a whole replay): "
                            "sweep fewer values at once",
                            k_max_configurations));
        }
    }
    std::vector<NetworkOptions> out{sweep};
    auto expand = [&](std::optional<std::string> NetworkOptions::*field) {
        std::vector<NetworkOptions> next;
        for (const auto& base : out)
            for (const auto& value : split_list(sweep.*field)) {
                next.push_back(base);
                if (!value.empty()) next.back().*field = value;
            }
        out = std::move(next);
    };
    for (auto field : {&NetworkOptions::latency, &NetworkOptions::bandwidth, &NetworkOptions::buses,
                       &NetworkOptions::tasks_per_node, &NetworkOptions::cpu_ratio})
        expand(field);
    for (auto& o : out) o.model = "dimemas";
    return out;
}

struct Row {
    std::string network;
    Time predicted;
    double speedup, parallel, load_balance, communication, transfer;
};

/// The row of one configuration; per task "useful" is its first thread's time outside MPI.
Row row_of(const Outcome& o, const replay::ReplayProgram& p, Time real_runtime,
           Time ideal_runtime) {
    double sum = 0, max = 0;
    for (std::uint32_t t = 0; t < p.tasks; ++t) {
        const auto useful = static_cast<double>(o.result.task(p, t).outside_mpi());
        sum += useful;
        max = std::max(max, useful);
    }
    const double T = static_cast<double>(o.result.runtime),
                 avg = p.tasks == 0 ? 0 : sum / static_cast<double>(p.tasks);
    return {describe_network(o.network, p.tasks),
            o.result.runtime,
            T == 0 ? 0 : static_cast<double>(real_runtime) / T,
            T == 0 ? 0 : avg / T,
            max == 0 ? 1 : avg / max,
            T == 0 ? 0 : max / T,
            T == 0 ? 0 : static_cast<double>(ideal_runtime) / T};
}

void run_whatif(const WhatifOptions& o) {
    check_output_paths({o.trace},
                       {{"--csv", o.csv_path}, {"--json", o.json_path}, {"--html", o.html_path}});
    const auto swept = configurations(o.network); // the sweep's size, before reading the trace
    ProgressBar progress({{.label = "reading", .total = input_file_bytes({o.trace})},
                          {.label = "simulating", .unit = ProgressBar::Unit::operations}});
    auto loaded =
        load_program(o.trace, program_options(o.network), o.window, progress.running_total(0));
    const auto& program = loaded.program;
    progress.add_total(1, (swept.size() + 1) * program.op_count()); // the ideal run and the sweep
    const replay::EngineOptions engine{
        .timeline = false, .on_progress = [&](std::uint64_t ops) { progress.add(1, ops); }};
    const Time real_runtime =
        loaded.real_runtime.value_or(0); // unknown for .dim input: speed-ups are then 0
    replay::network::IdealNetwork ideal;
    // The same cycles break on every network: reported once, from the ideal run.
    const Time ideal_runtime = replay_reporting(loaded, ideal, engine).runtime;
    std::vector<Outcome> outcomes;
    for (const auto& c : swept) outcomes.push_back({c, {}});
    for (auto& out : outcomes)
        make_network(out.network, program.tasks); // validate every value before the runs
    oneapi::tbb::parallel_for(std::size_t{0}, outcomes.size(), [&](std::size_t i) {
        const auto network = make_network(outcomes[i].network, program.tasks);
        outcomes[i].result = replay_on(loaded, *network, engine, nullptr);
    });
    std::vector<Row> rows;
    for (const auto& out : outcomes)
        rows.push_back(row_of(out, program, real_runtime, ideal_runtime));
    std::cout << fmt::format("{}: real runtime {:.6f} s, ideal network {:.6f} s\n\n", o.trace,
                             static_cast<double>(real_runtime) * 1e-9,
                             static_cast<double>(ideal_runtime) * 1e-9);
    std::cout << fmt::format("{:>14} {:>9} {:>9} {:>9} {:>9} {:>9}  network\n", "predicted (s)",
                             "speed-up", "PE", "LB", "CommE", "TE");
    for (const auto& r : rows) {
        std::cout << fmt::format("{:>14.6f} {:>9.4f} {:>8.2f}% {:>8.2f}% {:>8.2f}% {:>8.2f}%  {}\n",
                                 static_cast<double>(r.predicted) * 1e-9, r.speedup,
                                 100 * r.parallel, 100 * r.load_balance, 100 * r.communication,
                                 100 * r.transfer, r.network);
    }
    if (!o.csv_path.empty()) {
        std::string csv = "network;predicted_runtime_ns;speedup;parallel_efficiency;load_balance;"
                          "communication_efficiency;transfer_efficiency\n";
        for (const auto& r : rows)
            csv += fmt::format("{};{};{:.6f};{:.6f};{:.6f};{:.6f};{:.6f}\n", r.network, r.predicted,
                               r.speedup, r.parallel, r.load_balance, r.communication, r.transfer);
        write_text_file(o.csv_path, csv);
    }
    if (!o.html_path.empty()) {
        std::vector<WhatifPoint> points;
        for (const auto& r : rows)
            points.push_back({r.network, static_cast<double>(r.predicted) * 1e-9});
        write_text_file(o.html_path,
                        render_whatif_html(o.trace, static_cast<double>(real_runtime) * 1e-9,
                                           static_cast<double>(ideal_runtime) * 1e-9, points));
    }
    if (!o.json_path.empty()) {
        nlohmann::json j{{"popsim_version", k_version},
                         {"trace", o.trace},
                         {"real_runtime_ns", real_runtime},
                         {"ideal_runtime_ns", ideal_runtime},
                         {"warnings", warnings_json(loaded.warnings)}};
        j["configurations"] = nlohmann::json::array();
        for (const auto& r : rows)
            j["configurations"].push_back({{"network", r.network},
                                           {"predicted_runtime_ns", r.predicted},
                                           {"speedup", r.speedup},
                                           {"parallel_efficiency", r.parallel},
                                           {"load_balance", r.load_balance},
                                           {"communication_efficiency", r.communication},
                                           {"transfer_efficiency", r.transfer}});
        write_text_file(o.json_path, json_text(j));
    }
}

} // namespace

void add_whatif_command(CLI::App& app) {
    auto options = std::make_shared<WhatifOptions>();
    auto* cmd = app.add_subcommand(
        "whatif",
        "Predict the runtime on many networks: the cross product of the swept parameters");
    add_trace_argument(cmd, options->trace,
                       "Paraver trace (.prv or .prv.gz) or Dimemas trace (.dim)");
    add_network_options(cmd, options->network, false);
    add_window_options(cmd, options->window);
    cmd->add_option("--csv", options->csv_path, "Write one row per configuration to FILE");
    cmd->add_option("--json", options->json_path,
                    "Write every configuration's predictions to FILE");
    cmd->add_option("--html", options->html_path,
                    "Write an HTML report with a chart of the predicted runtimes to FILE");
    cmd->callback([options] { run_whatif(*options); });
}

} // namespace popsim::simulator

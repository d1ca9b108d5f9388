#include "metrics/ideal_replay.hpp"
#include "metrics/trace_summary.hpp"
#include "popsim/version.hpp"
#include "replay/dependency_graph.hpp"
#include "replay/engine/engine.hpp"
#include "replay/paraver_reader.hpp"
#include "replay/simulated_trace.hpp"
#include "simulator/commands.hpp"
#include "simulator/modelfactors_csv.hpp"
#include "simulator/network_options.hpp"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace popsim::simulator {

namespace {

struct SimulateOptions {
    std::string trace;
    NetworkOptions network;
    std::string output;
    std::string json_path;
};

nlohmann::json result_json(const SimulateOptions& o, const replay::Trace& trace, const replay::ReplayResult& r) {
    nlohmann::json j;
    j["popsim_version"] = k_version;
    j["trace"] = o.trace;
    j["network"] = describe_network(o.network);
    j["real_runtime_ns"] = trace.end_time();
    j["predicted_runtime_ns"] = r.runtime;
    j["predicted_max_useful_ns"] = r.max_useful();
    j["tasks"] = nlohmann::json::array();
    for (std::size_t t = 0; t < r.tasks.size(); ++t) {
        const auto& x = r.tasks[t];
        j["tasks"].push_back({{"task", t + 1}, {"end_ns", x.end}, {"useful_ns", x.useful}, {"mpi_ns", x.mpi()},
                              {"waiting_ns", x.waiting}, {"transfer_ns", x.transfer}});
    }
    return j;
}

void run_simulate(const SimulateOptions& o) {
    const replay::Trace trace = replay::read_paraver(o.trace);
    for (const auto& w : trace.warnings) std::cerr << "popsim: warning: " << w << "\n";
    const auto network = make_network(o.network);
    const auto program = replay::build_replay_program(trace, program_options(o.network));
    for (const auto& w : program.warnings) std::cerr << "popsim: warning: " << w << "\n";
    const replay::ReplayResult result = replay::replay_events(program, *network);
    std::cout << fmt::format("trace              {}\nnetwork            {}\nreal runtime       {:.6f} s\npredicted runtime  {:.6f} s\n"
                             "speed-up           {:.4f}\n",
                             o.trace, describe_network(o.network), static_cast<double>(trace.end_time()) * 1e-9,
                             static_cast<double>(result.runtime) * 1e-9,
                             result.runtime == 0 ? 0.0 : static_cast<double>(trace.end_time()) / static_cast<double>(result.runtime));
    if (!o.output.empty()) {
        replay::write_simulated_paraver(trace, program, result, o.output);
        std::cerr << "popsim: wrote " << o.output << " and its .pcf/.row\n";
    }
    if (!o.json_path.empty()) write_text_file(o.json_path, result_json(o, trace, result).dump(2) + "\n");
}

} // namespace

void add_simulate_command(CLI::App& app) {
    auto options = std::make_shared<SimulateOptions>();
    auto* cmd = app.add_subcommand("simulate", "Replay a trace on a network model and write the simulated timeline");
    cmd->add_option("trace", options->trace, "Paraver trace (.prv or .prv.gz)")->required()->check(CLI::ExistingFile);
    add_network_options(cmd, options->network, true);
    cmd->add_option("-o,--output", options->output, "Write the simulated timeline as a Paraver trace (.prv, with .pcf/.row)");
    cmd->add_option("--json", options->json_path, "Write the predicted times (predicted_runtime_ns, per task) to FILE");
    cmd->callback([options] { run_simulate(*options); });
}

} // namespace popsim::simulator

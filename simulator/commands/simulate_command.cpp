// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/commands/simulate_command.hpp"
#include "pipeline/console/diagnostics.hpp"
#include "pipeline/load_program.hpp"
#include "pipeline/options/network_options.hpp"
#include "pipeline/simulation.hpp"
#include "replay/input/dimemas_trace.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/input/paraver_record_stream.hpp"
#include "replay/output/otf2_writer.hpp"
#include "replay/output/paraver_writer.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/output_paths.hpp"
#include "simulator/reports/json_report.hpp"
#include "simulator/reports/modelfactors_csv.hpp"
#include "simulator/reports/warning_output.hpp"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace popsim::simulator {

// The commands run the pipeline's stages and show what they give.
using namespace pipeline;

namespace {

nlohmann::json result_json(const SimulateOptions& o, const Simulation& s) {
    const auto& loaded = *s.loaded;
    const auto& r = s.result;
    const auto& p = loaded.program;
    const auto& real_runtime = loaded.real_runtime;
    nlohmann::json j = report_header("simulate");
    j["trace"] = o.trace;
    if (!loaded.window.empty()) j["focus"] = loaded.window;
    j["network"] = describe_network(o.network, p.tasks);
    j["real_runtime_ns"] = real_runtime ? nlohmann::json(*real_runtime) : nlohmann::json(nullptr);
    j["predicted_runtime_ns"] = r.runtime;
    j["predicted_max_useful_ns"] = r.max_useful(p);
    j["warnings"] = warnings_json(loaded.warnings);
    j["program_pass"] = pass_json(loaded.pass);
    j["threads"] = nlohmann::json::array(); // the replay threads: each task's first thread, then
                                            // its OpenMP workers
    for (replay::ReplayThread t = 0; t < p.thread_count(); ++t) {
        const auto& x = r.threads[t];
        const std::uint32_t task = p.thread_task[t];
        j["threads"].push_back({{"task", task + 1},
                                {"thread", t - p.master_thread(task) + 1},
                                {"end_ns", x.end},
                                {"useful_ns", x.useful},
                                {"fork_join_ns", x.fork_join},
                                {"mpi_ns", x.mpi()},
                                {"waiting_ns", x.waiting},
                                {"transfer_ns", x.transfer},
                                {"cpu_wait_ns", x.cpu_wait}});
    }
    j["ideal_runtime_ns"] = s.ideal_runtime;
    add_efficiencies_json(s.efficiencies, j["efficiencies"]);
    if (!s.code->empty()) {
        j["code"] = s.code->json(s.change.factors);
        j["balanced"] = s.change.balanced;
    }
    return j;
}

/// The simulated run, as the terminal shows it.
void print_simulation(const SimulateOptions& o, const Simulation& s, std::ostream& out) {
    const auto& loaded = *s.loaded;
    const auto real = loaded.real_runtime;
    const auto& result = s.result;
    out << fmt::format("trace              {}\n", o.trace);
    if (!loaded.window.empty()) out << fmt::format("focus              {}\n", loaded.window);
    out << fmt::format("network            {}\n",
                       describe_network(o.network, loaded.program.tasks));
    if (!s.code->empty()) out << fmt::format("code               {}\n", s.code->describe(s.change));
    if (real)
        out << fmt::format("real runtime       {:.6f} s\n", static_cast<double>(*real) * 1e-9);
    out << fmt::format("predicted runtime  {:.6f} s\n", static_cast<double>(result.runtime) * 1e-9);
    if (real && result.runtime > 0)
        out << fmt::format("speed-up           {:.4f}\n",
                           static_cast<double>(*real) / static_cast<double>(result.runtime));
    out << fmt::format("ideal network      {:.6f} s (the same CPUs and code)\n",
                       static_cast<double>(s.ideal_runtime) * 1e-9);
    auto percent = [](double v) {
        return std::isfinite(v) ? fmt::format("{:.2f}%", 100 * v) : std::string("-");
    };
    out << "efficiencies      ";
    for (const auto& f : k_efficiency_fields)
        out << fmt::format("{} {} {}", &f == &k_efficiency_fields.front() ? "" : ",", f.name,
                           percent(s.efficiencies.*f.value));
    out << '\n';
}

} // namespace

bool check_simulate_command(const SimulateCommandOptions& command) {
    const auto& o = command.simulation;
    const std::vector<OutputPath> outputs{{"-o", o.output, true}, {"--json", command.json_path}};
    return check_report_outputs({o.trace}, outputs, config_files(o.network.config));
}

nlohmann::json show_simulation(Simulation& s, const SimulateCommandOptions& command, bool print) {
    const auto& o = command.simulation;
    replay::WarningLog beyond;
    add_out_of_range_warning(out_of_range(s.efficiencies), beyond);
    if (const auto names = undefined(s.efficiencies); !names.empty())
        add_undefined_warning({fmt::format("{}", fmt::join(names, ", "))}, beyond);
    print_warnings(o.trace, beyond);
    s.loaded->warnings.merge(beyond);
    print_simulation(o, s, terminal(print));
    if (!o.output.empty() && print)
        std::cerr << "popsim: wrote " << o.output
                  << (replay::is_otf2_anchor(o.output) ? "\n" : " and its .pcf/.row\n");
    auto report = result_json(o, s);
    if (!command.json_path.empty()) write_text_file(command.json_path, report_text(report));
    return report;
}

void add_simulate_options(CLI::App* cmd, SimulateCommandOptions& command_options) {
    auto* command = &command_options;
    auto* options = &command->simulation;
    add_trace_argument(
        cmd, options->trace,
        "Paraver trace (.prv or .prv.gz), OTF2 archive (traces.otf2) or Dimemas trace (.dim)");
    add_network_options(cmd, options->network, true);
    add_speedup_option(cmd, options->speedups, false);
    add_balance_option(cmd, options->balance, false);
    add_window_options(cmd, options->window);
    cmd->add_option("-o,--output", options->output,
                    "Write the simulated timeline as a Paraver trace (.prv, with .pcf/.row) or "
                    "as an OTF2 archive (.otf2)")
        ->check(output_file_name());
    cmd->add_option("--json", command->json_path,
                    "Write the predicted times (predicted_runtime_ns, per task) and "
                    "efficiencies to FILE")
        ->transform(report_file_name());
    add_in_memory_option(cmd, options->in_memory);
}

void add_simulate_command(CLI::App& app, pipeline::WorkDivision* division) {
    auto command = std::make_shared<SimulateCommandOptions>();
    auto* cmd = app.add_subcommand(
        "simulate", "Replay a trace on a network model and write the simulated timeline");
    add_simulate_options(cmd, *command);
    cmd->callback([command, division] {
        const bool print = check_simulate_command(*command);
        auto simulation = pipeline::simulate(command->simulation, division);
        if (simulation.reports_here) // else the first process of the MPI run shows it
            show_simulation(simulation, *command, print);
    });
}

} // namespace popsim::simulator

namespace popsim::simulator {

namespace {

/// The records of one application of a trace, as application 1 (an OTF2 archive holds one).
class ApplicationRecords final : public replay::RecordSink {
  public:
    ApplicationRecords(std::uint32_t application, replay::RecordSink& sink)
        : application_(application), sink_(sink) {}
    void state(const replay::StateRecord& r) override {
        if (r.owner.application != application_) return;
        auto kept = r;
        kept.owner.application = 1;
        sink_.state(kept);
    }
    void event(const replay::RecordOwner& owner, Time time,
               std::span<const replay::EventPair> pairs) override {
        if (owner.application != application_) return;
        auto kept = owner;
        kept.application = 1;
        sink_.event(kept, time, pairs);
    }
    void comm(const replay::CommRecord& r) override {
        if (r.sender.application != application_ || r.receiver.application != application_) return;
        auto kept = r;
        kept.sender.application = kept.receiver.application = 1;
        sink_.comm(kept);
    }

  private:
    std::uint32_t application_;
    replay::RecordSink& sink_;
};

/// Writes the Paraver trace at `path` as the OTF2 archive `anchor`: read once as every command
/// reads it (its errors and warnings), then every record of the analysed application copied.
void convert_to_otf2(const std::string& path, const std::string& anchor) {
    if (replay::is_otf2_anchor(path))
        throw replay::TraceError(path, 0, "is an OTF2 archive already");
    auto [header, labels, application] = [&] {
        replay::Trace trace = replay::read_paraver(path);
        print_warnings(path, trace.warnings);
        for (auto& c : trace.header.communicators) c.application = 1;
        return std::tuple(std::move(trace.header), std::move(trace.labels), trace.application);
    }();
    replay::Otf2Writer writer(anchor, header, labels);
    ApplicationRecords records(application, writer);
    replay::stream_paraver_records(
        path, [&](const replay::ParaverPreamble&) -> replay::RecordSink& { return records; });
    const auto counts = writer.close();
    std::cerr << fmt::format("popsim: wrote {} ({} locations, {} events, {} messages)\n", anchor,
                             counts.locations, counts.events, counts.messages);
    if (counts.messages_left_out > 0)
        std::cerr << fmt::format("popsim: warning: {} communication records are in no call that "
                                 "sends or receives them, and are left out of the archive\n",
                                 counts.messages_left_out);
    if (counts.unnested_regions > 0)
        std::cerr << fmt::format("popsim: warning: {} states or functions cross an MPI call's "
                                 "edge: the archive's regions do not nest there\n",
                                 counts.unnested_regions);
}

/// Writes the OTF2 archive `anchor` as the Paraver trace `prv` (with its .pcf and .row): the
/// records popsim reads it as, named by its definitions.
void convert_to_paraver(const std::string& anchor, const std::string& prv) {
    if (anchor.ends_with(".dim"))
        throw replay::TraceError(anchor, 0,
                                 "a Dimemas trace: convert reads OTF2 archives (simulate replays "
                                 "a .dim, and its -o writes the run as a Paraver trace)");
    if (!replay::is_otf2_anchor(anchor))
        throw replay::TraceError(anchor, 0,
                                 "is a Paraver trace already (popsim cut writes a window of it)");
    replay::Otf2Archive archive(anchor);
    replay::WarningLog warnings;
    replay::ParaverWriter writer(prv, archive.header(),
                                 fmt::format("# converted by popsim from {}\n", anchor));
    archive.feed(writer, warnings);
    print_warnings(anchor, warnings);
    writer.close();
    const std::string base = replay::trace_base_name(prv);
    replay::write_pcf_with_labels(base + ".pcf", archive.labels(),
                                  replay::pcf_openmp_for(archive.header()));
    replay::write_row(base + ".row", archive.header());
    std::cerr << fmt::format("popsim: wrote {} and its .pcf/.row\n", prv);
}

} // namespace

void add_convert_command(CLI::App& app) {
    auto trace = std::make_shared<std::string>();
    auto output = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand(
        "convert", "Write a Paraver trace as a Dimemas trace (.dim, as prv2dim does) or as an OTF2 "
                   "archive (.otf2, for Vampir, Scalasca and other OTF2 tools); an OTF2 archive "
                   "as a Paraver trace (.prv)");
    add_trace_argument(cmd, *trace);
    cmd->add_option("output", *output,
                    "Dimemas trace (.dim), OTF2 archive anchor (.otf2; its .def and folder of "
                    "the same name are written beside it) or Paraver trace (.prv, with .pcf/.row)")
        ->required();
    cmd->callback([trace, output] {
        const bool paraver = output->ends_with(".prv");
        check_output_paths({*trace}, {{"output", *output, true}});
        if (paraver) {
            convert_to_paraver(*trace, *output);
            return;
        }
        if (replay::is_otf2_anchor(*output)) {
            convert_to_otf2(*trace, *output);
            return;
        }
        const auto loaded =
            load_program(*trace, {.threads = false}); // prv2dim's translation: one thread per task
        replay::write_dimemas_trace(loaded.program, loaded.communicators, *output);
        std::cerr << "popsim: wrote " << *output << "\n";
    });
}

} // namespace popsim::simulator

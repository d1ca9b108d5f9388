#include "replay/synth.hpp"
#include "simulator/commands.hpp"
#include "simulator/output_paths.hpp"

#include <iostream>

namespace popsim::simulator {

namespace {
struct SynthOptions {
    std::string description;
    std::string output;
    std::uint32_t halo_ranks = 0;
    std::uint64_t halo_steps = 100;
};

void run_synth(const SynthOptions& o) {
    if (o.description.empty() == (o.halo_ranks == 0)) {
        throw CLI::ValidationError("synth", "give either a DESCRIPTION file or --halo RANKS");
    }
    check_output_paths(o.description.empty() ? std::vector<std::string>{}
                                             : std::vector{o.description},
                       {{"-o", o.output, true}});
    const auto program = o.halo_ranks > 0 ? replay::synth::halo_exchange(o.halo_ranks, o.halo_steps)
                                          : replay::synth::read_description(o.description);
    replay::synth::write_paraver(program, o.output);
    std::cerr << "popsim: wrote " << o.output << " and its .pcf/.row\n";
}
} // namespace

void add_synth_command(CLI::App& app) {
    auto options = std::make_shared<SynthOptions>();
    auto* cmd = app.add_subcommand(
        "synth", "Write a synthetic Paraver trace from a description (docs/synth.md)");
    cmd->add_option("description", options->description, "Description file")
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", options->output,
                    "Output .prv path (the .pcf and .row are written beside it)")
        ->required();
    cmd->add_option("--halo", options->halo_ranks,
                    "Instead of a description: a halo-exchange benchmark with RANKS ranks");
    cmd->add_option("--steps", options->halo_steps, "Iterations of the halo-exchange benchmark")
        ->capture_default_str();
    cmd->callback([options] { run_synth(*options); });
}

} // namespace popsim::simulator

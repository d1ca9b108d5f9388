// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/options/global_options.hpp"
#include "replay/synth.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/output_paths.hpp"

#include <fmt/format.h>
#include <iostream>
#include <stdexcept>

namespace popsim::simulator {

// The commands run the pipeline's stages and show what they give.
using namespace pipeline;

namespace {
struct SynthOptions {
    std::string description;
    std::string output;
    std::uint32_t halo_ranks = 0;
    std::uint64_t halo_steps = 100;
    std::uint32_t halo_threads = 1;
};

/// The halo-exchange benchmark holds every operation in memory before writing: about 1.7 KB per
/// rank and step (measured: 10000 ranks x 100 steps, 1.67 GB).
void check_halo_size(const SynthOptions& o) {
    constexpr double k_bytes_per_rank_step = 1700;
    constexpr std::uint32_t k_max_ranks = 1u << 22; // the most threads popsim reads
    if (o.halo_ranks > k_max_ranks / o.halo_threads)
        throw std::invalid_argument(fmt::format("--halo {} --threads {}: at most {} threads",
                                                o.halo_ranks, o.halo_threads, k_max_ranks));
    const double need = static_cast<double>(o.halo_ranks) * static_cast<double>(o.halo_steps) *
                        k_bytes_per_rank_step * o.halo_threads;
    const auto limit = static_cast<double>(read_options().max_memory_bytes);
    if (need > limit) {
        throw std::invalid_argument(fmt::format(
            "--halo {} --steps {} needs about {:.1f} GB of memory; --max-memory is {:.1f} GB "
            "(default: the machine's memory)",
            o.halo_ranks, o.halo_steps, need / 1e9, limit / 1e9));
    }
}

void run_synth(const SynthOptions& o) {
    if (o.description.empty() == (o.halo_ranks == 0)) {
        throw CLI::ValidationError("synth", "give either a DESCRIPTION file or --halo RANKS");
    }
    if (o.halo_threads != 1 && o.halo_ranks == 0)
        throw CLI::ValidationError("synth", "--threads is for --halo (a description says its own)");
    check_halo_size(o);
    check_output_paths({}, {{"-o", o.output, true}},
                       o.description.empty() ? std::vector<std::string>{}
                                             : std::vector{o.description});
    const auto program =
        o.halo_ranks > 0 ? replay::synth::halo_exchange(o.halo_ranks, o.halo_steps, o.halo_threads)
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
        ->check(existing_input_file());
    cmd->add_option("-o,--output", options->output,
                    "Output .prv path (the .pcf and .row are written beside it)")
        ->required()
        ->check(output_file_name());
    cmd->add_option("--halo", options->halo_ranks,
                    "Instead of a description: a halo-exchange benchmark with RANKS ranks")
        ->type_name("RANKS")
        ->check(CLI::Range(1u, 1u << 22)); // 0 read as "no --halo" and asked for a description
    cmd->add_option("--steps", options->halo_steps, "Iterations of the halo-exchange benchmark")
        ->capture_default_str()
        ->check(CLI::Range(1u, 1u << 30)); // 0 wrote a trace without a step

    cmd->add_option("--threads", options->halo_threads,
                    "OpenMP threads per rank of the halo-exchange benchmark: each compute burst a "
                    "parallel region")
        ->capture_default_str()
        ->check(CLI::Range(1u, 1024u));
    cmd->callback([options] { run_synth(*options); });
}

} // namespace popsim::simulator

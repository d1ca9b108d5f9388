// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The network options `simulate` and `whatif` share: a model, a Dimemas configuration file, and
// overrides of its parameters.
#include "replay/network/dimemas.hpp"
#include "replay/program/replay_program.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

struct NetworkOptions {
    std::string model = "ideal"; // ideal | dimemas
    std::string config;          // a Dimemas .cfg (implies dimemas)
    std::optional<std::string> latency, bandwidth, buses, tasks_per_node, cpu_ratio, links,
        cpus_per_node;
    // fill | interleaved | an explicit list of 0-based nodes per task; unset: the configuration's
    // mapping, or fill
    std::optional<std::string> mapping;
    std::string eager = "32k";
    std::string collectives = "dimemas";
};

replay::ProgramOptions program_options(const NetworkOptions& options);

replay::CollectiveSync collective_sync(const std::string& value);
/// Refuses what the options hold wrong that needs no trace (units, numbers, the .cfg): a usage
/// error before a long read of the trace.
void check_network_options(const NetworkOptions& options);
/// The Dimemas parameters the options describe (the .cfg, then the overrides) for `tasks` tasks.
replay::network::DimemasParameters dimemas_parameters(const NetworkOptions& options,
                                                      std::uint32_t tasks);
std::unique_ptr<replay::network::NetworkModel> make_network(const NetworkOptions& options,
                                                            std::uint32_t tasks);
/// Whether the replay of `tasks` tasks on that network needs the pieces prv2dim cuts bursts into
/// (ReadOptions::cut_bursts_if): unless it is the ideal network with a CPU per task, where they
/// change nothing, Dimemas gives each its turn (docs/network-model.md).
bool replays_burst_pieces(const NetworkOptions& options, std::uint32_t tasks);
/// A one-line description of the model and its parameters, named as their options, for reports;
/// the `swept` ones (by option name) say so instead of giving a value.
std::string describe_network(const NetworkOptions& options, std::uint32_t tasks,
                             const std::vector<std::string>& swept = {});

} // namespace popsim::pipeline

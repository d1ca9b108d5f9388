// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/options/network_options.hpp"

#include "pipeline/options/trace_inputs.hpp"
#include "pipeline/options/units.hpp"
#include "replay/network/dimemas_config.hpp"
#include "replay/network/ideal.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <map>

namespace popsim::pipeline {

replay::CollectiveSync collective_sync(const std::string& value) {
    return value == "mpi" ? replay::CollectiveSync::mpi : replay::CollectiveSync::dimemas;
}

replay::ProgramOptions program_options(const NetworkOptions& o) {
    replay::ProgramOptions p;
    p.eager_limit_bytes = parse_bytes(o.eager);
    p.collectives = collective_sync(o.collectives);
    return p;
}

namespace {

/// Node of each task for --mapping (empty for fill, which tasks_per_node describes).
std::vector<std::uint32_t> task_nodes(const std::string& mapping, std::uint32_t tasks,
                                      std::uint32_t per_node) {
    std::vector<std::uint32_t> nodes;
    if (mapping == "fill") return nodes;
    if (mapping == "interleaved") {
        const std::uint32_t count = (tasks + per_node - 1) / per_node;
        for (std::uint32_t t = 0; t < tasks; ++t) nodes.push_back(t % count);
        return nodes;
    }
    std::size_t start = 0;
    while (start <= mapping.size()) {
        const auto colon = std::min(mapping.find(':', start), mapping.size());
        std::uint32_t node = 0;
        const auto [end, ec] =
            std::from_chars(mapping.data() + start, mapping.data() + colon, node);
        if (ec != std::errc{} || end != mapping.data() + colon) {
            throw std::invalid_argument(fmt::format(
                "--mapping '{}' is not fill, interleaved or a list of node numbers like 0:0:1:1",
                mapping));
        }
        nodes.push_back(node);
        start = colon + 1;
    }
    if (nodes.size() != tasks)
        throw std::invalid_argument(
            fmt::format("--mapping lists {} nodes for {} tasks", nodes.size(), tasks));
    return nodes;
}

/// The parameters the options give, all but the mapping of tasks to nodes (which needs the
/// trace's task count).
replay::network::DimemasParameters parameters_without_mapping(const NetworkOptions& o) {
    replay::network::DimemasParameters p;
    if (!o.config.empty()) p = replay::network::read_dimemas_config(o.config);
    auto count = [](const std::string& text, const char* what) {
        std::uint32_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size())
            throw std::invalid_argument(fmt::format("{} '{}' is not a whole number", what, text));
        return v;
    };
    if (o.latency) p.inter_latency = parse_time(*o.latency);
    if (o.bandwidth) p.inter_bandwidth_mbps = parse_bandwidth_mbps(*o.bandwidth);
    if (o.buses) p.buses = count(*o.buses, "--buses");
    if (o.links) p.in_links = p.out_links = count(*o.links, "--links");
    auto at_least_one = [&](const std::string& text, const char* what) {
        const auto v = count(text, what);
        if (v == 0) throw std::invalid_argument(fmt::format("{} must be at least 1", what));
        return v;
    };
    if (o.tasks_per_node) {
        p.tasks_per_node = at_least_one(*o.tasks_per_node, "--tasks-per-node");
        p.task_map = replay::network::DimemasParameters::TaskMap::tasks_per_node;
    }
    if (o.cpu_ratio) p.cpu_ratio = parse_cpu_ratio(*o.cpu_ratio);
    if (o.cpus_per_node) p.cpus_per_node = at_least_one(*o.cpus_per_node, "--cpus-per-node");
    return p;
}

} // namespace

void check_network_options(const NetworkOptions& o) {
    (void)parameters_without_mapping(o);
}

replay::network::DimemasParameters dimemas_parameters(const NetworkOptions& o,
                                                      std::uint32_t tasks) {
    auto p = parameters_without_mapping(o);
    if (o.mapping) {
        p.node_of_task = task_nodes(*o.mapping, tasks, p.tasks_per_node);
        p.task_map = replay::network::DimemasParameters::TaskMap::tasks_per_node;
    } else if (!p.node_of_task.empty() && p.node_of_task.size() != tasks)
        throw replay::TraceError(o.config, 0,
                                 fmt::format("\"mapping information\" places {} tasks, the trace "
                                             "has {}",
                                             p.node_of_task.size(), tasks));
    return p;
}

std::unique_ptr<replay::network::NetworkModel> make_network(const NetworkOptions& o,
                                                            std::uint32_t tasks) {
    const bool dimemas = o.model == "dimemas" || !o.config.empty() || o.latency || o.bandwidth ||
                         o.buses || o.links || o.tasks_per_node || o.cpu_ratio || o.cpus_per_node ||
                         o.mapping;
    if (!dimemas) return std::make_unique<replay::network::IdealNetwork>();
    return std::make_unique<replay::network::DimemasNetwork>(dimemas_parameters(o, tasks));
}

bool replays_burst_pieces(const NetworkOptions& options, std::uint32_t tasks) {
    const auto network = make_network(options, tasks);
    if (!network->zero_cost()) return true;
    const std::uint32_t cpus = network->cpus_per_node();
    if (cpus == 0) return false; // a CPU per task
    std::map<std::uint32_t, std::uint32_t> on_node;
    for (std::uint32_t task = 0; task < tasks; ++task)
        if (++on_node[network->node_of(task)] > cpus) return true;
    return false;
}

namespace {
std::string unlimited_or(std::uint32_t count) {
    return count == 0 ? std::string("unlimited") : std::to_string(count);
}

std::string mapping_name(const NetworkOptions& o, const replay::network::DimemasParameters& p) {
    using TaskMap = replay::network::DimemasParameters::TaskMap;
    if (o.mapping) return *o.mapping;
    if (!p.node_of_task.empty()) return "from --config";
    if (p.task_map == TaskMap::fill_nodes) return "FILL_NODES from --config";
    if (p.task_map == TaskMap::interleaved) return "INTERLEAVED from --config";
    return "fill";
}
} // namespace

std::string describe_network(const NetworkOptions& o, std::uint32_t tasks,
                             const std::vector<std::string>& swept) {
    if (make_network(o, tasks)->name() == "ideal") return fmt::format("ideal (eager {})", o.eager);
    const auto p = dimemas_parameters(o, tasks);
    const std::pair<std::string, std::string> fields[] = {
        {"latency", format_duration(p.inter_latency)},
        {"bandwidth", format_bandwidth(p.inter_bandwidth_mbps)},
        {"buses", unlimited_or(p.buses)},
        {"links", unlimited_or(p.in_links)},
        {"tasks-per-node", std::to_string(p.tasks_per_node)},
        {"cpus-per-node",
         p.cpus_per_node == 0 ? std::string("one per task") : std::to_string(p.cpus_per_node)},
        {"cpu-ratio", fmt::format("{:g}", p.cpu_ratio)},
        {"mapping", mapping_name(o, p)},
        {"eager", o.eager}};
    std::string out = fmt::format("dimemas{}:", o.config.empty() ? "" : " (" + o.config + ")");
    for (const auto& [name, value] : fields) {
        const bool varies = std::find(swept.begin(), swept.end(), name) != swept.end();
        out += fmt::format("{} {} {}", out.ends_with(':') ? "" : ",", name,
                           varies ? "(swept)" : value);
    }
    return out;
}

} // namespace popsim::pipeline

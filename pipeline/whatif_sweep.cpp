// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/whatif_sweep.hpp"

#include "pipeline/analysis_bytes.hpp"
#include "pipeline/progress_bar.hpp"
#include "pipeline/units.hpp"
#include "replay/network/ideal.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <oneapi/tbb/parallel_for.h>

namespace popsim::pipeline {

namespace {

std::vector<SweptParameter> swept_parameters(const NetworkOptions& sweep,
                                             const std::vector<SpeedupOption>& speedups,
                                             bool balance) {
    std::vector<SweptParameter> out{
        {"latency", "latency_ns", &NetworkOptions::latency, {}, true, {}},
        {"bandwidth", "bandwidth_bytes_per_s", &NetworkOptions::bandwidth, {}, true, {}},
        {"buses", "buses", &NetworkOptions::buses, {}, false, {}},
        {"tasks-per-node", "tasks_per_node", &NetworkOptions::tasks_per_node, {}, false, {}},
        {"cpu-ratio", "cpu_ratio", &NetworkOptions::cpu_ratio, {}, false, {}}};
    for (auto& p : out)
        if (sweep.*p.field) p.values = split_list(*(sweep.*p.field));
    for (std::size_t k = 0; k < speedups.size(); ++k) {
        out.push_back({fmt::format("speedup {}", speedups[k].region),
                       fmt::format("speedup:{}", speedups[k].region), nullptr, speedups[k].typed,
                       false, k});
    }
    if (balance) out.push_back({"balanced", "balanced", nullptr, {"no", "yes"}, false, {}, true});
    return out;
}

/// Each parameter's value in its base unit, as the network will use it (from the .cfg where the
/// parameter is not given): nanoseconds, bytes per second (+inf: instantaneous), counts, ratios.
std::vector<double> base_values(const replay::network::DimemasParameters& p, const Configuration& c,
                                bool balance) {
    std::vector<double> out{
        static_cast<double>(p.inter_latency), bandwidth_bytes_per_s(p.inter_bandwidth_mbps),
        static_cast<double>(p.buses), static_cast<double>(p.tasks_per_node), p.cpu_ratio};
    out.insert(out.end(), c.code.factors.begin(), c.code.factors.end());
    if (balance) out.push_back(c.code.balanced ? 1 : 0);
    return out;
}

/// Every combination of the swept values, the first parameter varying slowest.
std::vector<Configuration> configurations(const NetworkOptions& sweep,
                                          const std::vector<SpeedupOption>& speedups,
                                          const std::vector<SweptParameter>& parameters) {
    // Each configuration is a whole replay: a sweep of millions would run for days (and hold
    // every row), so the count is checked before anything is built.
    constexpr std::uint64_t k_max_configurations = 100'000;
    std::uint64_t count = 1;
    for (const auto& p : parameters) {
        count *= std::max<std::size_t>(p.values.size(), 1);
        if (count > k_max_configurations) {
            throw std::invalid_argument(
                fmt::format("the sweep has more than {} configurations (each is a whole replay): "
                            "sweep fewer values at once",
                            k_max_configurations));
        }
    }
    std::vector<Configuration> out{{std::vector<std::size_t>(parameters.size(), 0), sweep,
                                    CodeChange{std::vector<double>(speedups.size()), false}}};
    for (std::size_t k = 0; k < parameters.size(); ++k) {
        const auto& p = parameters[k];
        if (p.values.empty()) continue;
        std::vector<Configuration> next;
        for (const auto& base : out) {
            for (std::size_t v = 0; v < p.values.size(); ++v) {
                next.push_back(base);
                next.back().value[k] = v;
                if (p.speedup)
                    next.back().code.factors[*p.speedup] = speedups[*p.speedup].factors[v];
                else if (p.balance)
                    next.back().code.balanced = v == 1;
                else
                    next.back().network.*p.field = p.values[v];
            }
        }
        out = std::move(next);
    }
    for (auto& c : out) c.network.model = "dimemas";
    return out;
}

/// A configuration's prediction as bytes (CBOR: every number exact, NaN and +inf kept), to carry
/// it between the processes of an MPI run; and back.
std::string prediction_to_bytes(const Prediction& p) {
    const nlohmann::json j = {p.runtime,
                              p.ideal,
                              p.base,
                              {p.e.speedup, p.e.parallel, p.e.load_balance, p.e.communication,
                               p.e.serialization, p.e.transfer}};
    std::string bytes;
    nlohmann::json::to_cbor(j, bytes);
    return bytes;
}

Prediction prediction_from_bytes(const std::string& bytes) {
    const auto j = nlohmann::json::from_cbor(bytes);
    const auto& e = j.at(3);
    return {.runtime = j.at(0).get<Time>(),
            .ideal = j.at(1).get<Time>(),
            .base = j.at(2).get<std::vector<double>>(),
            .e = {.speedup = e.at(0).get<double>(),
                  .parallel = e.at(1).get<double>(),
                  .load_balance = e.at(2).get<double>(),
                  .communication = e.at(3).get<double>(),
                  .serialization = e.at(4).get<double>(),
                  .transfer = e.at(5).get<double>()}};
}

/// Under mpirun: the reporting process loads the trace at `path` (`load(helpers)`) helped by the
/// others, and hands them the program when it was streamed; each of the others gets it, or loads
/// the trace itself when the program needs its trace (cycle breaking reads it). On the others,
/// null when the reporting process failed, which throws.
template <class Load>
std::unique_ptr<LoadedProgram> load_shared(WorkDivision& division, const std::string& path,
                                           const Load& load) {
    std::unique_ptr<LoadedProgram> loaded;
    std::optional<std::string> bytes;
    try {
        read_helped(division, path, [&](replay::ReadHelpers* helpers) { loaded = load(helpers); });
        if (division.reports_here())
            bytes = loaded->trace ? std::string() : streamed_program_to_bytes(*loaded);
    } catch (...) {
        if (division.reports_here()) division.share(std::nullopt); // the others stop waiting
        throw;
    }
    bytes = division.share(std::move(bytes));
    if (division.reports_here() || !bytes) return loaded;
    if (bytes->empty()) return load(nullptr);
    return std::make_unique<LoadedProgram>(streamed_program_from_bytes(*bytes, path));
}

} // namespace

Sweep sweep(const WhatifOptions& o, WorkDivision* division) {
    auto speedups = parse_speedups(o.speedups);
    for (auto& m : config_modules(o.network.config)) speedups.push_back(std::move(m));
    const bool balance = o.balance.has_value();
    Sweep s;
    s.parameters = swept_parameters(o.network, speedups, balance);
    const auto& parameters = s.parameters;
    s.configs = configurations(o.network, speedups, parameters); // before the trace
    auto& configs = s.configs;
    if (!balanced_regions(o.balance).empty()) // one region's computation balanced
        for (auto& c : configs)
            if (c.code.balanced) c.code.balance_region = 0;
    for (const auto& c : configs) check_network_options(c.network);
    auto& code = s.code.emplace(o.trace, speedups, balance, balanced_regions(o.balance));
    ProgressBar progress({{.label = "reading", .total = input_file_bytes({o.trace})},
                          {.label = "simulating", .unit = ProgressBar::Unit::operations}});
    const auto load = [&](replay::ReadHelpers* helpers) {
        return std::make_unique<LoadedProgram>(
            load_program(o.trace, program_options(o.network),
                         {.window = o.window,
                          .in_memory = o.in_memory || !code.empty(), // regions: the trace
                          .on_read_progress = progress.running_total(0),
                          .event_types = code.event_types(),
                          .summarize = true,
                          .cut_bursts_for =
                              [&](std::uint32_t tasks) {
                                  return std::ranges::any_of(configs, [&](const auto& c) {
                                      return replays_burst_pieces(c.network, tasks);
                                  });
                              },
                          .helpers = helpers}));
    };
    // Under mpirun a sweep of networks reads the trace once (load_shared); code what-ifs need
    // the trace itself (their regions), which every process then reads.
    if (division && code.empty()) {
        const auto nothing_here = [&] {
            s.reports_here = gather_nothing(*division);
            return std::move(s);
        };
        if (!division->all_ready()) return nothing_here();
        s.loaded = load_shared(*division, o.trace, load);
        if (!s.loaded) return nothing_here(); // the reporting process failed: it reports why
    } else {
        s.loaded = load(nullptr);
    }
    auto& loaded = *s.loaded;
    code.prepare(loaded);
    const auto& program = loaded.program;
    const Time real_runtime = s.real_runtime = loaded.real_runtime.value_or(0); // none: .dim
    const auto summary = traced_summary(loaded);
    const auto traced = s.traced = traced_useful(summary);
    for (const auto& c : configs) make_network(c.network, program.tasks); // validate every value
    // Configurations that change the code alike replay the same burst durations: group by group.
    std::map<CodeChange, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < configs.size(); ++i) groups[configs[i].code].push_back(i);
    // Per group, the ideal network of each CPU ratio it sweeps: Transfer on a network compares
    // with it. The report's reference is the traced program on the traced CPUs.
    std::vector<std::map<double, Time>> ideal_of_ratio;
    for (const auto& [factors, members] : groups) {
        auto& ideal = ideal_of_ratio.emplace_back();
        for (const auto i : members)
            ideal.emplace(dimemas_parameters(configs[i].network, program.tasks).cpu_ratio, 0);
    }
    const CodeChange as_traced = code.as_traced();
    std::size_t replays = configs.size() + (loaded.ideal_runtime ? 0 : 1);
    for (const auto& ideal : ideal_of_ratio) replays += ideal.size();
    if (groups.begin()->first == as_traced && ideal_of_ratio.front().contains(1.0)) --replays;
    progress.add_total(1, replays * program.op_count());
    const replay::EngineOptions engine{
        .timeline = false, .on_progress = [&](std::uint64_t ops) { progress.add(1, ops); }};
    // The same cycles break on every network: reported once, from the reference's run.
    Time& ideal_runtime = s.ideal_runtime = loaded.ideal_runtime.value_or(0); // streamed: replayed
    if (!loaded.ideal_runtime) {
        replay::network::IdealNetwork ideal;
        ideal_runtime = replay_reporting(loaded, ideal, engine).runtime;
    }
    auto& predictions = s.predictions;
    predictions.resize(configs.size());
    // Under mpirun each process replays its share of the configurations (round robin); an error
    // is carried to the first process, which reports it as one process would.
    // When a process failed before (a trace its machine does not see), none replays.
    std::vector<bool> here(configs.size(), division == nullptr);
    if (division && division->all_ready())
        here = done_here(*division, std::vector<std::uint64_t>(configs.size(), 1));
    std::vector<std::exception_ptr> failures(configs.size());
    // One group's replays: the ideal network at each CPU ratio it sweeps, then its configurations
    // done here, side by side.
    const auto replay_group = [&](const CodeChange& change, const std::vector<std::size_t>& members,
                                  std::map<double, Time>& ideal_runtimes) {
        // The group's burst durations, the program's own when the code is as traced.
        const auto durations =
            code.empty() ? std::nullopt : std::optional(code.burst_durations(change));
        auto replayed = engine;
        replayed.burst_durations = durations ? &*durations : nullptr;
        for (auto& [ratio, runtime] : ideal_runtimes) {
            if (ratio == 1 && change == as_traced) {
                runtime = ideal_runtime;
                continue;
            }
            runtime = ideal_runtime_at(loaded, ratio, replayed);
        }
        // The useful computation, as analyze counts it, with the code sped up.
        auto useful = traced;
        if (summary && durations)
            std::tie(useful->average, useful->maximum) =
                code.useful_spread(*summary, change, *durations);
        oneapi::tbb::parallel_for(std::size_t{0}, members.size(), [&](std::size_t m) {
            const std::size_t i = members[m];
            if (!here[i]) return;
            const auto network = make_network(configs[i].network, program.tasks);
            const auto p = dimemas_parameters(configs[i].network, program.tasks);
            const auto result = replay_on(loaded, *network, replayed, nullptr);
            auto& out = predictions[i];
            out.runtime = result.runtime;
            out.ideal = ideal_runtimes.at(p.cpu_ratio);
            out.base = base_values(p, configs[i], balance);
            out.e = on_network(result, program, useful, p.cpu_ratio, real_runtime, out.ideal);
        });
    };
    std::size_t group = 0;
    for (const auto& [change, members] : groups) {
        auto& ideal_runtimes = ideal_of_ratio[group++];
        if (std::ranges::none_of(members, [&](std::size_t i) { return here[i]; })) continue;
        try {
            replay_group(change, members, ideal_runtimes);
        } catch (...) {
            if (!division) throw;
            for (const auto i : members)
                if (here[i]) failures[i] = std::current_exception();
        }
    }
    if (division) { // the first process shows them
        s.reports_here = gather_items(
            *division, here, failures,
            [&](std::size_t i) { return prediction_to_bytes(predictions[i]); },
            [&](std::size_t i, const std::string& bytes) {
                predictions[i] = prediction_from_bytes(bytes);
            });
    }
    return s;
}

} // namespace popsim::pipeline

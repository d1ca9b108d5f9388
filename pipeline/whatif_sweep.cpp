// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/whatif_sweep.hpp"

#include "pipeline/console/progress_bar.hpp"
#include "pipeline/options/units.hpp"
#include "pipeline/processes/analysis_bytes.hpp"
#include "replay/allocator_tuning.hpp"
#include "replay/bytes.hpp"
#include "replay/network/ideal.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <oneapi/tbb/parallel_for.h>
#include <set>

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
/// others, and hands them the program with what else it found in the trace (`found(loaded, out)`
/// appends its bytes); each of the others gets both and reads nothing. Every process, the reporting
/// one too, gets found's bytes back (`take`). On the others, null when the reporting process
/// failed, which throws.
template <class Load, class Found, class Take>
std::unique_ptr<LoadedProgram> load_shared(WorkDivision& division, const std::string& path,
                                           const Load& load, const Found& found, const Take& take) {
    std::unique_ptr<LoadedProgram> loaded;
    std::optional<std::string> bytes;
    try {
        read_helped(division, path, [&](replay::ReadHelpers* helpers) { loaded = load(helpers); });
        if (division.reports_here()) {
            // found's bytes with their length first (written once they are), then the program.
            auto& out = bytes.emplace(sizeof(std::uint64_t), '\0');
            found(*loaded, out);
            const std::uint64_t length = out.size() - sizeof length;
            std::memcpy(out.data(), &length, sizeof length);
            loaded_program_to_bytes(*loaded, out);
        }
    } catch (...) {
        if (division.reports_here()) division.share(std::nullopt); // the others stop waiting
        throw;
    }
    bytes = division.share(std::move(bytes));
    if (!bytes) return loaded;
    replay::ByteReader reader(*bytes);
    const auto length = reader.value<std::uint64_t>();
    if (length > reader.rest().size()) throw std::invalid_argument("a program's bytes: cut short");
    take(reader.rest().substr(0, length));
    if (division.reports_here()) return loaded;
    return std::make_unique<LoadedProgram>(
        loaded_program_from_bytes(reader.rest().substr(length), path));
}

/// What a configuration replays with when it changes the code: the program's burst durations and
/// the traced run's useful time (its average and largest) with the change made.
struct ChangedCode {
    replay::ProgramArray<double> durations;
    std::optional<std::pair<double, double>> useful; // none without a summary (a .dim)
};

ChangedCode changed_code(const CodeWhatif& code, const CodeChange& change,
                         const std::optional<metrics::TraceSummary>& summary) {
    ChangedCode out{code.burst_durations(change), std::nullopt};
    if (summary) out.useful = code.useful_spread(*summary, change, out.durations);
    return out;
}

/// A ChangedCode appended to `out` as bytes; and back, each in turn from `reader`.
void changed_code_to_bytes(const ChangedCode& c, std::string& out) {
    replay::ByteWriter writer(out);
    writer.array(c.durations);
    const auto [average, largest] = c.useful.value_or(std::pair(0.0, 0.0));
    writer.value(c.useful.has_value());
    writer.value(average);
    writer.value(largest);
}

ChangedCode changed_code_from_bytes(replay::ByteReader& reader) {
    ChangedCode c;
    reader.array(c.durations);
    const bool useful = reader.value<bool>();
    const auto average = reader.value<double>();
    const auto largest = reader.value<double>();
    if (useful) c.useful = std::pair(average, largest);
    return c;
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
    // Without code changes or other processes, the configurations are replayed while the
    // program is written, which is then never held whole (docs/replay.md).
    std::vector<NetworkOptions> networks;
    for (const auto& c : configs) networks.push_back(c.network);
    LiveModels live_models(std::move(networks));
    const bool live = !division && code.empty();
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
                          .helpers = helpers,
                          .live = live ? live_models.live() : replay::LiveNetworks{}}));
    };
    // Configurations that change the code alike replay the same burst durations: group by group.
    std::map<CodeChange, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < configs.size(); ++i) groups[configs[i].code].push_back(i);
    // Under mpirun the trace is read once (load_shared): the others get the program and, with
    // code what-ifs, every group's ChangedCode, which the trace's regions give.
    std::vector<ChangedCode> shared_code;
    if (division) {
        const auto nothing_here = [&] {
            s.reports_here = gather_nothing(*division);
            return std::move(s);
        };
        if (!division->all_ready()) return nothing_here();
        // The reporting process lets the trace go before it writes the program's bytes (the
        // reports need none of it), and takes what it found back from its bytes as the others do.
        const auto found = [&](LoadedProgram& loaded, std::string& out) {
            loaded.summary = traced_summary(loaded); // summed once from a trace in memory
            if (!code.empty()) {
                code.prepare(loaded);
                for (const auto& [change, members] : groups)
                    changed_code_to_bytes(changed_code(code, change, loaded.summary), out);
            }
            if (!loaded.trace) return;
            loaded.left_early = collectives_left_early(loaded);
            loaded.trace.reset();
            replay::give_freed_memory_back(); // the program's bytes will not fit in its pages
        };
        const auto take = [&](std::string_view bytes) {
            replay::ByteReader reader(bytes);
            while (!reader.done()) shared_code.push_back(changed_code_from_bytes(reader));
            if (!code.empty() && shared_code.size() != groups.size())
                throw std::invalid_argument("the code changes' bytes do not match the sweep");
        };
        s.loaded = load_shared(*division, o.trace, load, found, take);
        if (!s.loaded) return nothing_here(); // the reporting process failed: it reports why
    } else {
        s.loaded = load(nullptr);
        code.prepare(*s.loaded);
    }
    auto& loaded = *s.loaded;
    const auto& program = loaded.program;
    const Time real_runtime = s.real_runtime = loaded.real_runtime.value_or(0); // none: .dim
    const auto summary = traced_summary(loaded);
    const auto traced = s.traced = traced_useful(summary);
    for (const auto& c : configs) make_network(c.network, program.tasks); // validate every value
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
    const auto replay_group = [&](std::size_t group, const CodeChange& change,
                                  const std::vector<std::size_t>& members,
                                  std::map<double, Time>& ideal_runtimes) {
        // The group's burst durations, the program's own when the code is as traced.
        std::optional<ChangedCode> computed;
        const ChangedCode* changed = nullptr;
        if (!shared_code.empty())
            changed = &shared_code[group];
        else if (!code.empty())
            changed = &computed.emplace(changed_code(code, change, summary));
        auto replayed = engine;
        replayed.burst_durations = changed ? &changed->durations : nullptr;
        const bool replayed_live = !loaded.live_results.empty();
        for (auto& [ratio, runtime] : ideal_runtimes) {
            if (ratio == 1 && change == as_traced) {
                runtime = ideal_runtime;
            } else if (replayed_live) {
                runtime = live_models.ideal_runtime(loaded, ratio);
            } else {
                runtime = ideal_runtime_at(loaded, ratio, replayed);
            }
        }
        // The useful computation, as analyze counts it, with the code sped up.
        auto useful = traced;
        if (useful && changed && changed->useful)
            std::tie(useful->average, useful->maximum) = *changed->useful;
        oneapi::tbb::parallel_for(std::size_t{0}, members.size(), [&](std::size_t m) {
            const std::size_t i = members[m];
            if (!here[i]) return;
            const auto network = make_network(configs[i].network, program.tasks);
            const auto p = dimemas_parameters(configs[i].network, program.tasks);
            const auto result = replayed_live ? std::move(loaded.live_results[i])
                                              : replay_on(loaded, *network, replayed, nullptr);
            auto& out = predictions[i];
            out.runtime = result.runtime;
            out.ideal = ideal_runtimes.at(p.cpu_ratio);
            out.base = base_values(p, configs[i], balance);
            out.e = on_network(result, program, useful, p.cpu_ratio, real_runtime, out.ideal);
        });
    };
    std::size_t group = 0;
    for (const auto& [change, members] : groups) {
        const std::size_t g = group++;
        auto& ideal_runtimes = ideal_of_ratio[g];
        if (std::ranges::none_of(members, [&](std::size_t i) { return here[i]; })) continue;
        try {
            replay_group(g, change, members, ideal_runtimes);
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

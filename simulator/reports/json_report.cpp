// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/reports/json_report.hpp"

#include "pipeline/console/memory_use.hpp"

#include "metrics/ideal_replay.hpp"
#include "popsim/version.hpp"

namespace popsim::simulator {

namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

const char* convention_name(metrics::SerTransConvention c) {
    return c == metrics::SerTransConvention::modelfactors ? "modelfactors" : "pop";
}

json summary_json(const metrics::TraceSummary& s) {
    json j;
    j["path"] = s.path;
    j["processes"] = s.processes;
    j["threads"] = s.threads;
    j["runtime_ns"] = s.runtime;
    j["analysed_windows_ns"] = json::array(); // [begin, end) of each traced window analysed
    for (const auto& [begin, end] : s.windows) j["analysed_windows_ns"].push_back({begin, end});
    j["useful_ns"] = {{"average", s.useful_average()},
                      {"maximum", s.useful_max()},
                      {"total", s.useful_total()},
                      {"per_thread", s.useful}};
    // A counter the trace does not count (cycles alone, say) is null, not 0.
    const auto counted = [&](std::uint64_t n) {
        return s.has_counters && n > 0 ? json(n) : json();
    };
    j["startup_shutdown_ns"] = {{"traced", s.startup.traced},
                                {"ideal", s.startup.ideal},
                                {"task_startup", s.startup.task_startup},
                                {"task_shutdown", s.startup.task_shutdown}};
    j["useful_instructions"] = counted(s.instructions);
    j["useful_cycles"] = counted(s.cycles);
    j["ideal"] = s.ideal ? json{{"runtime_ns", s.ideal->runtime},
                                {"max_useful_ns", s.ideal->max_useful},
                                {"task_useful_ns", s.ideal->task_useful},
                                {"task_end_ns", s.ideal->task_end}}
                         : json(nullptr);
    j["rank_breakdown_ns"] = json::array();
    const auto ranks = metrics::rank_breakdown(s);
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        j["rank_breakdown_ns"].push_back({{"rank", r + 1},
                                          {"useful", ranks[r].useful},
                                          {"startup_shutdown", ranks[r].startup},
                                          {"load_imbalance", ranks[r].load_imbalance},
                                          {"serialization", ranks[r].serialization},
                                          {"transfer", ranks[r].transfer}});
    }
    return j;
}

json multiplicative_json(const metrics::MpiEfficiencies& e) {
    return {{"parallel_efficiency", e.parallel},
            {"load_balance", e.load_balance},
            {"communication_efficiency", e.communication},
            {"startup_efficiency", e.startup},
            {"serialization_efficiency", optional_number(e.serialization)},
            {"transfer_efficiency", optional_number(e.transfer)},
            {"average_ipc", optional_number(e.ipc)},
            {"average_frequency_ghz", optional_number(e.frequency_ghz)}};
}

json additive_json(const metrics::MpiAdditiveEfficiencies& e) {
    return {{"parallel_efficiency", e.parallel},
            {"load_balance", e.load_balance},
            {"communication_efficiency", e.communication},
            {"startup_efficiency", e.startup},
            {"serialization_efficiency", optional_number(e.serialization)},
            {"transfer_efficiency", optional_number(e.transfer)}};
}

json scaling_json(const metrics::ScalingFactors& f) {
    return {{"computation_scalability", f.computation_scalability},
            {"global_efficiency", f.global_efficiency},
            {"ipc_scalability", optional_number(f.ipc_scalability)},
            {"instruction_scalability", optional_number(f.instruction_scalability)},
            {"frequency_scalability", optional_number(f.frequency_scalability)},
            {"speedup", f.speedup}};
}

} // namespace

json pass_json(const pipeline::TracePass& pass) {
    return {{"streamed", pass.streamed},
            {"in_memory_because",
             pass.in_memory_because.empty() ? json() : json(pass.in_memory_because)},
            {"mpi_processes", pass.processes}};
}

json report_header(const char* command) {
    return {{"schema", k_json_schema}, {"popsim_version", k_version}, {"command", command}};
}

json series_to_json(const metrics::SeriesAnalysis& s) {
    json j = report_header("analyze");
    j["serialization_transfer_convention"] = convention_name(s.convention);
    j["scaling"] = {{"kind", s.kind == metrics::ScalingKind::weak ? "weak" : "strong"},
                    {"forced", s.kind_forced},
                    {"weak_indicator", optional_number(s.weak_indicator)}};
    j["traces"] = json::array();
    for (std::size_t i = 0; i < s.traces.size(); ++i) {
        json t = summary_json(s.traces[i]);
        t["mpi_multiplicative"] = multiplicative_json(s.mpi[i]);
        t["mpi_additive"] = additive_json(s.mpi_additive[i]);
        t["scaling"] = scaling_json(s.scaling[i]);
        j["traces"].push_back(std::move(t));
    }
    return j;
}

std::string report_text(nlohmann::json report) {
    report["peak_memory_bytes"] = pipeline::peak_memory_bytes();
    return report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace popsim::simulator

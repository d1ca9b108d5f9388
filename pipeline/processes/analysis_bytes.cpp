// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/processes/analysis_bytes.hpp"

#include "replay/bytes.hpp"
#include "replay/program/program_bytes.hpp"

#include <nlohmann/json.hpp>
#include <optional>

// What the results hold, field by field, as JSON (CBOR on the wire; its doubles and 64-bit
// integers are exact). A field added to these structures and not here would be lost between the
// processes: the MPI test compares every report with the single process's.
namespace nlohmann {
template <class T> struct adl_serializer<std::optional<T>> {
    static void to_json(json& j, const std::optional<T>& value) {
        j = value ? json(*value) : json(nullptr);
    }
    static void from_json(const json& j, std::optional<T>& value) {
        value = j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
    }
};
} // namespace nlohmann

namespace popsim::metrics {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IdealRun, runtime, max_useful, task_useful, task_end,
                                   task_mpi_outside_omp)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StartupShutdown, traced, ideal, init_end, finalize_begin,
                                   task_startup, task_shutdown, task_not_created,
                                   task_useful_before_init, task_ideal_startup,
                                   task_in_init_finalize)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TraceSummary, path, processes, threads, windows, runtime, useful,
                                   task_first_thread, instructions, cycles, has_counters, startup,
                                   ideal)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ThreadBreakdown, useful, useful_in_omp, omp_region, active, mpi,
                                   mpi_outside_omp, instructions, cycles)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HybridRun::RegionSums, instances, length, useful, max_useful)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HybridRun, path, processes, threads_per_process, total_threads,
                                   runtime, threads, master, process_of, ideal, startup,
                                   region_time, omp_load_imbalance, omp_scheduling, regions)
} // namespace popsim::metrics

namespace popsim::replay {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CommunicationRepairs, backward_records, cancelled_receives,
                                   repaired_records, unpaired_sends, unpaired_receives)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Warning, kind, summary, count, instances)
} // namespace popsim::replay

namespace popsim::pipeline {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TracePass, streamed, in_memory_because, processes)

std::string trace_to_bytes(const Analyzed& a, std::size_t i) {
    const nlohmann::json j = {{"pass", a.passes[i]},
                              {"summary", a.summaries[i]},
                              {"run", a.runs[i]},
                              {"warnings", a.warnings[i].all()},
                              {"repairs", a.repairs[i]}};
    std::string bytes;
    nlohmann::json::to_cbor(j, bytes);
    return bytes;
}

void trace_from_bytes(std::string_view bytes, Analyzed& a, std::size_t i) {
    const auto j = nlohmann::json::from_cbor(bytes);
    a.passes[i] = j.at("pass").get<TracePass>();
    a.summaries[i] = j.at("summary").get<metrics::TraceSummary>();
    a.runs[i] = j.at("run").get<metrics::HybridRun>();
    a.warnings[i] = {};
    for (const auto& w : j.at("warnings").get<std::vector<replay::Warning>>())
        a.warnings[i].add_many(w.kind, w.summary, w.count, w.instances);
    a.repairs[i] = j.at("repairs").get<replay::CommunicationRepairs>();
}

void loaded_program_to_bytes(const LoadedProgram& loaded, std::string& out) {
    // The numbers in CBOR, as one array of bytes; then the collectives left early, each its
    // number and why; then the program's arrays.
    const nlohmann::json j = {{"real_runtime", loaded.real_runtime},
                              {"ideal_runtime", loaded.ideal_runtime},
                              {"summary", traced_summary(loaded)}};
    std::string numbers;
    nlohmann::json::to_cbor(j, numbers);
    replay::ByteWriter writer(out);
    writer.text(numbers);
    const auto left_early = collectives_left_early(loaded);
    writer.value(static_cast<std::uint64_t>(left_early.size()));
    for (const auto& [c, description] : left_early) {
        writer.value(c);
        writer.text(description);
    }
    replay::program_to_bytes(loaded.program, out);
}

LoadedProgram loaded_program_from_bytes(std::string_view bytes, const std::string& path) {
    replay::ByteReader reader(bytes);
    std::string numbers;
    reader.array(numbers);
    const auto j = nlohmann::json::from_cbor(numbers);
    LoadedProgram loaded;
    for (auto n = reader.count(sizeof(replay::CollectiveIndex) + sizeof(std::uint64_t)); n > 0;
         --n) {
        const auto c = reader.value<replay::CollectiveIndex>();
        reader.array(loaded.left_early[c]);
    }
    loaded.path = path;
    loaded.real_runtime = j.at("real_runtime").get<std::optional<Time>>();
    loaded.ideal_runtime = j.at("ideal_runtime").get<std::optional<Time>>();
    loaded.summary = j.at("summary").get<std::optional<metrics::TraceSummary>>();
    loaded.program = replay::program_from_bytes(reader.rest());
    if (!loaded.left_early.empty() &&
        loaded.left_early.rbegin()->first >= loaded.program.collectives.size())
        throw std::invalid_argument("a program's bytes: a collective left early that it lacks");
    return loaded;
}

} // namespace popsim::pipeline

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/mpi_run.hpp"

#include "pipeline/diagnostics.hpp"
#include "simulator/failure.hpp"

#include <climits>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sched.h>
#include <stdexcept>
#include <unistd.h>

namespace popsim::simulator {

namespace {

/// The failure an exception means (current_failure), outside a catch block.
Failure failure_of(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (...) {
        return current_failure();
    }
}

} // namespace

bool started_by_mpirun() {
    return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
}

MpiRun::MpiRun(int& argc, char**& argv) {
    // Only the main thread calls MPI; oneTBB's threads never do.
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiRun::~MpiRun() {
    MPI_Finalize();
}

void MpiRun::note_binding() const {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (!reports_here() || sched_getaffinity(0, sizeof allowed, &allowed) != 0 ||
        CPU_COUNT(&allowed) != 1 || cores <= 1)
        return;
    pipeline::print_note(fmt::format(
        "mpirun bound this process to one of the machine's {} cores, which popsim's threads then "
        "share; mpirun --bind-to none gives each process every core (--map-by ppr:1:node "
        "--bind-to none: one process per node)",
        cores));
}

std::vector<bool> MpiRun::done_here(const std::vector<std::uint64_t>& weights) const {
    const auto owner = pipeline::divide_by_weight(weights, static_cast<std::uint32_t>(size_));
    std::vector<bool> here(weights.size());
    for (std::size_t i = 0; i < weights.size(); ++i)
        here[i] = owner[i] == static_cast<std::uint32_t>(rank_);
    return here;
}

std::vector<std::string> MpiRun::gather(const std::vector<std::string>& results,
                                        const std::vector<bool>& here,
                                        const std::vector<std::exception_ptr>& failures) {
    gathered_ = true;
    // This process's part: [i, bytes] per item it did, [i, status, message] per one that failed;
    // the reporting process keeps its own.
    auto part = nlohmann::json::array();
    std::optional<std::pair<std::size_t, Failure>> first_failure;
    for (std::size_t i = 0; i < here.size(); ++i) {
        if (!here[i]) continue;
        if (failures[i]) {
            const auto f = failure_of(failures[i]);
            if (reports_here() && !first_failure) first_failure.emplace(i, f);
            if (!reports_here()) part.push_back({i, f.status, f.message});
        } else if (!reports_here()) {
            part.push_back({i, nlohmann::json::binary({results[i].begin(), results[i].end()})});
        }
    }
    std::vector<std::uint8_t> mine;
    nlohmann::json::to_cbor(part, mine);
    return exchange(mine, here.size(), first_failure);
}

void MpiRun::fail_gather(const Failure& failure) {
    if (gathered_) return;
    gathered_ = true;
    constexpr auto before_any_item = std::numeric_limits<std::size_t>::max();
    const auto part = nlohmann::json::array({{before_any_item, failure.status, failure.message}});
    std::vector<std::uint8_t> mine;
    nlohmann::json::to_cbor(part, mine);
    try {
        exchange(mine, 0, std::pair{before_any_item, failure});
    } catch (const ForwardedFailure&) { // its own, or another's: this process reports its own
    }
}

std::vector<std::string>
MpiRun::exchange(const std::vector<std::uint8_t>& mine, std::size_t items,
                 std::optional<std::pair<std::size_t, Failure>> first_failure) {
    if (mine.size() > static_cast<std::size_t>(INT_MAX))
        throw std::runtime_error("an MPI process's results exceed 2 GiB: use more processes");
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(reports_here() ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(counts.size(), 0);
    long long total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = static_cast<int>(total);
        total += counts[r];
    }
    if (total > INT_MAX)
        throw std::runtime_error("the MPI processes' results exceed 2 GiB: divide the work less");
    std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
    MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                0, MPI_COMM_WORLD);
    if (!reports_here()) return {};
    std::vector<std::string> others(items);
    for (std::size_t r = 1; r < counts.size(); ++r) {
        const auto begin = all.begin() + offsets[r];
        for (const auto& entry : nlohmann::json::from_cbor(begin, begin + counts[r])) {
            const auto i = entry[0].get<std::size_t>();
            if (entry.size() == 3) {
                if (!first_failure || i < first_failure->first)
                    first_failure.emplace(
                        i, Failure{entry[1].get<int>(), entry[2].get<std::string>()});
                continue;
            }
            const auto& bytes = entry[1].get_binary();
            if (i < others.size()) others[i].assign(bytes.begin(), bytes.end());
        }
    }
    if (first_failure) throw ForwardedFailure(first_failure->second);
    return others;
}

} // namespace popsim::simulator

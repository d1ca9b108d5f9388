// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/mpi_run.hpp"

#include "simulator/failure.hpp"

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

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

/// The bytes a trace's analysis reads: the file, or an OTF2 archive's files (its anchor, e.g.
/// traces.otf2, beside the folder of the same stem that holds its definitions and events).
std::uint64_t trace_bytes(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    std::uint64_t bytes = fs::file_size(path, error);
    if (error) return 0; // unreadable: its owner reports it
    if (fs::path(path).extension() != ".otf2") return bytes;
    const auto folder = fs::path(path).replace_extension();
    for (auto it = fs::recursive_directory_iterator(folder, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file(error)) bytes += it->file_size(error);
    }
    return bytes;
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

std::vector<bool> MpiRun::analysed_here(const std::vector<std::string>& paths) const {
    std::vector<std::uint64_t> sizes;
    for (const auto& path : paths) sizes.push_back(trace_bytes(path));
    const auto owner = pipeline::divide_by_size(sizes, static_cast<std::uint32_t>(size_));
    std::vector<bool> here(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i)
        here[i] = owner[i] == static_cast<std::uint32_t>(rank_);
    return here;
}

void MpiRun::gather(pipeline::Analyzed& analyzed, const std::vector<bool>& here,
                    const std::vector<std::exception_ptr>& failures) {
    // This process's part: [i, bytes] per trace it analysed, [i, status, message] per one that
    // failed; the reporting process keeps its own.
    auto part = nlohmann::json::array();
    std::optional<std::pair<std::size_t, Failure>> first_failure;
    for (std::size_t i = 0; i < here.size(); ++i) {
        if (!here[i]) continue;
        if (failures[i]) {
            const auto f = failure_of(failures[i]);
            if (reports_here() && !first_failure) first_failure.emplace(i, f);
            if (!reports_here()) part.push_back({i, f.status, f.message});
        } else if (!reports_here()) {
            const auto bytes = pipeline::trace_to_bytes(analyzed, i);
            part.push_back({i, nlohmann::json::binary({bytes.begin(), bytes.end()})});
        }
    }
    std::vector<std::uint8_t> mine;
    nlohmann::json::to_cbor(part, mine);
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
        throw std::runtime_error("the MPI processes' results exceed 2 GiB: analyse fewer traces");
    std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
    MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                0, MPI_COMM_WORLD);
    if (!reports_here()) return;
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
            pipeline::trace_from_bytes(
                std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                analyzed, i);
        }
    }
    if (first_failure) throw ForwardedFailure(first_failure->second);
}

} // namespace popsim::simulator

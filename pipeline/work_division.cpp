// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/work_division.hpp"

#include <algorithm>
#include <filesystem>
#include <numeric>

namespace popsim::pipeline {

std::vector<std::uint32_t> divide_by_weight(const std::vector<std::uint64_t>& weights,
                                            std::uint32_t processes) {
    std::vector<std::size_t> order(weights.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
    std::vector<std::uint64_t> load(std::max<std::uint32_t>(processes, 1), 0);
    std::vector<std::uint32_t> owner(weights.size(), 0);
    for (const auto i : order) {
        const auto least = std::min_element(load.begin(), load.end()); // the first among equals
        owner[i] = static_cast<std::uint32_t>(least - load.begin());
        *least += std::max<std::uint64_t>(weights[i], 1); // empty items count: one each
    }
    return owner;
}

bool read_by_reporting_process(const std::string& path) {
    std::error_code error;
    return path.starts_with("/dev/") || path.starts_with("/proc/") ||
           !std::filesystem::is_regular_file(path, error);
}

std::uint64_t trace_bytes(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code error;
    std::uint64_t bytes = fs::file_size(path, error);
    if (error) return 0;
    if (fs::path(path).extension() != ".otf2") return bytes;
    const auto folder = fs::path(path).replace_extension();
    for (auto it = fs::recursive_directory_iterator(folder, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (it->is_regular_file(error)) bytes += it->file_size(error);
    }
    return bytes;
}

} // namespace popsim::pipeline

// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/processes/work_division.hpp"

#include "replay/input/body_text.hpp"
#include "replay/input/otf2_archive.hpp"

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

std::vector<bool> done_here(const WorkDivision& division,
                            const std::vector<std::uint64_t>& weights) {
    const auto owner = divide_by_weight(weights, division.processes());
    std::vector<bool> here(weights.size());
    for (std::size_t i = 0; i < weights.size(); ++i) here[i] = owner[i] == division.process();
    return here;
}

std::vector<std::vector<std::uint32_t>> helpers_of(const std::vector<std::uint32_t>& readers,
                                                   const std::vector<std::uint64_t>& weights,
                                                   const std::vector<bool>& dividable,
                                                   std::uint32_t processes) {
    std::vector<std::vector<std::uint32_t>> helpers(readers.size());
    std::vector<bool> reads(processes, false);
    for (const auto r : readers) {
        if (r >= processes || reads[r]) return helpers; // one process reads several: none
        reads[r] = true;
    }
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < readers.size(); ++i)
        if (dividable[i]) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
    if (order.empty()) return helpers;
    std::size_t next = 0;
    for (std::uint32_t p = 0; p < processes; ++p)
        if (!reads[p]) helpers[order[next++ % order.size()]].push_back(p);
    return helpers;
}

bool dividable_trace(const std::string& path, std::string* why_not) {
    if (read_by_reporting_process(path)) return false;
    return replay::is_otf2_anchor(path) || replay::BodyText::readable(path, why_not);
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

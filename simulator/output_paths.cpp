// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/output_paths.hpp"

#include "replay/input/paraver_reader.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <unistd.h>

namespace popsim::simulator {

namespace {

std::string canonical(const std::string& path) {
    std::error_code ec;
    const auto p = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : p.string();
}

/// The files a Paraver trace at `path` consists of.
std::vector<std::string> with_companions(const std::string& path) {
    const std::string base = replay::trace_base_name(path);
    return {path, base + ".pcf", base + ".row"};
}

/// The output can be created: its folder exists and is writable, and it is not a folder itself.
void check_writable(const OutputPath& out, const std::string& file) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (fs::is_directory(file, error))
        throw replay::TraceError(file, 0, fmt::format("{}: a folder, not a file", out.option));
    const fs::path parent = fs::path(file).parent_path();
    const std::string folder = parent.empty() ? "." : parent.string();
    if (!fs::is_directory(folder, error)) {
        throw replay::TraceError(
            file, 0,
            fmt::format("{}: cannot write: the folder {} does not exist", out.option, folder));
    }
    if (fs::exists(file, error) ? ::access(file.c_str(), W_OK) != 0
                                : ::access(folder.c_str(), W_OK) != 0) {
        throw replay::TraceError(
            file, 0,
            fmt::format("{}: cannot write: {} is not writable", out.option,
                        fs::exists(file, error) ? "the file" : "the folder " + folder));
    }
}

} // namespace

void check_output_paths(const std::vector<std::string>& inputs,
                        const std::vector<OutputPath>& outputs) {
    std::map<std::string, std::string> input_files; // canonical file -> the input trace
    std::map<std::string, std::size_t> position;    // canonical trace -> its place (1-based)
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto [it, added] = position.emplace(canonical(inputs[i]), i + 1);
        if (!added) {
            throw replay::TraceError(inputs[i], 0,
                                     fmt::format("given twice (traces {} and {}): a series needs "
                                                 "each run once",
                                                 it->second, i + 1));
        }
        for (const auto& file : with_companions(inputs[i]))
            input_files.emplace(canonical(file), inputs[i]);
    }
    std::map<std::string, std::string> written; // canonical file -> the option writing it
    for (const auto& out : outputs) {
        if (out.path.empty()) continue;
        const auto files = out.paraver ? with_companions(out.path) : std::vector{out.path};
        for (const auto& file : files) {
            check_writable(out, file);
            const auto key = canonical(file);
            if (const auto it = input_files.find(key); it != input_files.end()) {
                throw replay::TraceError(
                    file, 0,
                    fmt::format("{} would overwrite {}the input trace {}; popsim never replaces "
                                "its input: choose another output",
                                out.option, key == canonical(it->second) ? "" : "a file of ",
                                it->second));
            }
            if (const auto [it, added] = written.emplace(key, out.option); !added) {
                throw replay::TraceError(
                    file, 0,
                    fmt::format("{} and {} would both write this file", it->second, out.option));
            }
        }
    }
}

bool to_standard_output(const std::vector<OutputPath>& outputs) {
    return std::any_of(outputs.begin(), outputs.end(),
                       [](const OutputPath& out) { return out.path == k_standard_output; });
}

} // namespace popsim::simulator

// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/output_paths.hpp"

#include "replay/input/trace_files.hpp"
#include "replay/network/dimemas_config.hpp"
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

/// Files and folders (canonical) that are already taken, each with what it belongs to.
class TakenFiles {
  public:
    void add(const replay::TraceFiles& files, const std::string& owner) {
        for (const auto& file : files.files) files_.emplace(canonical(file), owner);
        for (const auto& folder : files.folders) folders_.emplace(canonical(folder), owner);
    }
    /// What `file` (canonical) belongs to, or nullptr: a file taken, or one below a folder taken
    /// (or the folder itself).
    const std::string* owner(const std::string& file) const {
        if (const auto it = files_.find(file); it != files_.end()) return &it->second;
        for (const auto& [folder, owner] : folders_)
            if (file == folder || (file.starts_with(folder) && file[folder.size()] == '/'))
                return &owner;
        return nullptr;
    }

    /// What a file or folder taken below `folder` (canonical) belongs to, or nullptr.
    const std::string* owner_below(const std::string& folder) const {
        for (const auto* taken : {&files_, &folders_})
            for (const auto& [path, owner] : *taken)
                if (path.starts_with(folder) && path.size() > folder.size() &&
                    path[folder.size()] == '/')
                    return &owner;
        return nullptr;
    }

  private:
    std::map<std::string, std::string> files_, folders_;
};

/// A trace's files, or a plain file alone.
replay::TraceFiles files_of(const OutputPath& out) {
    return out.trace ? replay::trace_files(out.path) : replay::TraceFiles{{out.path}, {}};
}

} // namespace

void check_output_paths(const std::vector<std::string>& traces,
                        const std::vector<OutputPath>& outputs,
                        const std::vector<std::string>& input_files) {
    TakenFiles inputs;
    std::map<std::string, std::size_t> position; // canonical trace -> its place (1-based)
    for (std::size_t i = 0; i < traces.size(); ++i) {
        const auto [it, added] = position.emplace(canonical(traces[i]), i + 1);
        if (!added) {
            throw replay::TraceError(traces[i], 0,
                                     fmt::format("given twice (traces {} and {}): a series needs "
                                                 "each run once",
                                                 it->second, i + 1));
        }
        inputs.add(replay::trace_files(traces[i]), traces[i]);
    }
    for (const auto& file : input_files) inputs.add({{file}, {}}, file);
    TakenFiles written; // by the outputs before, each with its option
    for (const auto& out : outputs) {
        if (out.path.empty()) continue;
        if (out.trace && out.path == "-") // what a report option reads as standard output
            throw replay::TraceError(
                out.path, 0,
                fmt::format("{}: a trace is written as files (a .prv with its .pcf and .row, an "
                            "OTF2 archive, a .dim), not to standard output: name them",
                            out.option));
        const auto files = files_of(out);
        for (const auto& file : files.files) {
            check_writable(out, file);
            const auto key = canonical(file);
            if (const auto* input = inputs.owner(key)) {
                const bool trace = position.contains(canonical(*input));
                throw replay::TraceError(
                    file, 0,
                    fmt::format("{} would overwrite {}{}; popsim never replaces its input: "
                                "choose another output",
                                out.option,
                                !trace                     ? "the input file "
                                : key == canonical(*input) ? "the input trace "
                                                           : "a file of the input trace ",
                                *input));
            }
            if (const auto* other = written.owner(key)) {
                throw replay::TraceError(
                    file, 0,
                    fmt::format("{} and {} would both write this file", *other, out.option));
            }
        }
        for (const auto& folder : files.folders) { // an OTF2 archive's, replaced whole
            const auto key = canonical(folder);
            if (const auto* input = inputs.owner_below(key)) {
                throw replay::TraceError(
                    folder, 0,
                    fmt::format("{} would replace the folder {}, which holds the input {}; popsim "
                                "never replaces its input: choose another output",
                                out.option, folder, *input));
            }
            if (const auto* other = written.owner_below(key)) {
                throw replay::TraceError(
                    folder, 0,
                    fmt::format("{} and {} would both write this folder", *other, out.option));
            }
        }
        written.add(files, out.option);
    }
}

std::vector<std::string> config_files(const std::string& cfg) {
    return cfg.empty() ? std::vector<std::string>{} : replay::network::dimemas_config_files(cfg);
}

bool to_standard_output(const std::vector<OutputPath>& outputs) {
    return std::any_of(outputs.begin(), outputs.end(),
                       [](const OutputPath& out) { return out.path == k_standard_output; });
}

} // namespace popsim::simulator

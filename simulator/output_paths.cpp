#include "simulator/output_paths.hpp"

#include "replay/paraver_reader.hpp"
#include "replay/trace_error.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <map>

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

} // namespace popsim::simulator

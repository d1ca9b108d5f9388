#pragma once
// Helpers shared by the tests: where the validation data is, scratch files, synthetic traces.
#include "replay/paraver_reader.hpp"
#include "replay/synth.hpp"

#include <filesystem>
#include <iterator>
#include <fstream>
#include <string>

namespace popsim::test {

/// A file of ../shared/data (the published validation data beside the checkout).
inline std::string shared_data(const std::string& relative) { return std::string(POPSIM_SHARED_DATA) + "/" + relative; }

/// A fresh scratch directory for one test, under the build tree.
inline std::filesystem::path scratch_dir(const std::string& name) {
    auto dir = std::filesystem::current_path() / "scratch" / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

inline std::string write_file(const std::filesystem::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
}

/// Writes the trace a synth description describes and returns its .prv path.
inline std::string synth_trace(const std::string& name, const std::string& description) {
    const auto path = (scratch_dir(name) / (name + ".prv")).string();
    replay::synth::write_paraver(replay::synth::parse_description(description, name), path);
    return path;
}

inline replay::Trace read_quiet(const std::string& path) {
    replay::ReadOptions options;
    options.read_labels = false;
    return replay::read_paraver(path, options);
}

} // namespace popsim::test

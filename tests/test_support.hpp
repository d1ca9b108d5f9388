#pragma once
// Helpers shared by the tests: where the validation data is, scratch files, synthetic traces.
#include "replay/input/paraver_reader.hpp"
#include "replay/synth.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace popsim::test {

/// The exit status that tells CTest a test was skipped (SKIP_RETURN_CODE in tests/CMakeLists.txt).
inline constexpr int k_skipped = 77;

/// The validation data: $POPSIM_DATA, else ../shared/data beside the checkout.
inline std::string shared_data_dir() {
    const char* dir = std::getenv("POPSIM_DATA");
    return dir != nullptr && *dir != '\0' ? dir : POPSIM_SHARED_DATA;
}

/// A file of the validation data. Without the data the test is skipped (exit status 77, which
/// CTest reports as skipped): a clone of the repository alone passes its tests.
inline std::string shared_data(const std::string& relative) {
    const std::string dir = shared_data_dir();
    if (!std::filesystem::is_directory(dir)) {
        std::printf("popsim-skip: this test needs the validation data, absent from %s (put it "
                    "there or set POPSIM_DATA; README, \"Tests\")\n",
                    dir.c_str());
        std::fflush(stdout);
        std::exit(k_skipped);
    }
    return dir + "/" + relative;
}

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

/// The whole content of a file (a report popsim wrote).
inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
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

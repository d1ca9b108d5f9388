// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/options/trace_inputs.hpp"

#include "pipeline/console/diagnostics.hpp"
#include "replay/input/line_reader.hpp"
#include "replay/output/simulated_trace.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace popsim::pipeline {

namespace fs = std::filesystem;

namespace {

bool is_trace_name(const std::string& name) {
    return name.ends_with(".prv") || name.ends_with(".prv.gz");
}

bool has_simulated_name(const std::string& path) {
    return path.ends_with(".sim.prv") || path.ends_with(".sim.prv.gz");
}

/// "run2" before "run10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) &&
            std::isdigit(static_cast<unsigned char>(b[j]))) {
            const std::size_t i0 = i, j0 = j;
            while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
            while (j < b.size() && std::isdigit(static_cast<unsigned char>(b[j]))) ++j;
            const auto x = a.substr(i0, i - i0), y = b.substr(j0, j - j0);
            const auto x_digits = x.find_first_not_of('0'), y_digits = y.find_first_not_of('0');
            const auto xs = x_digits == std::string::npos ? std::string() : x.substr(x_digits);
            const auto ys = y_digits == std::string::npos ? std::string() : y.substr(y_digits);
            if (xs.size() != ys.size()) return xs.size() < ys.size();
            if (xs != ys) return xs < ys;
            continue;
        }
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

void require_existing(const std::string& path) {
    std::error_code error;
    if (!fs::exists(path, error)) throw replay::TraceError(path, 0, "no such file or folder");
}

/// An OTF2 archive's anchor in `folder` (Score-P names it traces.otf2), or "".
std::string archive_in(const fs::path& folder) {
    std::error_code error;
    const auto anchor = folder / "traces.otf2";
    return fs::is_regular_file(anchor, error) ? anchor.string() : std::string();
}

std::vector<std::string> traces_in_folder(const std::string& folder) {
    // A Score-P experiment folder is one run; a folder of them (or of Paraver traces) a series.
    if (auto anchor = archive_in(folder); !anchor.empty()) return {anchor};
    std::vector<std::string> traces, simulated;
    for (const auto& entry : fs::directory_iterator(folder)) {
        const std::string path = entry.path().string();
        if (entry.is_directory()) {
            if (auto anchor = archive_in(entry.path()); !anchor.empty()) traces.push_back(anchor);
            continue;
        }
        if (!entry.is_regular_file() || !is_trace_name(path)) continue;
        (is_simulated_trace(path) ? simulated : traces).push_back(path);
    }
    if (traces.empty()) {
        throw replay::TraceError(
            folder, 0,
            simulated.empty() ? "no Paraver trace (.prv, .prv.gz) or OTF2 archive "
                                "(a folder with traces.otf2) in this folder"
                              : fmt::format("the folder holds only simulated traces ({}); name "
                                            "them one by one to analyse them",
                                            simulated.size()));
    }
    std::sort(traces.begin(), traces.end(), natural_less);
    for (const auto& s : simulated)
        print_note(fmt::format(
            "{}: a simulated trace, left out of the folder's series (name it to analyse it)", s));
    return traces;
}

} // namespace

void refuse_companion_file(const std::string& path) {
    const fs::path p(path);
    const auto extension = p.extension().string();
    if (extension != ".pcf" && extension != ".row") return;
    std::error_code error;
    for (const char* trace_extension : {".prv", ".prv.gz"}) {
        auto trace = p;
        trace.replace_extension(trace_extension);
        if (fs::is_regular_file(trace, error))
            throw replay::TraceError(
                path, 0,
                fmt::format("the {} of a trace (its {}), not a trace: give the trace, {}",
                            extension, extension == ".pcf" ? "names" : "resources",
                            trace.string()));
    }
}

std::vector<std::string> expand_trace_inputs(const std::vector<std::string>& given) {
    std::vector<std::string> out;
    for (const auto& path : given) {
        require_existing(path);
        refuse_companion_file(path);
        std::error_code error;
        if (!fs::is_directory(path, error)) {
            out.push_back(path);
            continue;
        }
        const auto traces = traces_in_folder(path);
        out.insert(out.end(), traces.begin(), traces.end());
    }
    return out;
}

bool is_simulated_trace(const std::string& path) {
    if (has_simulated_name(path)) return true;
    std::error_code error;
    if (!fs::is_regular_file(path, error)) return false; // a pipe is read once, by the reader
    try {
        replay::LineReader in(path);
        std::string_view line;
        // The mark stands among the header's lines, before the first record.
        for (int n = 0; n < 64 && in.next(line); ++n) {
            if (line.starts_with(replay::k_simulated_trace_mark)) return true;
            if (n > 0 && !line.empty() && std::isdigit(static_cast<unsigned char>(line[0])))
                return false;
        }
    } catch (const std::exception&) {
        // Unreadable: the reader reports it with its line.
    }
    return false;
}

void require_input_file(const std::string& path) {
    require_existing(path);
    std::error_code error;
    if (fs::is_directory(path, error))
        throw replay::TraceError(path, 0, "a folder, where a file is expected");
}

} // namespace popsim::pipeline

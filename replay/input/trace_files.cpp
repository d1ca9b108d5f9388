// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/trace_files.hpp"

#include "replay/input/body_text.hpp"
#include "replay/input/gztool_index.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_reader.hpp"

#include <filesystem>

namespace popsim::replay {

TraceFiles trace_files(const std::string& path) {
    if (is_otf2_anchor(path)) { // the layout the OTF2 library gives an archive
        const std::filesystem::path anchor(path);
        const auto named = [&](const std::string& suffix) {
            return (anchor.parent_path() / (anchor.stem().string() + suffix)).string();
        };
        return {{path, named(".def")}, {named("")}};
    }
    if (path.ends_with(".dim")) return {{path}, {}};
    const std::string base = trace_base_name(path);
    TraceFiles paraver{{path, base + ".pcf", base + ".row"}, {}};
    if (path.ends_with(".gz")) {
        paraver.files.push_back(bgzip_index_path(path));
        paraver.files.push_back(gztool_index_path(path));
    }
    return paraver;
}

} // namespace popsim::replay

#include "simulator/load_program.hpp"

#include "replay/dimemas_trace.hpp"
#include "replay/paraver_reader.hpp"

#include <iostream>

namespace popsim::simulator {

LoadedProgram load_program(const std::string& path, const replay::ProgramOptions& options) {
    LoadedProgram loaded;
    if (path.ends_with(".dim")) {
        loaded.program = replay::read_dimemas_trace(path, options);
        return loaded;
    }
    loaded.trace = replay::read_paraver(path);
    loaded.real_runtime = loaded.trace->end_time();
    for (const auto& w : loaded.trace->warnings) std::cerr << "popsim: warning: " << w << "\n";
    loaded.program = replay::build_replay_program(*loaded.trace, options);
    for (const auto& w : loaded.program.warnings) std::cerr << "popsim: warning: " << w << "\n";
    return loaded;
}

} // namespace popsim::simulator

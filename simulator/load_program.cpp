#include "simulator/load_program.hpp"

#include "replay/dimemas_trace.hpp"
#include "replay/paraver_reader.hpp"

#include "simulator/global_options.hpp"
#include "simulator/warning_output.hpp"

namespace popsim::simulator {

LoadedProgram load_program(const std::string& path, const replay::ProgramOptions& options) {
    LoadedProgram loaded;
    if (path.ends_with(".dim")) {
        loaded.program = replay::read_dimemas_trace(path, options);
        return loaded;
    }
    loaded.trace = replay::read_paraver(path, read_options());
    loaded.program = replay::build_replay_program(*loaded.trace, options);
    // Spans with tracing off on every thread are left out of the replay, and of the real run.
    loaded.real_runtime = loaded.trace->end_time();
    for (const auto& [begin, end] : loaded.program.untraced) *loaded.real_runtime -= end - begin;
    loaded.warnings = loaded.trace->warnings;
    loaded.warnings.merge(loaded.program.warnings);
    print_warnings(path, loaded.warnings);
    return loaded;
}

} // namespace popsim::simulator

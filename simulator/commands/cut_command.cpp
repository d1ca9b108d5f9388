// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/console/diagnostics.hpp"
#include "pipeline/options/focus.hpp"
#include "pipeline/options/global_options.hpp"
#include "replay/focus/trace_cut.hpp"
#include "replay/focus/trace_window.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/trace_error.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/output_paths.hpp"
#include "simulator/reports/warning_output.hpp"

#include <fmt/format.h>
#include <iostream>
#include <optional>

namespace popsim::simulator {

// The commands run the pipeline's stages and show what they give.
using namespace pipeline;

namespace {

struct CutOptions {
    std::string trace;
    std::string output;
    FocusOptions focus;
    std::optional<std::size_t> number; // --instance or --phase, 1-based
};

/// The window to cut: the one --from/--to give, or instance/phase N.
replay::TimeWindow chosen_window(const FocusedTrace& f, const CutOptions& o) {
    const auto& parts = f.focus.parts;
    const char* option = f.focus.kind == TraceFocus::Kind::phases ? "--phase" : "--instance";
    if (f.focus.kind == TraceFocus::Kind::window) return parts[0].window;
    if (!o.number && parts.size() == 1) return parts[0].window;
    if (!o.number)
        throw replay::TraceError(f.trace.path, 0,
                                 fmt::format("{}: name the one to cut with {} N (1 to {})",
                                             f.focus.description, option, parts.size()));
    if (*o.number == 0 || *o.number > parts.size())
        throw replay::TraceError(f.trace.path, 0,
                                 fmt::format("{}: {} {} is not one of them (1 to {})",
                                             f.focus.description, option, *o.number, parts.size()));
    return parts[*o.number - 1].window;
}

void run_cut(const CutOptions& o) {
    check_output_paths({o.trace}, {{"-o", o.output, true}});
    if (!o.focus.any())
        throw std::invalid_argument("cut needs a window: --from/--to, --region or --phases");
    if (replay::is_otf2_anchor(o.trace))
        throw std::invalid_argument("cut copies a Paraver trace's records; an OTF2 archive is "
                                    "analysed in a window with analyze --from/--to instead");
    if (o.number && o.focus.region.empty() && o.focus.phases.empty())
        throw std::invalid_argument("--instance and --phase choose among --region's instances or "
                                    "--phases' phases");
    // The first pass reads the trace as analyze does (every check) and finds the window.
    const FocusedTrace focused = read_focused(o.trace, o.focus, read_options());
    print_warnings(o.trace, focused.trace.warnings);
    const replay::TimeWindow window = chosen_window(focused, o);
    // A --from/--to window was read alone, counting the collectives before it; the others have
    // the whole trace to count them in.
    const auto before = focused.focus.kind == TraceFocus::Kind::window
                            ? focused.trace.collectives_before_cut
                            : replay::collectives_before(focused.trace, window.from);
    const auto counts = replay::cut_paraver(o.trace, window, o.output, before);
    std::cout << fmt::format("wrote {} ({} records of [{}, {}) of {}, {} long) and its .pcf and "
                             ".row\n",
                             o.output, counts.records_written, replay::seconds(window.from),
                             replay::seconds(window.to), o.trace, replay::seconds(window.length()));
}

} // namespace

void add_cut_command(CLI::App& app) {
    auto options = std::make_shared<CutOptions>();
    auto* cmd = app.add_subcommand(
        "cut", "Write the part of a trace in a window, a region instance or a phase as a trace "
               "of its own (.prv, .pcf, .row) that popsim, Paraver and prv2dim read");
    add_trace_argument(cmd, options->trace);
    cmd->add_option("-o,--output", options->output, "The cut trace to write (.prv)")
        ->required()
        ->check(output_file_name());
    add_focus_options(cmd, options->focus);
    auto* instance = cmd->add_option("--instance", options->number,
                                     "With --region: the instance to cut (1 = the first)");
    auto* phase = cmd->add_option("--phase", options->number,
                                  "With --phases: the phase to cut (1 = the first)");
    instance->excludes(phase);
    cmd->callback([options] { run_cut(*options); });
}

} // namespace popsim::simulator

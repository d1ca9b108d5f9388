// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/commands/cli_app.hpp"

#include "pipeline/options/global_options.hpp"
#include "popsim/version.hpp"
#include "simulator/cli_suggestions.hpp"

namespace popsim::simulator {

void add_popsim_cli(CLI::App& app, pipeline::WorkDivision* division) {
    app.description(std::string("popsim: ") + k_popsim_summary);
    app.set_version_flag("--version", popsim::k_version);
    app.require_subcommand(1);
    add_global_options(app);
    add_analyze_command(app, division);
    add_synth_command(app);
    add_simulate_command(app, division);
    add_whatif_command(app, division);
    add_convert_command(app);
    add_cut_command(app);
    add_events_command(app);
    add_compare_command(app);
    refuse_options_as_values(app);
}

} // namespace popsim::simulator

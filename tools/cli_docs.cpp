// SPDX-License-Identifier: BSD-3-Clause
// Writes popsim's man page or bash completion from its command-line model, at build time.
// usage: popsim_cli_docs man|completion OUTPUT
#include "simulator/cli_docs.hpp"
#include "popsim/version.hpp"
#include "replay/output/output_file.hpp"
#include "simulator/commands/cli_app.hpp"

#include <iostream>
#include <string>

int main(int argc, char** argv) {
    using namespace popsim::simulator;
    const std::string what = argc == 3 ? argv[1] : "";
    if (what != "man" && what != "completion") {
        std::cerr << "usage: popsim_cli_docs man|completion OUTPUT\n";
        return 1;
    }
    CLI::App app{"", "popsim"};
    add_popsim_cli(app);
    popsim::replay::write_whole_file(argv[2], what == "man" ? man_page(app, popsim::k_version)
                                                            : bash_completion(app));
    return 0;
}

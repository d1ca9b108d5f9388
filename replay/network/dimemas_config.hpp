// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reads Dimemas configuration files (.cfg, SDDF records) and collectives files into
// DimemasParameters. Supported: one machine, the records Dimemas' own tools write for it (listed
// in docs/network-model.md). Anything else is a TraceError naming the file, line and field.
#include "replay/network/dimemas.hpp"

#include <string>
#include <vector>

namespace popsim::replay::network {

/// Reads `cfg_path`; a collectives file it names is read from the .cfg's directory.
DimemasParameters read_dimemas_config(const std::string& cfg_path);
/// The files a configuration consists of: `cfg_path` and the collectives file it names (read
/// whole to find it; throws as read_dimemas_config).
std::vector<std::string> dimemas_config_files(const std::string& cfg_path);

/// Reads "Machine globalop: MACHINE ID FANIN_MODEL FANIN_SIZE FANOUT_MODEL FANOUT_SIZE" lines.
void read_collectives_file(const std::string& path, DimemasParameters& parameters);

} // namespace popsim::replay::network

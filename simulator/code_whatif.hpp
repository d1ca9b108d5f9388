// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The code what-ifs `simulate` and `whatif` take beside the network (docs/network-model.md,
// "Code speed-ups"): --speedup SPEC=FACTOR makes the computation inside a code region FACTOR
// times faster. The regions are resolved against the trace, which is then read into memory.
#include "replay/program/code_speedup.hpp"
#include "simulator/focus.hpp"
#include "simulator/load_program.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace popsim::simulator {

struct SpeedupOption {
    std::string region;             // SPEC, as --region takes it
    std::vector<std::string> typed; // the factors as typed (one, or a swept list)
    std::vector<double> factors;    // each positive
    std::string text() const;       // "SPEC=F1,F2"
};

/// --speedup SPEC=FACTOR, repeatable; `sweep`: FACTOR may be a comma-separated list (whatif).
/// Bad syntax or factors are usage errors.
void add_speedup_option(CLI::App* cmd, std::vector<std::string>& values, bool sweep);
std::vector<SpeedupOption> parse_speedups(const std::vector<std::string>& values);

/// The speed-ups' regions resolved against one trace.
class CodeWhatif {
  public:
    /// Resolves each region from the names beside `path` (TraceError naming the .pcf); a .dim
    /// or an MPI call is refused.
    CodeWhatif(const std::string& path, std::vector<SpeedupOption> options);

    bool empty() const { return options_.empty(); }
    const std::vector<SpeedupOption>& options() const { return options_; }
    /// The event types to read the trace with.
    std::vector<std::uint32_t> event_types() const;
    /// Settles the regions in the program's trace, read in memory with event_types().
    void prepare(const LoadedProgram& loaded);
    /// The program's burst durations with region k `factors[k]` times faster (after prepare).
    replay::ProgramArray<Time> burst_durations(std::span<const double> factors) const;
    /// Per trace thread, `useful` (its Running time) with region k `factors[k]` times faster.
    std::vector<Time> useful(std::vector<Time> useful, std::span<const double> factors) const;
    /// "solve (60000019:3) 2x faster, ..." for the given factors, for reports; "x2,4" for the
    /// swept ones when none are given.
    std::string describe(std::span<const double> factors = {}) const;
    /// The regions for the JSON reports (schema: $defs/code), with their factors when given.
    nlohmann::json json(std::span<const double> factors = {}) const;

  private:
    std::vector<SpeedupOption> options_;
    std::vector<RegionResolution> resolutions_;
    std::vector<replay::EventSelector> regions_;
    const replay::Trace* trace_ = nullptr;
    std::optional<replay::CodeSpeedups> speedups_;
};

} // namespace popsim::simulator

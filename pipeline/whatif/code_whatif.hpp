// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The code what-ifs `simulate` and `whatif` take beside the network (docs/network-model.md,
// "Code speed-ups" and "Balanced computation"): --speedup SPEC=FACTOR makes the computation inside
// a code region FACTOR times faster, --balance shares each phase's computation equally among the
// threads. Both are found in the trace, which is then read into memory.
#include "metrics/trace_summary.hpp"
#include "pipeline/load_program.hpp"
#include "pipeline/options/focus.hpp"
#include "replay/program/code_speedup.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace popsim::pipeline {

struct SpeedupOption {
    std::string region;             // SPEC, as --region takes it
    std::vector<std::string> typed; // the factors as typed (one, or a swept list)
    std::vector<double> factors;    // each positive (+inf: the computation takes no time)
    bool from_config = false;       // a --config's "modules information"
    std::string text() const;       // "SPEC=F1,F2"
};

/// The "modules information" of the Dimemas configuration `config` (none when empty), as
/// speed-ups: Dimemas divides the module's bursts by its ratio (0: they take no time).
std::vector<SpeedupOption> config_modules(const std::string& config);

/// SPEC=FACTOR[,FACTOR...] split at its last '=' (names hold none, but may hold ','); bad syntax
/// or factors are std::invalid_argument.
SpeedupOption parse_speedup_option(const std::string& text);
std::vector<SpeedupOption> parse_speedups(const std::vector<std::string>& values);
/// --balance's region as CodeWhatif takes it: none, or the one REGION given.
std::vector<std::string> balanced_regions(const std::optional<std::string>& balance);

/// One configuration's change to the code: each --speedup's factor, and whether its computation
/// is balanced, all of it or one balanced region's.
struct CodeChange {
    std::vector<double> factors;
    bool balanced = false;
    std::optional<std::size_t> balance_region = std::nullopt; // into the balanced regions
    auto operator<=>(const CodeChange&) const = default;
};

/// The speed-ups' regions resolved against one trace, and its balancing.
class CodeWhatif {
  public:
    /// Resolves each region from the names beside `path` (TraceError naming the .pcf); a .dim
    /// or an MPI call is refused, as is `balance` on a .dim. `balanced_regions`: the regions
    /// (SPEC as --region's) whose computation alone a change may balance.
    CodeWhatif(const std::string& path, std::vector<SpeedupOption> options, bool balance,
               std::vector<std::string> balanced_regions = {},
               replay::RegionScope scope = replay::RegionScope::with_callees);

    /// Whether any configuration changes the code (the trace is then read into memory).
    bool empty() const { return options_.empty() && !balance_; }
    /// The change that leaves the code as traced.
    CodeChange as_traced() const { return {std::vector<double>(options_.size(), 1.0), false}; }
    const std::vector<SpeedupOption>& options() const { return options_; }
    /// The event types to read the trace with.
    std::vector<std::uint32_t> event_types() const;
    /// Settles the regions in the program's trace, read in memory with event_types().
    void prepare(const LoadedProgram& loaded);
    /// The same for `program`, built from `trace` (both outlive this).
    void prepare(const replay::Trace& trace, const replay::ReplayProgram& program);
    /// The program's burst durations, as traced when prepared, with `change` made: the regions
    /// sped up, then the computation balanced; in ns with their fractions, for
    /// replay::EngineOptions::burst_durations.
    replay::ProgramArray<double> burst_durations(const CodeChange& change) const;
    /// The average and the largest of the threads' useful time in `summary` (the traced run's, as
    /// analyze counts it) with `change` made: the Running time inside each region sped up, then
    /// what balancing adds to or takes from the thread's bursts. `durations`: burst_durations
    /// (change), which the caller replays.
    std::pair<double, double> useful_spread(metrics::TraceSummary summary, const CodeChange& change,
                                            const replay::ProgramArray<double>& durations) const;
    /// "solve (60000019:3) 2x faster, balanced" for `change`, for reports; with none, the
    /// factors as typed ("x2,4") and "balanced or not" for whatif's sweep.
    std::string describe(const std::optional<CodeChange>& change = std::nullopt) const;
    /// Region k as found in the trace ("User function solve (60000019:3)"), after prepare.
    const std::string& region_name(std::size_t k) const { return regions_[k].description; }
    /// Balanced region k, as found in the trace.
    const std::string& balanced_region_name(std::size_t k) const {
        return regions_[options_.size() + k].description;
    }
    /// The regions for the JSON reports (schema: $defs/code), with their factors when given.
    nlohmann::json json(std::span<const double> factors = {}) const;

  private:
    /// Per trace thread, `useful` (its Running time) with `change` made (useful_spread).
    std::vector<Time> useful(std::vector<Time> useful, const CodeChange& change,
                             const replay::ProgramArray<double>& durations) const;
    /// The factors of `change` for every region: the speed-ups', then 1 for the balanced ones.
    std::vector<double> all_factors(const CodeChange& change) const;

    std::vector<SpeedupOption> options_;
    std::vector<std::string> balanced_regions_;
    std::vector<RegionResolution> resolutions_; // the speed-ups', then the balanced regions
    std::vector<replay::EventSelector> regions_;
    bool balance_ = false;
    replay::RegionScope scope_;
    const replay::Trace* trace_ = nullptr;
    const replay::ReplayProgram* program_ = nullptr;
    replay::ProgramArray<Time> traced_;                 // the program's burst durations, as traced
    std::function<bool(replay::OpIndex)> ends_startup_; // MPI_Init's barrier
    std::optional<replay::CodeSpeedups> speedups_;
};

} // namespace popsim::pipeline

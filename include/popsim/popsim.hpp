// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// popsim as a library: the POP efficiency metrics of Paraver traces and their replay on ideal and
// Dimemas-style networks, computed exactly as `popsim analyze`, `simulate` and `whatif` compute
// them. docs/library.md shows a client; CMake: find_package(popsim) and popsim::popsim.
//
// Calls run one at a time (each uses every core); warnings are not printed but listed in each
// report's "warnings".
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace popsim {

/// The library's version, as `popsim --version` prints it.
std::string version();

/// A command's options by their long names without the dashes, as `popsim COMMAND --help` and
/// `man popsim` list them: {{"model", "openmp"}, {"from", "2s"}}. A flag takes an empty value
/// ({"no-replay", ""}); whatif's swept options take lists ({"latency", "1us,10us"}). The global
/// options (app, strict, allow-truncated, max-memory) are taken too. Options that name files
/// (csv, json, html, output, ...) write them, as the command does.
using Options = std::vector<std::pair<std::string, std::string>>;

/// Why a call failed; what() is the message the program prints after "popsim: error: ".
class Error : public std::runtime_error {
  public:
    enum class Kind {
        usage,     // an option or value the command does not take (the program's exit status 1)
        bad_input, // a trace, configuration or description that cannot be used (2)
        failure,   // anything else, e.g. out of memory (3)
    };
    Error(Kind kind, const std::string& message);
    Kind kind() const noexcept { return kind_; }

  private:
    Kind kind_;
};

/// One row of a metric table: a metric of every run.
struct Metric {
    std::string key;   // as in the JSON report: "parallel_efficiency", "runtime_ns"
    std::string label; // as printed: "Parallel efficiency", "Runtime (s)"
    int level = 0;     // depth in the hierarchy: 0 for Global efficiency, 1 for its factors, ...
    std::string unit;  // "fraction" (efficiencies), "number" (speed-up, IPC, GHz), "ns", "count"
    std::vector<std::optional<double>> values; // one per run; none where undefined (0 / 0)
};

/// The table `popsim analyze` prints: the model it shows, one column per run.
struct MetricTable {
    std::string model;                // "mpi", "additive", "openmp", "hybrid-additive", ...
    std::string description;          // "Model: MPI, multiplicative (modelfactors)", ...
    std::string column_title;         // "Number of processes", "Threads", ...
    std::vector<std::string> columns; // one per run: "4", or "2x8" (processes x threads)
    std::vector<Metric> metrics;      // efficiencies and scalings, in the hierarchy's order
    std::vector<Metric> raw;          // runtimes, useful times, instructions, IPC, frequency
    /// The table as `analyze --html` shows it, coloured on the POP scale with inline styles.
    std::string html;
};

struct Analysis {
    MetricTable table;
    /// Every number of every model per run, rank and thread: what `analyze --json` writes
    /// (schema popsim/1, docs/popsim-1.schema.json).
    std::string json;
};

/// `popsim analyze TRACES OPTIONS`: reads the traces (.prv, .prv.gz, or folders of them; one
/// per run of a scaling series), replays each on the ideal network and computes the POP metrics.
Analysis analyze(const std::vector<std::string>& traces, const Options& options = {});

/// `popsim simulate TRACE OPTIONS`: replays the trace (.prv, .prv.gz or .dim) on a network and
/// returns what --json writes (predicted_runtime_ns, per thread); {"output", "x.prv"} writes the
/// simulated trace.
std::string simulate(const std::string& trace, const Options& options = {});

/// `popsim whatif TRACE OPTIONS`: predicts the runtime and efficiencies on every network of the
/// cross product of the swept options; returns what --json writes (one entry per configuration).
std::string whatif(const std::string& trace, const Options& options);

} // namespace popsim

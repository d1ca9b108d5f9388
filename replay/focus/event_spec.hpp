// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What `--region` and `--phases` name: an Extrae event type and the values that mark it, given as
// numbers or as names from the .pcf ("60000019:12", "Iteration", "solve*", "MPI_Allreduce", and
// "60000018:Compute*" where one list of names serves several types).
#include "replay/trace.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::replay {

struct EventSelector {
    std::uint32_t type = 0;
    std::vector<std::uint64_t> values; // sorted; empty = every value but 0
    std::string description;           // for reports: "User function solve (60000019:12)"

    bool selects(std::uint64_t value) const;
};

/// A specification that names nothing, or several event types.
class BadEventSpec : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
    BadEventSpec(const std::string& what, std::vector<std::uint32_t> types)
        : std::invalid_argument(what), types_(std::move(types)) {}
    /// When a name fits values of several types: those types (the trace may hold only one).
    const std::vector<std::uint32_t>& types() const { return types_; }

  private:
    std::vector<std::uint32_t> types_;
};

/// What is wrong with SPEC whatever the trace ("60000019:0", ""), or "": checked as the command
/// line is read, before any trace.
std::string event_spec_syntax_error(std::string_view spec);

/// Resolves SPEC: "TYPE" (every value but 0), "TYPE:VALUE", "TYPE:NAME" or NAME, names with
/// optional * and ? wildcards, case-insensitive: of an event type in the .pcf (every value but
/// 0), else of values of one event type (a user function, an MPI call). Throws BadEventSpec with
/// the nearest names.
EventSelector resolve_event_spec(std::string_view spec, const TraceLabels& labels);

} // namespace popsim::replay

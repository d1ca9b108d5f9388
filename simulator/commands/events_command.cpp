// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/console/diagnostics.hpp"
#include "pipeline/options/global_options.hpp"
#include "replay/focus/event_inventory.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_labels.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/input/timeline_observer.hpp"
#include "replay/warnings.hpp"
#include "simulator/commands/commands.hpp"
#include "simulator/reports/terminal_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <iostream>

namespace popsim::simulator {

// The commands run the pipeline's stages and show what they give.
using namespace pipeline;

namespace {

struct EventsOptions {
    std::string trace;
    bool all_values = false;
};

std::string name_of(std::uint32_t type, const replay::TraceLabels& labels) {
    for (const auto& [t, name] : labels.event_types)
        if (t == type) return name;
    return "";
}

std::string value_name(std::uint32_t type, std::uint64_t value, const replay::TraceLabels& labels) {
    const auto* name = labels.value_name(type, value);
    return name ? *name : std::to_string(value);
}

/// The most frequent values with their names: "solve (400), init (8), 3 more".
std::string value_summary(const replay::EventTypeCount& c, const replay::TraceLabels& labels,
                          std::size_t shown) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranked(c.values.begin(), c.values.end());
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (std::size_t i = 0; i < ranked.size() && i < shown; ++i) {
        out += fmt::format("{}{}:{} {} ({})", i ? ", " : "", c.type, ranked[i].first,
                           value_name(c.type, ranked[i].first, labels), ranked[i].second);
    }
    if (ranked.size() > shown || c.more_values)
        out += fmt::format(", {}{} more", c.more_values ? "over " : "", ranked.size() - shown);
    return out;
}

/// An OTF2 archive's event records per kind, over all its locations and per location.
void list_otf2_records(const std::string& anchor) {
    const auto locations = replay::Otf2Archive(anchor).record_counts();
    std::map<std::string_view, std::uint64_t> kinds;
    for (const auto& l : locations)
        for (const auto& [kind, count] : l.records) kinds[kind] += count;
    std::cout << fmt::format("{:<34} {:>11}\n", "OTF2 record", "occurrences");
    for (const auto& [kind, count] : kinds)
        std::cout << fmt::format("{:<34} {:>11}\n", kind, count);
    std::cout << "\nper location (OTF2 reference, name): records per kind\n";
    for (const auto& l : locations) {
        std::vector<std::string> records;
        for (const auto& [kind, count] : l.records)
            records.push_back(fmt::format("{}={}", kind, count));
        std::cout << fmt::format("{:>12} {}: {}\n", l.location, l.name, fmt::join(records, " "));
    }
}

/// Keeps nothing: the reader's pass that checks a trace as analyze does.
class CheckOnly final : public replay::TimelineObserver {
  public:
    void entered(replay::ThreadIndex, Time, std::uint16_t) override {}
    void state(replay::ThreadIndex, Time, Time, std::uint8_t) override {}
    void call(replay::ThreadIndex, const replay::ObservedCall&) override {}
    void event(replay::ThreadIndex, Time, std::uint32_t, std::uint64_t) override {}
    void comm(replay::ThreadIndex, replay::ThreadIndex, const replay::CommRecord&,
              std::uint64_t) override {}
    void reached(Time) override {}
};

void run_events(const EventsOptions& o) {
    if (replay::is_otf2_anchor(o.trace)) return list_otf2_records(o.trace);
    // The trace is read as analyze reads it first (every check, --app, its warnings): a listing
    // of a trace popsim refuses would pass it as one it reads.
    CheckOnly check;
    auto read = read_options();
    read.read_labels = false; // read below, for the names
    const auto checked = replay::stream_paraver(
        o.trace, read, [&](const replay::Trace&) -> auto& { return check; });
    print_warnings(o.trace, checked.warnings);
    const auto labels = replay::read_pcf_labels(replay::trace_base_name(o.trace));
    const auto counts = replay::event_inventory(o.trace);
    std::cout << fmt::format("{:>9} {:<40} {:>11} {:>7} {:>11}  values (type:value name (times))\n",
                             "type", "name", "occurrences", "values", "first (s)");
    std::vector<std::string> names;
    for (const auto& c : counts) names.push_back(name_of(c.type, labels));
    names = shortened_names(names, 40);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const auto& c = counts[i];
        if (c.occurrences == 0) continue; // only ever reset to 0 (a cutter's closing record)
        const std::string& name = names[i];
        const std::string values =
            c.values.empty() ? "-" : fmt::format("{}{}", c.values.size(), c.more_values ? "+" : "");
        std::cout << fmt::format("{:>9} {:<40} {:>11} {:>7} {:>11.6f}  {}\n", c.type, name,
                                 c.occurrences, values, static_cast<double>(c.first) / 1e9,
                                 value_summary(c, labels, o.all_values ? c.values.size() : 3));
    }
}

} // namespace

void add_events_command(CLI::App& app) {
    auto options = std::make_shared<EventsOptions>();
    auto* cmd = app.add_subcommand(
        "events", "List the event types a trace holds, how often each occurs and its most "
                  "frequent values, with the .pcf's names: what --region and --phases take");
    add_trace_argument(cmd, options->trace);
    cmd->add_flag("--all-values", options->all_values,
                  "List every value of each type, not the three most frequent");
    cmd->callback([options] { run_events(*options); });
}

} // namespace popsim::simulator

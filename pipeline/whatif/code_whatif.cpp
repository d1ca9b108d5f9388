// SPDX-License-Identifier: BSD-3-Clause
#include "pipeline/whatif/code_whatif.hpp"

#include "pipeline/options/units.hpp"
#include "replay/extrae_events.hpp"
#include "replay/network/dimemas_config.hpp"
#include "replay/program/balanced_computation.hpp"
#include "replay/program/mpi_calls.hpp"
#include "replay/trace_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>

namespace popsim::pipeline {

namespace {

constexpr std::uint8_t k_running = 1; // Paraver's Running state: useful computation

} // namespace

SpeedupOption parse_speedup_option(const std::string& text) {
    const auto equals = text.rfind('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
        throw std::invalid_argument(
            fmt::format("'{}' is not REGION=FACTOR (e.g. 'solve*=2', 60000019:12=1.5)", text));
    }
    SpeedupOption o{.region = text.substr(0, equals), .typed = {}, .factors = {}};
    if (const auto error = replay::event_spec_syntax_error(o.region); !error.empty())
        throw std::invalid_argument(error);
    o.typed = split_list(text.substr(equals + 1));
    for (const auto& f : o.typed) o.factors.push_back(parse_speedup(f));
    return o;
}

std::string SpeedupOption::text() const {
    return fmt::format("{}={}", region, fmt::join(typed, ","));
}

std::vector<SpeedupOption> config_modules(const std::string& config) {
    std::vector<SpeedupOption> out;
    if (config.empty()) return out;
    for (const auto& m : replay::network::read_dimemas_config(config).modules) {
        out.push_back(
            {.region = fmt::format("{}:{}", m.type, m.value),
             .typed = {fmt::format("{:g}", m.ratio)},
             .factors = {m.ratio == 0 ? std::numeric_limits<double>::infinity() : m.ratio},
             .from_config = true});
    }
    return out;
}

std::vector<std::string> balanced_regions(const std::optional<std::string>& balance) {
    if (!balance || balance->empty()) return {};
    return {*balance};
}

std::vector<SpeedupOption> parse_speedups(const std::vector<std::string>& values) {
    std::vector<SpeedupOption> out;
    for (const auto& v : values) out.push_back(parse_speedup_option(v));
    return out;
}

CodeWhatif::CodeWhatif(const std::string& path, std::vector<SpeedupOption> options, bool balance,
                       std::vector<std::string> balanced_regions, replay::RegionScope scope)
    : options_(std::move(options)), balanced_regions_(std::move(balanced_regions)),
      balance_(balance), scope_(scope) {
    if (empty()) return;
    if (path.ends_with(".dim")) {
        throw replay::TraceError(
            path, 0,
            options_.empty() ? "--balance needs a Paraver trace or an OTF2 archive: a Dimemas "
                               "trace has no states for the useful time"
                             : "--speedup needs a Paraver trace or an OTF2 archive: a Dimemas "
                               "trace has no names for its code regions");
    }
    if (options_.size() + balanced_regions_.size() > 64)
        throw std::invalid_argument("more than 64 code regions at once");
    const auto resolve = [&](const char* option, const std::string& spec, const std::string& text) {
        resolutions_.push_back(resolve_region(path, option, spec));
        const auto& selector = resolutions_.back().selector;
        if (selector && replay::extrae::is_mpi_call_type(selector->type)) {
            throw replay::TraceError(path, 0,
                                     fmt::format("{} {}: {} is MPI, not computation (the "
                                                 "network options change MPI)",
                                                 option, text, selector->description));
        }
    };
    for (const auto& o : options_)
        resolve(o.from_config ? "--config modules information" : "--speedup", o.region, o.text());
    for (const auto& region : balanced_regions_) resolve("--balance", region, region);
}

std::vector<std::uint32_t> CodeWhatif::event_types() const {
    std::vector<std::uint32_t> out;
    for (const auto& r : resolutions_)
        for (const auto type : r.event_types()) out.push_back(type);
    return out;
}

void CodeWhatif::prepare(const LoadedProgram& loaded) {
    if (empty()) return;
    if (!loaded.trace) // load_program reads it in memory when asked
        throw std::logic_error("--speedup, --balance: the trace was not read into memory");
    prepare(*loaded.trace, loaded.program);
}

void CodeWhatif::prepare(const replay::Trace& trace, const replay::ReplayProgram& program) {
    trace_ = &trace;
    program_ = &program;
    traced_ = program.burst_durations;
    ends_startup_ = [trace = trace_, program = program_](replay::OpIndex op) {
        const std::uint32_t call = program->op_call[op];
        if (call == replay::k_none) return false; // an OpenMP fork or join
        const auto& t = trace->threads[program->trace_thread[program->thread_of(op)]];
        return replay::call_class(t.call_id[call]) == replay::CallClass::init;
    };
    if (resolutions_.empty()) return;
    for (const auto& r : resolutions_) regions_.push_back(settle_region(*trace_, r));
    speedups_.emplace(trace, program, regions_, scope_);
    for (std::size_t k = 0; k < regions_.size(); ++k) {
        // A typo's sweep would repeat the traced run; Dimemas ignores a module the trace lacks.
        const bool speedup = k < options_.size();
        if (speedups_->entered(k) || (speedup && options_[k].from_config)) continue;
        throw replay::TraceError(
            trace.path, 0,
            fmt::format("{} {}: no thread is ever inside {}", speedup ? "--speedup" : "--balance",
                        speedup ? options_[k].text() : balanced_regions_[k - options_.size()],
                        regions_[k].description));
    }
}

std::vector<double> CodeWhatif::all_factors(const CodeChange& change) const {
    auto out = change.factors;
    out.resize(regions_.size(), 1.0);
    return out;
}

namespace {

/// Each replay thread's computation: the sum of its bursts' `durations`.
std::vector<double> computation(const replay::ReplayProgram& p,
                                const replay::ProgramArray<double>& durations) {
    std::vector<double> out(p.thread_count(), 0);
    for (replay::ReplayThread th = 0; th < p.thread_count(); ++th)
        for (replay::OpIndex op = p.thread_first_op[th]; op < p.thread_end_op(th); ++op)
            if (p.op_kind[op] == replay::OpKind::burst) out[th] += durations[p.op_ref[op]];
    return out;
}

} // namespace

replay::ProgramArray<double> CodeWhatif::burst_durations(const CodeChange& change) const {
    const auto factors = all_factors(change);
    auto durations = speedups_ ? speedups_->burst_durations(traced_, factors)
                               : replay::ProgramArray<double>(traced_.begin(), traced_.end());
    if (!change.balanced) return durations;
    if (!change.balance_region) return replay::balanced_bursts(*program_, durations, ends_startup_);
    // The region's part of each burst: what the burst loses when the region takes no time.
    auto without = factors;
    without[options_.size() + *change.balance_region] = std::numeric_limits<double>::infinity();
    auto part = speedups_->burst_durations(traced_, without);
    for (std::size_t b = 0; b < part.size(); ++b) part[b] = durations[b] - part[b];
    return replay::balanced_bursts(*program_, durations, ends_startup_, &part);
}

std::vector<Time> CodeWhatif::useful(std::vector<Time> useful, const CodeChange& change,
                                     const replay::ProgramArray<double>& durations) const {
    const auto factors = all_factors(change);
    for (replay::ThreadIndex th = 0; speedups_ && th < useful.size(); ++th) {
        const auto& t = trace_->threads[th];
        double saved = 0;
        for (std::size_t i = 0; i < t.state_count(); ++i) {
            if (t.state_value[i] != k_running) continue;
            const Time begin = t.state_begin[i], end = t.state_end(i);
            saved += static_cast<double>(end - begin) - speedups_->sped_up(th, begin, end, factors);
        }
        useful[th] -= std::llround(saved);
    }
    if (!change.balanced) return useful;
    // Balancing moves computation between threads: what it adds or takes is useful time.
    const auto before = computation(*program_, burst_durations({change.factors, false}));
    const auto after = computation(*program_, durations);
    for (replay::ReplayThread th = 0; th < program_->thread_count(); ++th) {
        Time& u = useful[program_->trace_thread[th]];
        u = std::max<Time>(0, u + std::llround(after[th] - before[th]));
    }
    return useful;
}

std::pair<double, double>
CodeWhatif::useful_spread(metrics::TraceSummary summary, const CodeChange& change,
                          const replay::ProgramArray<double>& durations) const {
    summary.useful = useful(std::move(summary.useful), change, durations);
    return {summary.useful_average(), static_cast<double>(summary.useful_max())};
}

std::string CodeWhatif::describe(const std::optional<CodeChange>& change) const {
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < options_.size(); ++k) {
        parts.push_back(
            change ? fmt::format("{} {:g}x faster", regions_[k].description, change->factors[k])
                   : fmt::format("{} x{}", regions_[k].description,
                                 fmt::join(options_[k].typed, ",")));
    }
    const std::string what = balanced_regions_.empty()
                                 ? "computation"
                                 : fmt::format("computation of {}", balanced_region_name(0));
    if (change && change->balanced) {
        parts.push_back(change->balance_region
                            ? fmt::format("computation of {} balanced",
                                          balanced_region_name(*change->balance_region))
                            : "computation balanced");
    } else if (!change && balance_) {
        parts.push_back(what + " balanced or not");
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

nlohmann::json CodeWhatif::json(std::span<const double> factors) const {
    auto out = nlohmann::json::array();
    for (std::size_t k = 0; k < options_.size(); ++k) {
        out.push_back({{"region", options_[k].region}, {"name", regions_[k].description}});
        if (options_[k].from_config) out.back()["from_config"] = true;
        if (!factors.empty()) out.back()["factor"] = factors[k];
    }
    return out;
}

} // namespace popsim::pipeline

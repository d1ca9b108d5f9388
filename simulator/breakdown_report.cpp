#include "simulator/breakdown_report.hpp"

#include "metrics/ideal_replay.hpp"

#include <fmt/format.h>

namespace popsim::simulator {

std::string format_rank_breakdown(const metrics::TraceSummary& s, const TerminalStyle& style,
                                  std::size_t max_ranks) {
    const auto ranks = metrics::rank_breakdown(s);
    if (ranks.empty() || s.runtime == 0) return {}; // no runtime to take shares of
    const double runtime = static_cast<double>(s.runtime);
    auto share = [&](Time t) {
        const double f = static_cast<double>(t) / runtime;
        return style.fraction ? fmt::format("{:.4f}", f) : fmt::format("{:.2f}%", 100 * f);
    };
    std::string out =
        fmt::format("\nPer-rank breakdown of {} ({} rank{}, {} of the runtime)\n", s.path,
                    ranks.size(), ranks.size() == 1 ? "" : "s", style.fraction ? "fraction" : "%");
    out += fmt::format("{:>6} | {:>8} | {:>14} | {:>13} | {:>8}\n", "rank", "useful",
                       "load imbalance", "serialisation", "transfer");
    const std::size_t shown = std::min(ranks.size(), max_ranks);
    for (std::size_t r = 0; r < shown; ++r) {
        const auto& b = ranks[r];
        out += fmt::format("{:>6} | {:>8} | {:>14} | {:>13} | {:>8}\n", r + 1, share(b.useful),
                           share(b.load_imbalance), share(b.serialization), share(b.transfer));
    }
    if (shown < ranks.size())
        out +=
            fmt::format("  ... {} more ranks in the JSON output (--json)\n", ranks.size() - shown);
    return out;
}

} // namespace popsim::simulator

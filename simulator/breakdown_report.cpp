#include "simulator/breakdown_report.hpp"

#include "metrics/ideal_replay.hpp"

#include <fmt/format.h>

namespace popsim::simulator {

std::string format_rank_breakdown(const metrics::TraceSummary& s, std::size_t max_ranks) {
    const auto ranks = metrics::rank_breakdown(s);
    if (ranks.empty() || s.runtime == 0) return {}; // no runtime to take shares of
    const double runtime = static_cast<double>(s.runtime);
    auto pct = [runtime](Time t) { return 100.0 * static_cast<double>(t) / runtime; };
    std::string out = fmt::format("\nPer-rank breakdown of {} ({} ranks, % of the runtime)\n",
                                  s.path, ranks.size());
    out += fmt::format("{:>6} | {:>8} | {:>14} | {:>13} | {:>8}\n", "rank", "useful",
                       "load imbalance", "serialization", "transfer");
    const std::size_t shown = std::min(ranks.size(), max_ranks);
    for (std::size_t r = 0; r < shown; ++r) {
        const auto& b = ranks[r];
        out += fmt::format("{:>6} | {:>7.2f}% | {:>13.2f}% | {:>12.2f}% | {:>7.2f}%\n", r + 1,
                           pct(b.useful), pct(b.load_imbalance), pct(b.serialization),
                           pct(b.transfer));
    }
    if (shown < ranks.size())
        out +=
            fmt::format("  ... {} more ranks in the JSON output (--json)\n", ranks.size() - shown);
    return out;
}

} // namespace popsim::simulator

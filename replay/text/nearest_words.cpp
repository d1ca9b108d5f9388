// SPDX-License-Identifier: BSD-3-Clause
#include "replay/text/nearest_words.hpp"

#include "replay/text/ignoring_case.hpp"

#include <algorithm>

namespace popsim::replay {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0]++;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const bool same = same_letter(a[i - 1], b[j - 1]);
            const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + !same});
            diagonal = row[j];
            row[j] = next;
        }
    }
    return row[b.size()];
}

std::vector<std::string> nearest_words(std::string_view word,
                                       const std::vector<std::string>& candidates,
                                       std::size_t count, std::size_t within) {
    std::vector<std::pair<std::size_t, std::size_t>> ranked; // distance, candidate index
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const auto& c = candidates[i];
        const std::size_t d =
            std::min(edit_distance(word, c),
                     edit_distance(word, std::string_view(c).substr(0, word.size())) + 1);
        if (d <= within) ranked.emplace_back(d, i);
    }
    std::stable_sort(ranked.begin(), ranked.end());
    std::vector<std::string> out;
    for (const auto& [d, i] : ranked) {
        if (out.size() == count) break;
        if (std::find(out.begin(), out.end(), candidates[i]) == out.end())
            out.push_back(candidates[i]);
    }
    return out;
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// "Did you mean": the candidates closest to a word someone typed, for error messages (a .pcf name
// for --region, a command, an option, an option's value).
//
// Example:
//   popsim::replay::nearest_words("analyse", {"analyze", "synth", "simulate"});  // {"analyze"}
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::replay {

/// Levenshtein distance, ignoring ASCII case.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// At most `count` candidates nearest to `word` (closest first, then in the candidates' order):
/// by edit distance to the whole candidate or, one more, to its prefix of the word's length
/// ("solv" is near "solve_system"). With `within`, only those at most that far.
std::vector<std::string> nearest_words(std::string_view word,
                                       const std::vector<std::string>& candidates,
                                       std::size_t count = 3,
                                       std::size_t within = static_cast<std::size_t>(-1));

} // namespace popsim::replay

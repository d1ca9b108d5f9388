// SPDX-License-Identifier: BSD-3-Clause
#include "replay/text/ignoring_case.hpp"

#include <algorithm>
#include <cctype>

namespace popsim::replay {

bool same_letter(char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    return std::ranges::equal(a, b, same_letter);
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A syntax error found while parsing one line; the reader adds the file name and line number and
// rethrows it as TraceError.
#include <stdexcept>
#include <string>

namespace popsim::replay {

class ParseError : public std::runtime_error {
  public:
    explicit ParseError(const std::string& cause) : std::runtime_error(cause) {}
};

} // namespace popsim::replay

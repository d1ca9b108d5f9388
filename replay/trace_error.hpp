// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The one error type of the replay library: every bad input is reported as "file:line: cause".
#include <cstdint>
#include <stdexcept>
#include <string>

namespace popsim::replay {

class TraceError : public std::runtime_error {
  public:
    /// line 0 means "the file as a whole" (e.g. it cannot be opened); the message then omits it.
    TraceError(std::string file, std::uint64_t line, std::string cause);

    const std::string& file() const { return file_; }
    std::uint64_t line() const { return line_; }
    const std::string& cause() const { return cause_; }

  private:
    std::string file_;
    std::uint64_t line_;
    std::string cause_;
};

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/trace_error.hpp"

#include <fmt/format.h>

namespace popsim::replay {

namespace {
std::string format_message(const std::string& file, std::uint64_t line, const std::string& cause) {
    return line == 0 ? fmt::format("{}: {}", file, cause)
                     : fmt::format("{}:{}: {}", file, line, cause);
}
} // namespace

TraceError::TraceError(std::string file, std::uint64_t line, std::string cause)
    : std::runtime_error(format_message(file, line, cause)), file_(std::move(file)), line_(line),
      cause_(std::move(cause)) {}

} // namespace popsim::replay

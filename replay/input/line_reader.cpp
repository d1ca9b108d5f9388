// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/line_reader.hpp"

#include "replay/input/parse_error.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>

namespace popsim::replay {

bool LineReader::next(std::string_view& line) {
    for (;;) {
        const std::size_t nl = buffer_.find('\n', std::max(start_, scanned_));
        if (nl != std::string::npos || done_) {
            if (nl == std::string::npos && start_ == buffer_.size()) return false;
            const std::size_t end = nl == std::string::npos ? buffer_.size() : nl;
            line = std::string_view(buffer_).substr(start_, end - start_);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            start_ = nl == std::string::npos ? buffer_.size() : nl + 1;
            ++number_;
            return true;
        }
        if (buffer_.size() - start_ > k_max_line_bytes)
            throw TraceError(source_.path(), number_ + 1, k_line_too_long);
        buffer_.erase(0, start_);
        start_ = 0;
        scanned_ = buffer_.size();
        const std::size_t have = buffer_.size();
        buffer_.resize(have + k_block);
        const std::size_t n = source_.read(std::span<char>(buffer_.data() + have, k_block));
        buffer_.resize(have + n);
        done_ = n == 0;
    }
}

ParaverHeader read_header_line(LineReader& in) {
    std::string_view line;
    if (!in.next(line)) throw ParseError("empty file: no Paraver header");
    line = paraver_first_line(line);
    if (line == "new format" && !in.next(line)) throw ParseError("no Paraver header");
    return parse_paraver_header(line);
}

} // namespace popsim::replay

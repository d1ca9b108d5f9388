// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which pass read a trace: the streaming one, in memory bounded by the trace's width
// (docs/replay.md, "Streaming"), or the in-memory one; and the attempt at the first.
#include "replay/streaming/streaming_replay.hpp"

#include <filesystem>
#include <string>

namespace popsim::pipeline {

struct TracePass {
    bool streamed = false;
    std::string in_memory_because; // why not streamed (empty: streaming was not tried)
    std::uint32_t processes = 1;   // that read it: under mpirun, its reader and their helpers
};

/// Runs `stream`, a streaming pass over the trace at `path`, if the file can be read again should
/// the trace need the in-memory pass (a regular file, not a pipe). True when it ran; false when it
/// was not tried, or threw StreamingUnsupported, whose reason goes to `pass`.
template <class Stream>
bool try_streaming(const std::string& path, TracePass& pass, Stream&& stream) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) return false;
    try {
        stream();
    } catch (const replay::StreamingUnsupported& e) {
        pass.in_memory_because = e.what();
        return false;
    }
    pass.streamed = true;
    return true;
}

} // namespace popsim::pipeline

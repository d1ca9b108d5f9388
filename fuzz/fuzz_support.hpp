// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the fuzz targets share: inputs as in-memory files, so each costs no disk I/O, and the
// check that both ideal replays of a program agree.
#include "replay/engine/engine.hpp"
#include "replay/network/ideal.hpp"
#include "replay/program/dependency_graph.hpp"

#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace popsim::fuzz {

/// An in-memory file, so each input costs no disk I/O.
class MemoryFile {
  public:
    MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(memfd_create("fuzz.prv", 0)) {
        if (fd_ >= 0 && size > 0 && write(fd_, data, size) != static_cast<ssize_t>(size)) {
            close(fd_);
            fd_ = -1;
        }
    }
    ~MemoryFile() {
        if (fd_ >= 0) close(fd_);
    }
    bool ok() const { return fd_ >= 0; }
    std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

  private:
    int fd_;
};

/// Replays `program` with the event engine and by longest paths; traps when they disagree.
/// Deadlocks propagate (ReplayDeadlock) for the caller to accept.
inline void check_replays_agree(const replay::ReplayProgram& program) {
    replay::network::IdealNetwork ideal;
    const auto events = replay::replay_events(program, ideal);
    const auto longest =
        replay::replay_longest_path(program, replay::build_dependency_graph(program));
    if (events.runtime != longest.runtime) __builtin_trap();
}

} // namespace popsim::fuzz

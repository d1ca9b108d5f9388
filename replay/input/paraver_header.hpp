// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The Paraver header line: trace length, resources (nodes/CPUs), applications with their tasks and
// threads, and the communicator lines that follow it. Grammar: docs/file-formats.md.
#include "replay/time.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace popsim::replay {

struct TaskLayout {
    std::uint32_t threads = 1;
    std::uint32_t node = 0; // 1-based; 0 when the header has no resource information
};

struct ApplicationLayout {
    std::vector<TaskLayout> tasks;
};

/// A `c:` line: an intra-communicator and its member tasks (1-based, within `application`).
struct Communicator {
    std::uint32_t application = 1;
    std::uint64_t id = 0;
    std::vector<std::uint32_t> tasks;
};

struct ParaverHeader {
    std::string date;
    Time end_time = 0;       // ns
    Time ns_per_unit = 1;    // body times are multiplied by this to get ns
    std::string unit_suffix; // as written: "_ns", "_us", "_ms" or "" (microseconds)
    std::vector<std::uint32_t> cpus_per_node; // empty when the header says "0" (no resources)
    std::vector<ApplicationLayout> applications;
    std::uint32_t declared_communicators = 0;
    std::vector<Communicator> communicators;

    std::uint32_t total_cpus() const;
    std::uint64_t total_threads() const;
};

/// A header's threads numbered densely in order (application, task, thread), as the trace model
/// numbers them: the number of each task's first thread.
class ThreadNumbering {
  public:
    explicit ThreadNumbering(const ParaverHeader& header);
    /// Of a thread the header declares (1-based application, task and thread).
    std::uint32_t number(std::uint32_t application, std::uint32_t task,
                         std::uint32_t thread) const {
        return first_[application - 1][task - 1] + thread - 1;
    }
    /// The same, or nullopt for a thread the header does not declare.
    std::optional<std::uint32_t> find(std::uint32_t application, std::uint32_t task,
                                      std::uint32_t thread) const;

  private:
    // [application][task], and after each application's last task the number after its threads
    std::vector<std::vector<std::uint32_t>> first_;
};

/// Parses the header line. Throws ParseError (a cause without file/line) on a malformed header.
ParaverHeader parse_paraver_header(std::string_view line);

/// Parses a `c:` communicator line (also `C:`). Throws ParseError.
/// The first line of a file read as a Paraver trace, without a UTF-8 byte-order mark; a
/// ParseError naming what the file is instead when its first bytes say so (an executable,
/// bzip2, xz, zstd or zip data, binary data).
std::string_view paraver_first_line(std::string_view line);
Communicator parse_communicator_line(std::string_view line);
/// Adds `c` to a header's communicators; a second line of the same application and id is the same
/// communicator again (harmless) or a ParseError when it names other tasks (the readers would take
/// one or the other: one input, one verdict).
void add_communicator(std::vector<Communicator>& communicators, Communicator c);

} // namespace popsim::replay

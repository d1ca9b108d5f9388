// SPDX-License-Identifier: BSD-3-Clause
#include "replay/engine/replay_result.hpp"

#include <algorithm>

namespace popsim::replay {

Time ReplayResult::max_useful(const ReplayProgram& program) const {
    Time m = 0;
    for (std::uint32_t t = 0; t < program.tasks; ++t)
        m = std::max(m, task(program, t).outside_mpi());
    return m;
}

} // namespace popsim::replay

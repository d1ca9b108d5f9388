#include "replay/engine/replay_result.hpp"

#include <algorithm>

namespace popsim::replay {

Time ReplayResult::max_useful() const {
    Time m = 0;
    for (const auto& t : tasks) m = std::max(m, t.useful);
    return m;
}

} // namespace popsim::replay

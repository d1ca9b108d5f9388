// SPDX-License-Identifier: BSD-3-Clause
#include "replay/engine/whole_program.hpp"

namespace popsim::replay::engine {

WholeProgram::WholeProgram(const ReplayProgram& p) : p_(p) {
    member_threads_.reserve(p.collective_members.size());
    for (const OpIndex member : p.collective_members)
        member_threads_.push_back(p.thread_of(member));
}

} // namespace popsim::replay::engine

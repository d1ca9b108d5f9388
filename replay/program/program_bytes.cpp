// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/program_bytes.hpp"

#include "replay/bytes.hpp"

#include <stdexcept>

namespace popsim::replay {

namespace {

/// Every array of the program, in one order for writing and reading.
template <class Program, class Visit> void each_array(Program& p, Visit&& visit) {
    visit(p.thread_task);
    visit(p.trace_thread);
    visit(p.task_first_thread);
    visit(p.thread_first_op);
    visit(p.op_kind);
    visit(p.op_ref);
    visit(p.op_call);
    visit(p.burst_durations);
    visit(p.messages);
    visit(p.wait_first);
    visit(p.wait_messages);
    visit(p.collectives);
    visit(p.collective_members);
}

} // namespace

void program_to_bytes(const ReplayProgram& program, std::string& out) {
    // Sized first: a program is hundreds of MB, which a growing string would copy and hold twice.
    std::size_t size =
        sizeof program.tasks + sizeof(std::uint64_t) + program.untraced.size() * 2 * sizeof(Time);
    each_array(program,
               [&](const auto& a) { size += sizeof(std::uint64_t) + a.size() * sizeof(a[0]); });
    out.reserve(out.size() + size);
    ByteWriter writer(out);
    writer.value(program.tasks);
    each_array(program, [&](const auto& a) { writer.array(a); });
    writer.value(static_cast<std::uint64_t>(program.untraced.size())); // (pairs: one by one)
    for (const auto& [begin, end] : program.untraced) {
        writer.value(begin);
        writer.value(end);
    }
}

ReplayProgram program_from_bytes(std::string_view bytes) {
    ReplayProgram program;
    ByteReader reader(bytes);
    reader.value(program.tasks);
    each_array(program, [&](auto& a) { reader.array(a); });
    for (auto n = reader.count(2 * sizeof(Time)); n > 0; --n) {
        const auto begin = reader.value<Time>();
        program.untraced.emplace_back(begin, reader.value<Time>());
    }
    if (!reader.done()) throw std::invalid_argument("a replay program's bytes run on past its end");
    return program;
}

} // namespace popsim::replay

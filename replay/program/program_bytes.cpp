// SPDX-License-Identifier: BSD-3-Clause
#include "replay/program/program_bytes.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

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

class Writer {
  public:
    explicit Writer(std::string& out) : out_(out) {}
    void value(const auto& v) { bytes(&v, sizeof v); }
    template <class Array> void operator()(const Array& a) {
        static_assert(std::is_trivially_copyable_v<typename Array::value_type>);
        value(static_cast<std::uint64_t>(a.size()));
        bytes(a.data(), a.size() * sizeof(typename Array::value_type));
    }

  private:
    void bytes(const void* data, std::size_t size) {
        out_.append(static_cast<const char*>(data), size);
    }
    std::string& out_;
};

class Reader {
  public:
    explicit Reader(std::string_view in) : in_(in) {}
    template <class T> void value(T& v) { bytes(&v, sizeof v); }
    template <class Array> void operator()(Array& a) {
        using T = typename Array::value_type;
        std::uint64_t size = 0;
        value(size);
        if (size > in_.size() / sizeof(T)) cut_short();
        a.resize(size);
        bytes(a.data(), size * sizeof(T));
    }
    bool done() const { return in_.empty(); }

  private:
    void bytes(void* data, std::size_t size) {
        if (size > in_.size()) cut_short();
        if (size > 0) std::memcpy(data, in_.data(), size);
        in_.remove_prefix(size);
    }
    [[noreturn]] static void cut_short() {
        throw std::invalid_argument("a replay program's bytes are cut short");
    }
    std::string_view in_;
};

} // namespace

void program_to_bytes(const ReplayProgram& program, std::string& out) {
    // Sized first: a program is hundreds of MB, which a growing string would copy and hold twice.
    std::size_t size =
        sizeof program.tasks + sizeof(std::uint64_t) * (1 + 2 * program.untraced.size());
    each_array(program,
               [&](const auto& a) { size += sizeof(std::uint64_t) + a.size() * sizeof(a[0]); });
    out.reserve(out.size() + size);
    Writer writer(out);
    writer.value(program.tasks);
    each_array(program, writer);
    std::vector<Time> untraced; // (std::pair is not trivially copyable)
    for (const auto& [begin, end] : program.untraced) untraced.insert(untraced.end(), {begin, end});
    writer(untraced);
}

ReplayProgram program_from_bytes(std::string_view bytes) {
    ReplayProgram program;
    Reader reader(bytes);
    reader.value(program.tasks);
    each_array(program, reader);
    std::vector<Time> untraced;
    reader(untraced);
    if (untraced.size() % 2 != 0) throw std::invalid_argument("a replay program's bytes are odd");
    for (std::size_t i = 0; i < untraced.size(); i += 2)
        program.untraced.emplace_back(untraced[i], untraced[i + 1]);
    if (!reader.done()) throw std::invalid_argument("a replay program's bytes run on past its end");
    return program;
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Values and arrays as bytes, to hand them between the processes of one MPI run (one build, one
// kind of machine): each value's bytes as the process holds them, each array as its length and
// then its elements'. A reader refuses bytes cut short (std::invalid_argument), never reading past
// their end. Used by the replay program's bytes and an OTF2 helper's answers.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace popsim::replay {

class ByteWriter {
  public:
    explicit ByteWriter(std::string& out) : out_(out) {}
    template <class T> void value(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    /// An array of trivially copyable elements: its length, then their bytes.
    template <class Array> void array(const Array& a) {
        static_assert(std::is_trivially_copyable_v<typename Array::value_type>);
        value(static_cast<std::uint64_t>(a.size()));
        out_.append(reinterpret_cast<const char*>(a.data()),
                    a.size() * sizeof(typename Array::value_type));
    }
    void text(std::string_view s) { array(s); }

  private:
    std::string& out_;
};

class ByteReader {
  public:
    explicit ByteReader(std::string_view in) : in_(in) {}
    template <class T> void value(T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes(&v, sizeof v);
    }
    template <class T> T value() {
        T v{};
        value(v);
        return v;
    }
    /// An array ByteWriter::array wrote, into `a` (a vector or a string).
    template <class Array> void array(Array& a) {
        using T = typename Array::value_type;
        const auto size = value<std::uint64_t>();
        if (size > in_.size() / sizeof(T)) cut_short();
        a.resize(size);
        bytes(a.data(), size * sizeof(T));
    }
    /// A count of elements written one by one, each at least `min_bytes` long: refused before
    /// anything is allocated when the bytes left cannot hold them.
    std::uint64_t count(std::size_t min_bytes) {
        const auto n = value<std::uint64_t>();
        if (n > in_.size() / min_bytes) cut_short();
        return n;
    }
    bool done() const { return in_.empty(); }
    /// The bytes not read yet (what another reader reads on).
    std::string_view rest() const { return in_; }

  private:
    void bytes(void* data, std::size_t size) {
        if (size > in_.size()) cut_short();
        if (size > 0) std::memcpy(data, in_.data(), size);
        in_.remove_prefix(size);
    }
    [[noreturn]] static void cut_short() { throw std::invalid_argument("bytes cut short"); }
    std::string_view in_;
};

} // namespace popsim::replay

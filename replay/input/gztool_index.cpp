// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/gztool_index.hpp"

#include "replay/input/byte_source.hpp"
#include "replay/read_at.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <isa-l/igzip_lib.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace popsim::replay {

namespace {

constexpr std::size_t k_window = 32 << 10; // deflate's window: what a block may refer back to
constexpr std::size_t k_input = 64 << 10;  // compressed bytes read at once
constexpr std::string_view k_rebuild = "delete it and run gztool -i again";
constexpr std::string_view k_rebuild_index = "delete its gztool index and run gztool -i again";

constexpr std::array<unsigned char, 2> k_gzip_magic{0x1f, 0x8b};

/// The magic of each version, after 8 zero bytes (a bgzip index starts with its count instead).
constexpr std::string_view k_version0 = "gzipindx", k_version1 = "gzipindX";

/// A file descriptor closed with its owner.
struct File {
    int fd = -1;
    File(const std::string& path, const std::string& what) : fd(open(path.c_str(), O_RDONLY)) {
        if (fd < 0)
            throw TraceError(path, 0,
                             fmt::format("cannot open {}: {}", what, std::strerror(errno)));
    }
    ~File() { close(fd); }
    File(const File&) = delete;
    File& operator=(const File&) = delete;
};

/// `bytes` bytes at `offset`, all of them, or a TraceError naming `path`.
void read_exactly(const File& file, const std::string& path, void* into, std::size_t bytes,
                  std::uint64_t offset, std::string_view what) {
    const auto got = read_at(file.fd, into, bytes, offset);
    if (!got) throw TraceError(path, 0, std::strerror(errno));
    if (*got != bytes)
        throw TraceError(path, 0, fmt::format("ends inside {} (byte {})", what, offset));
}

/// Big-endian numbers read one after another from the index.
class IndexReader {
  public:
    explicit IndexReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
        if (!in_) throw TraceError(path, 0, "cannot open the gztool index");
    }
    template <class T> T number(std::string_view what) {
        std::array<unsigned char, sizeof(T)> bytes{};
        if (!in_.read(reinterpret_cast<char*>(bytes.data()), bytes.size()))
            throw TraceError(path_, 0, fmt::format("ends inside {}: {}", what, k_rebuild));
        T value = 0;
        for (const auto b : bytes) value = static_cast<T>((value << 8) | b);
        return value;
    }
    std::string text(std::size_t bytes) {
        std::string s(bytes, '\0');
        in_.read(s.data(), static_cast<std::streamsize>(bytes));
        s.resize(static_cast<std::size_t>(in_.gcount()));
        return s;
    }
    std::uint64_t at() { return static_cast<std::uint64_t>(in_.tellg()); }
    void skip(std::uint64_t bytes) { in_.seekg(static_cast<std::streamoff>(bytes), std::ios::cur); }

  private:
    std::string path_;
    std::ifstream in_;
};

void check_point(const GztoolIndex& index, const RestartPoint& p, std::uint64_t number,
                 std::uint64_t file_size) {
    const auto fail = [&](std::string_view cause) {
        throw TraceError(index.path, 0,
                         fmt::format("restart point {} (text byte {}, file byte {}) {}: {}", number,
                                     p.text, p.compressed, cause, k_rebuild));
    };
    if (index.points.empty() && p.text != 0) fail("is the first, but not at the text's start");
    if (p.bits > 7 || (p.bits > 0 && p.compressed == 0)) fail("has a bit offset out of range");
    if (p.compressed > file_size)
        fail(fmt::format("lies past the end of its gzip file ({} bytes)", file_size));
    if (p.window_bytes > compressBound(k_window)) fail("has a window larger than deflate's");
    if (!index.points.empty() &&
        (p.text <= index.points.back().text || p.compressed <= index.points.back().compressed))
        fail("does not follow the one before it");
}

} // namespace

std::string gztool_index_path(const std::string& path) {
    return (path.ends_with(".gz") ? path.substr(0, path.size() - 3) : path) + ".gzi";
}

bool is_gztool_index(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<char, 16> head{};
    if (!in.read(head.data(), head.size())) return false;
    const std::string_view magic(head.data() + 8, 8);
    return std::all_of(head.begin(), head.begin() + 8, [](char c) { return c == 0; }) &&
           (magic == k_version0 || magic == k_version1);
}

GztoolIndex read_gztool_index(const std::string& index_path, std::uint64_t file_size) {
    GztoolIndex index{.path = index_path, .points = {}, .text_size = 0};
    IndexReader in(index_path);
    in.number<std::uint64_t>("its header");
    const std::string magic = in.text(8);
    if (magic != k_version0 && magic != k_version1)
        throw TraceError(index_path, 0, "not a gztool index (no \"gzipindx\" after 8 zero bytes)");
    const bool lines = magic == k_version1;
    if (lines) in.number<std::uint32_t>("its header");
    const auto have = in.number<std::uint64_t>("its header");
    const auto size = in.number<std::uint64_t>("its header");
    if (have != size || have == 0)
        throw TraceError(index_path, 0,
                         fmt::format("incomplete: {} restart points of {} (gztool was stopped, "
                                     "or its gzip file was still growing): {}",
                                     have, size == UINT64_MAX ? "unknown" : std::to_string(size),
                                     k_rebuild));
    for (std::uint64_t i = 0; i < have; ++i) {
        RestartPoint p;
        p.text = in.number<std::uint64_t>("a restart point");
        p.compressed = in.number<std::uint64_t>("a restart point");
        p.bits = in.number<std::uint32_t>("a restart point");
        p.window_bytes = in.number<std::uint32_t>("a restart point");
        p.window_at = in.at();
        in.skip(p.window_bytes);
        if (lines) in.number<std::uint64_t>("a restart point");
        check_point(index, p, i + 1, file_size);
        index.points.push_back(p);
    }
    index.text_size = in.number<std::uint64_t>("its end (the text's size)");
    if (index.text_size < index.points.back().text)
        throw TraceError(index_path, 0,
                         fmt::format("gives a text of {} bytes, before its last restart point: {}",
                                     index.text_size, k_rebuild));
    return index;
}

// ISA-L's inflate, as ByteSource's (2-3x zlib's speed), started at the point's bit with its window;
// the members after the point's are ByteSource's.
struct RestartedText::Impl {
    std::string trace;
    File file;
    inflate_state state{};
    std::unique_ptr<ByteSource> next_members; // once the point's member has ended
    bool done = false;
    std::uint64_t file_at = 0; // the next compressed byte to read into `input`
    std::vector<std::uint8_t> input = std::vector<std::uint8_t>(k_input);

    Impl(const std::string& path, const GztoolIndex& index, const RestartPoint& point)
        : trace(path), file(path, "the gzip file"), file_at(point.compressed) {
        std::array<unsigned char, k_window> window{};
        uLongf window_size = 0;
        if (point.window_bytes > 0) {
            const File index_file(index.path, "the gztool index");
            std::vector<unsigned char> packed(point.window_bytes);
            read_exactly(index_file, index.path, packed.data(), packed.size(), point.window_at,
                         "a window");
            window_size = window.size();
            if (uncompress(window.data(), &window_size, packed.data(), packed.size()) != Z_OK)
                throw TraceError(index.path, 0,
                                 fmt::format("the window of the restart point at text byte {} "
                                             "is not zlib data: {}",
                                             point.text, k_rebuild));
        }
        std::array<unsigned char, 2> head{};
        if (point.bits == 0 && window_size == 0 &&
            read_at(file.fd, head.data(), 2, point.compressed) == 2 && head == k_gzip_magic) {
            next_members = std::make_unique<ByteSource>(path, point.compressed); // a member's start
            return;
        }
        isal_inflate_init(&state);
        state.crc_flag = ISAL_DEFLATE; // raw: the point lies inside a member
        if (point.bits > 0) {          // the bits of the byte before it that are the point's
            unsigned char byte = 0;
            read_exactly(file, trace, &byte, 1, point.compressed - 1, "its compressed data");
            state.read_in = byte >> (8 - point.bits);
            state.read_in_length = static_cast<std::int32_t>(point.bits);
        }
        if (window_size > 0 &&
            isal_inflate_set_dict(&state, window.data(), static_cast<std::uint32_t>(window_size)) !=
                COMP_OK)
            throw std::bad_alloc();
    }

    /// The point's member has ended: the members after its trailer (CRC and size), if any.
    void next_member() {
        // ISA-L may have read whole bytes past the member's end into its bit buffer.
        const std::uint64_t end =
            file_at - state.avail_in - static_cast<std::uint64_t>(state.read_in_length / 8);
        std::array<unsigned char, 2> head{};
        if (read_at(file.fd, head.data(), 2, end + 8) == 2 && head == k_gzip_magic)
            next_members = std::make_unique<ByteSource>(trace, end + 8);
        else
            done = true; // the end of the file, or bytes gzip ignores after it
    }

    std::size_t read(std::span<char> out) {
        std::size_t produced = 0;
        while (produced < out.size() && !done) {
            if (next_members) return produced + next_members->read(out.subspan(produced));
            if (state.avail_in == 0) {
                const auto got = read_at(file.fd, input.data(), input.size(), file_at);
                if (!got) throw TraceError(trace, 0, std::strerror(errno));
                if (*got == 0)
                    throw TraceError(trace, 0,
                                     fmt::format("ends inside its compressed data, which its "
                                                 "gztool index goes past: {}",
                                                 k_rebuild_index));
                state.next_in = input.data();
                state.avail_in = static_cast<std::uint32_t>(*got);
                file_at += *got;
            }
            state.next_out = reinterpret_cast<std::uint8_t*>(out.data() + produced);
            state.avail_out = static_cast<std::uint32_t>(out.size() - produced);
            const std::uint32_t out_before = state.avail_out;
            if (isal_inflate(&state) < 0)
                throw TraceError(trace, 0,
                                 fmt::format("compressed data ISA-L refuses near byte {}: is its "
                                             "gztool index another file's? {}",
                                             file_at - state.avail_in, k_rebuild_index));
            produced += out_before - state.avail_out;
            if (state.block_state == ISAL_BLOCK_FINISH) next_member();
        }
        return produced;
    }
};

RestartedText::RestartedText(const std::string& trace, const GztoolIndex& index,
                             const RestartPoint& point)
    : impl_(std::make_unique<Impl>(trace, index, point)) {}

RestartedText::~RestartedText() = default;

std::size_t RestartedText::read(std::span<char> out) {
    return impl_->read(out);
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: arbitrary bytes as gztool's index (replay/input/gztool_index.hpp) of a fixed gzip
// file of two members, then the text decompressed from each of its first restart points. Only
// popsim's documented error (TraceError) may come out.
#include "fuzz_support.hpp"
#include "replay/input/gztool_index.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <zlib.h>

namespace {

/// Paraver-like lines (fuzz/corpus/gztool's seeds are indexes of this text: 20,000 lines).
std::string fixed_text() {
    std::string text;
    for (int i = 0; i < 20000; ++i)
        text += "1:" + std::to_string(i) + ":1:1:1:" + std::to_string(i * 10) + ":" +
                std::to_string(i * 10 + 5) + ":1\n";
    return text;
}

/// `text` as two gzip members (zlib, level 6, no file name: 10-byte headers).
std::string two_members(const std::string& text) {
    std::string gz;
    for (const std::string& piece :
         {text.substr(0, text.size() / 2), text.substr(text.size() / 2)}) {
        z_stream z{};
        if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            __builtin_trap();
        std::string out(deflateBound(&z, piece.size()) + 64, '\0');
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
        z.avail_in = static_cast<uInt>(piece.size());
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        if (deflate(&z, Z_FINISH) != Z_STREAM_END) __builtin_trap();
        out.resize(z.total_out);
        deflateEnd(&z);
        gz += out;
    }
    return gz;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string gz = two_members(fixed_text());
    static const popsim::fuzz::MemoryFile gz_file(reinterpret_cast<const std::uint8_t*>(gz.data()),
                                                  gz.size());
    popsim::fuzz::MemoryFile index(data, size);
    if (!index.ok() || !gz_file.ok()) return 0;
    try {
        const auto read = popsim::replay::read_gztool_index(index.path(), gz.size());
        std::array<char, 1 << 16> text{};
        for (std::size_t p = 0; p < std::min<std::size_t>(read.points.size(), 4); ++p) {
            popsim::replay::RestartedText from(gz_file.path(), read, read.points[p]);
            for (int chunk = 0; chunk < 8 && from.read(text) > 0; ++chunk) {
            }
        }
    } catch (const popsim::replay::TraceError&) {
    }
    return 0;
}

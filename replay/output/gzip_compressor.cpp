// SPDX-License-Identifier: BSD-3-Clause
#include "replay/output/gzip_compressor.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace popsim::replay {

namespace {
constexpr std::size_t k_out_size = 1 << 18;
}

GzipCompressor::GzipCompressor(std::function<void(std::string_view)> emit)
    : emit_(std::move(emit)), level_buffer_(new unsigned char[ISAL_DEF_LVL1_DEFAULT]),
      out_(new unsigned char[k_out_size]) {
    isal_deflate_init(&stream_);
    stream_.level = 1;
    stream_.level_buf = level_buffer_.get();
    stream_.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    stream_.gzip_flag = IGZIP_GZIP;
    stream_.flush = NO_FLUSH;
}

void GzipCompressor::compress(std::string_view bytes) {
    while (!bytes.empty()) {
        // avail_in is 32-bit: a larger buffer goes in slices.
        const auto slice =
            std::min<std::size_t>(bytes.size(), std::numeric_limits<std::uint32_t>::max());
        stream_.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(bytes.data()));
        stream_.avail_in = static_cast<std::uint32_t>(slice);
        run_deflate();
        bytes.remove_prefix(slice);
    }
}

void GzipCompressor::finish() {
    stream_.end_of_stream = 1;
    stream_.avail_in = 0;
    run_deflate();
}

/// Deflates until the input is consumed (and, at the end of the stream, the trailer written).
void GzipCompressor::run_deflate() {
    do {
        stream_.next_out = out_.get();
        stream_.avail_out = k_out_size;
        if (isal_deflate(&stream_) != COMP_OK)
            throw std::logic_error("gzip compression failed"); // only on misuse of the API
        const auto produced = k_out_size - stream_.avail_out;
        if (produced > 0) emit_({reinterpret_cast<const char*>(out_.get()), produced});
    } while (stream_.avail_in > 0 || stream_.avail_out == 0 ||
             (stream_.end_of_stream && stream_.internal_state.state != ZSTATE_END));
}

} // namespace popsim::replay

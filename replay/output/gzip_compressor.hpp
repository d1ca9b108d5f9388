// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Compresses a byte stream into a gzip member (RFC 1952), so any output named *.gz is what its
// name says (gunzip, zcat, Paraver and popsim's own reader open it). ISA-L's deflate is used, as
// its inflate reads: at level 1 it compresses Paraver text several times faster than zlib's
// fastest level, which matters when the output is a simulated multi-GB trace.
#include <functional>
#include <isa-l/igzip_lib.h>
#include <memory>
#include <string_view>

namespace popsim::replay {

class GzipCompressor {
  public:
    /// `emit` receives the compressed bytes, in order, as they are produced.
    explicit GzipCompressor(std::function<void(std::string_view)> emit);
    GzipCompressor(const GzipCompressor&) = delete;
    GzipCompressor& operator=(const GzipCompressor&) = delete;

    void compress(std::string_view bytes);
    /// Emits the end of the stream (its last block and the CRC and length trailer).
    void finish();

  private:
    void run_deflate();
    std::function<void(std::string_view)> emit_;
    isal_zstream stream_{};
    std::unique_ptr<unsigned char[]> level_buffer_;
    std::unique_ptr<unsigned char[]> out_;
};

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/byte_source.hpp"

#include "replay/trace_error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <isa-l/igzip_lib.h>
#include <optional>
#include <utility>
#include <vector>

namespace popsim::replay {

namespace {
constexpr std::size_t k_input_chunk = 1 << 20;

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;
} // namespace

// ISA-L's inflate is used rather than zlib's because it decompresses 2-3x faster, which keeps
// `popsim analyze TRACE.prv.gz` close to the speed of `gzip -dc` alone.
class ByteSource::Impl {
  public:
    Impl(FilePtr file, std::string path) : file_(std::move(file)), path_(std::move(path)) {
        unsigned char magic[2] = {0, 0};
        const std::size_t got = std::fread(magic, 1, 2, file_.get());
        file_bytes_ = got;
        compressed_ = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        pending_.assign(magic, magic + got);
        if (compressed_) start_member();
    }

    std::size_t read(std::span<char> out) {
        if (deferred_error_) fail(*std::exchange(deferred_error_, std::nullopt));
        return compressed_ ? inflate(out) : read_plain(out);
    }
    bool compressed() const { return compressed_; }
    ByteSource::Ending ending() const { return ending_; }
    void on_member_end(ByteSource::MemberEnd callback) { member_end_ = std::move(callback); }
    std::uint64_t file_bytes_read() const { return file_bytes_; }

  private:
    std::size_t read_plain(std::span<char> out) {
        std::size_t n = 0;
        if (!pending_.empty()) {
            n = std::min(out.size(), pending_.size());
            std::memcpy(out.data(), pending_.data(), n);
            pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
        }
        const std::size_t got = std::fread(out.data() + n, 1, out.size() - n, file_.get());
        file_bytes_ += got;
        if (std::ferror(file_.get())) fail(std::strerror(errno));
        return n + got;
    }

    /// Resets the decompressor for the next gzip member, keeping the input already read: a
    /// member may begin anywhere in it (`cat a.gz b.gz`, bgzip and pigz write many).
    void start_member() {
        auto* const next_in = state_.next_in;
        const auto avail_in = state_.avail_in;
        isal_inflate_init(&state_);
        state_.crc_flag = ISAL_GZIP;
        state_.next_in = next_in;
        state_.avail_in = avail_in;
        member_header_checked_ = false;
        member_text_ = 0;
    }

    /// gzip(1) refuses a member whose header sets the reserved flag bits (RFC 1952: they must be
    /// zero); ISA-L does too, but calls it invalid compressed data. Checked when the header's
    /// first four bytes are in the input buffer (a header split across two reads is left to
    /// ISA-L).
    void check_member_header() {
        if (member_header_checked_ || state_.avail_in < 4) return;
        member_header_checked_ = true;
        constexpr std::uint8_t k_reserved_flags = 0xe0;
        if (const std::uint8_t flags = state_.next_in[3]; flags & k_reserved_flags)
            fail(fmt::format("corrupt gzip stream: the gzip header sets reserved flag bits "
                             "(flags 0x{:02x}; RFC 1952 requires bits 5-7 to be zero)",
                             flags));
    }

    bool refill_input() {
        if (state_.avail_in > 0) return true;
        input_.resize(k_input_chunk);
        std::size_t n = 0;
        if (!pending_.empty()) {
            std::memcpy(input_.data(), pending_.data(), pending_.size());
            n = pending_.size();
            pending_.clear();
        }
        const std::size_t got = std::fread(input_.data() + n, 1, input_.size() - n, file_.get());
        file_bytes_ += got;
        n += got;
        if (std::ferror(file_.get())) fail(std::strerror(errno));
        state_.next_in = input_.data();
        state_.avail_in = static_cast<std::uint32_t>(n);
        return n > 0;
    }

    std::size_t inflate(std::span<char> out) {
        std::size_t produced = 0;
        try {
            inflate_into(out, produced);
        } catch (const TraceError& e) { // the data before the error is returned first
            if (produced == 0) throw;
            deferred_error_ = e.cause();
        }
        return produced;
    }

    void inflate_into(std::span<char> out, std::size_t& produced) {
        while (produced < out.size() && !finished_) {
            if (state_.block_state == ISAL_BLOCK_FINISH) {
                // End of one gzip member: another may follow (concatenated .gz files are valid);
                // other bytes are trailing garbage, ignored as gzip(1) ignores them.
                if (!refill_input()) {
                    finished_ = true;
                    break;
                }
                if (state_.avail_in >= 2 &&
                    (state_.next_in[0] != 0x1f || state_.next_in[1] != 0x8b)) {
                    ending_ = ByteSource::Ending::trailing_garbage;
                    finished_ = true;
                    break;
                }
                start_member();
            }
            if (!refill_input()) { // the file ends inside a member: a truncated trace
                ending_ = ByteSource::Ending::truncated;
                finished_ = true;
                break;
            }
            check_member_header();
            state_.next_out = reinterpret_cast<std::uint8_t*>(out.data() + produced);
            state_.avail_out = static_cast<std::uint32_t>(out.size() - produced);
            const std::uint32_t out_before = state_.avail_out;
            const std::uint32_t in_before = state_.avail_in;
            const int rc = isal_inflate(&state_);
            if (rc < 0) fail(fmt_inflate_error(rc));
            produced += out_before - state_.avail_out;
            member_text_ += out_before - state_.avail_out;
            if (state_.block_state == ISAL_BLOCK_FINISH && member_end_)
                member_end_(std::exchange(member_text_, 0));
            const bool stalled = state_.avail_out == out_before && state_.avail_in == in_before &&
                                 state_.block_state != ISAL_BLOCK_FINISH;
            if (stalled) fail("corrupt gzip stream: the decompressor makes no progress");
        }
    }

    static std::string fmt_inflate_error(int rc) {
        switch (rc) {
        case ISAL_INVALID_WRAPPER:
            return "corrupt gzip stream: invalid gzip header";
        case ISAL_INCORRECT_CHECKSUM:
            return "corrupt gzip stream: checksum mismatch";
        case ISAL_UNSUPPORTED_METHOD:
            return "corrupt gzip stream: unsupported compression method";
        default:
            return "corrupt gzip stream: invalid compressed data";
        }
    }

    [[noreturn]] void fail(const std::string& cause) const { throw TraceError(path_, 0, cause); }

    FilePtr file_;
    std::string path_;
    bool compressed_ = false;
    bool finished_ = false;
    bool member_header_checked_ = false;
    ByteSource::Ending ending_ = ByteSource::Ending::whole;
    std::optional<std::string> deferred_error_;
    ByteSource::MemberEnd member_end_;
    std::uint64_t member_text_ = 0; // decompressed from the current member
    std::uint64_t file_bytes_ = 0;
    std::vector<unsigned char> pending_;
    std::vector<std::uint8_t> input_;
    inflate_state state_{};
};

ByteSource::ByteSource(std::string path) : ByteSource(std::move(path), 0) {}

ByteSource::ByteSource(std::string path, std::uint64_t from) : path_(std::move(path)) {
    FilePtr file(std::fopen(path_.c_str(), "rb"));
    if (!file) throw TraceError(path_, 0, std::string("cannot open: ") + std::strerror(errno));
    if (from > 0 && fseeko(file.get(), static_cast<off_t>(from), SEEK_SET) != 0)
        throw TraceError(path_, 0, std::string("cannot seek: ") + std::strerror(errno));
    impl_ = std::make_unique<Impl>(std::move(file), path_);
}

ByteSource::~ByteSource() = default;

std::size_t ByteSource::read(std::span<char> out) {
    return impl_->read(out);
}
std::uint64_t ByteSource::file_bytes_read() const {
    return impl_->file_bytes_read();
}
bool ByteSource::compressed() const {
    return impl_->compressed();
}
ByteSource::Ending ByteSource::ending() const {
    return impl_->ending();
}
void ByteSource::on_member_end(MemberEnd callback) {
    impl_->on_member_end(std::move(callback));
}

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#include "replay/input/body_text.hpp"

#include "replay/input/gztool_index.hpp"
#include "replay/input/input_file.hpp"
#include "replay/read_at.hpp"
#include "replay/trace_error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <span>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace popsim::replay {

std::string bgzip_index_path(const std::string& path) {
    return path + ".gzi";
}

namespace {

constexpr std::size_t k_chunk = 64 << 10; // decompressed at once: a bgzip member's text

/// A gzipped file's index: bgzip's beside it (`run.prv.gz.gzi`), or else gztool's
/// (`run.prv.gzi`, or gztool's format under bgzip's name); none if neither exists.
struct IndexFile {
    std::string path;
    bool gztool = false;
};
std::optional<IndexFile> index_file(const std::string& path) {
    struct stat status {};
    if (stat(bgzip_index_path(path).c_str(), &status) == 0)
        return IndexFile{bgzip_index_path(path), is_gztool_index(bgzip_index_path(path))};
    if (stat(gztool_index_path(path).c_str(), &status) == 0)
        return IndexFile{gztool_index_path(path), true};
    return std::nullopt;
}

using Members = std::vector<std::pair<std::uint64_t, std::uint64_t>>; // compressed, text

/// The members bgzip's index `gzi` lists, after the first (at 0 in both); throws TraceError naming
/// the index for one that does not fit a file of `file_size` bytes.
Members read_bgzip_index(const std::string& path, const std::string& gzi, std::uint64_t file_size) {
    std::ifstream in(gzi, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto number = [&](std::size_t i) {
        std::uint64_t value = 0;
        for (std::size_t b = 0; b < 8; ++b)
            value |= std::uint64_t{static_cast<unsigned char>(bytes[8 * i + b])} << (8 * b);
        return value;
    };
    if (bytes.size() < 8 || (bytes.size() - 8) % 16 != 0 || number(0) != (bytes.size() - 8) / 16)
        throw TraceError(gzi, 0,
                         "not a bgzip index (a count, then two 64-bit offsets per member): "
                         "bgzip -r rebuilds it");
    Members members{{0, 0}};
    for (std::uint64_t i = 0; i < number(0); ++i) {
        const std::pair member{number(1 + 2 * i), number(2 + 2 * i)};
        if (member == members.back()) continue; // an index that lists the first member too
        if (member.first <= members.back().first || member.second <= members.back().second ||
            member.first >= file_size)
            throw TraceError(gzi, 0,
                             fmt::format("entry {} ({}, {}) does not follow the one before it "
                                         "within {}: bgzip -r rebuilds the index",
                                         i + 1, member.first, member.second, path));
        members.push_back(member);
    }
    return members;
}

} // namespace

/// What every reader of one file shares: its descriptor (pread is safe from any thread), or the
/// index of its members or restart points.
struct SharedText {
    std::string path;
    int fd = -1; // plain
    std::uint64_t text_size = 0;
    ByteSource::Ending ending = ByteSource::Ending::whole;
    Members members;                     // gzipped by bgzip: where each member starts
    std::optional<GztoolIndex> restarts; // or any gzip with gztool's index

    ~SharedText() {
        if (fd >= 0) close(fd);
    }
};

struct BodyText::Impl {
    std::shared_ptr<const SharedText> shared;
    // gzipped: this reader's stream, and the text it read last
    std::unique_ptr<ByteSource> stream;       // from a bgzip member
    std::unique_ptr<RestartedText> restarted; // from a restart point of gztool's index
    std::uint64_t stream_at = 0;              // the text offset the stream reads next
    std::string window;                       // from window_at
    std::uint64_t window_at = 0;
    std::optional<std::string> index_misfit; // a member whose text the index misplaces

    std::size_t read_plain(std::uint64_t offset, std::size_t bytes, std::string& out) const {
        const std::size_t had = out.size();
        out.resize(had + bytes);
        const auto got = replay::read_at(shared->fd, out.data() + had, bytes, offset);
        if (!got) {
            out.resize(had);
            throw TraceError(shared->path, 0, std::strerror(errno));
        }
        out.resize(had + *got);
        return *got;
    }

    /// Where to start decompressing for the text at `offset`: the start of the member that holds
    /// it, or the restart point before it (a RestartPoint with no window for a member).
    static RestartPoint start_for(const SharedText& text, std::uint64_t offset) {
        if (text.restarts) {
            const auto& points = text.restarts->points;
            return *std::prev(std::upper_bound(
                points.begin(), points.end(), offset,
                [](std::uint64_t at, const RestartPoint& point) { return at < point.text; }));
        }
        const auto m = std::prev(std::upper_bound(
            text.members.begin(), text.members.end(), offset,
            [](std::uint64_t at, const auto& member) { return at < member.second; }));
        return {.text = m->second, .compressed = m->first};
    }

    /// The stream, from the start for `offset`.
    void start_at(std::uint64_t offset) {
        const auto& text = *shared;
        const RestartPoint start = start_for(text, offset);
        stream_at = start.text;
        window.clear();
        window_at = stream_at;
        if (text.restarts) {
            restarted = std::make_unique<RestartedText>(text.path, *text.restarts, start);
            return;
        }
        stream = std::make_unique<ByteSource>(text.path, start.compressed);
        if (!stream->compressed())
            throw TraceError(bgzip_index_path(text.path), 0,
                             fmt::format("does not fit {}: no gzip member begins at byte {}; "
                                         "bgzip -r rebuilds it",
                                         text.path, start.compressed));
        const auto first = std::lower_bound(
            text.members.begin(), text.members.end(), start.compressed,
            [](const auto& member, std::uint64_t at) { return member.first < at; });
        stream->on_member_end(
            [this, member = static_cast<std::size_t>(first - text.members.begin())](
                std::uint64_t text_bytes) mutable { check_member(member++, text_bytes); });
    }

    /// Each range's text is placed by the index's text offsets: a member decompressed to its end
    /// must hold exactly the text up to the next one, or the ranges after it would be misplaced
    /// (lines dropped or read twice). A reader decompresses at least 64 KiB from where it starts,
    /// more than a bgzip member holds, so every member is decompressed to its end by the reader
    /// of the range it begins in, before that range's text is used.
    void check_member(std::size_t member, std::uint64_t text_bytes) {
        const auto& members = shared->members;
        if (member + 1 >= members.size()) return; // the last: its text runs to the file's end
        const std::uint64_t indexed = members[member + 1].second - members[member].second;
        if (text_bytes != indexed && !index_misfit)
            index_misfit =
                fmt::format("does not fit {}: its gzip member {} holds {} bytes of text, "
                            "where the index gives it {}; bgzip -r rebuilds the index",
                            shared->path, member + 1, text_bytes, indexed);
    }

    std::size_t read_stream(std::span<char> out) {
        return restarted ? restarted->read(out) : stream->read(out);
    }

    std::size_t read_gzipped(std::uint64_t offset, std::size_t bytes, std::string& out) {
        std::size_t got = 0;
        while (got < bytes) {
            const std::uint64_t at = offset + got;
            if (at >= window_at && at < window_at + window.size()) {
                const auto n = std::min<std::uint64_t>(bytes - got, window_at + window.size() - at);
                out.append(window, static_cast<std::size_t>(at - window_at),
                           static_cast<std::size_t>(n));
                got += static_cast<std::size_t>(n);
                continue;
            }
            // Read on from where the stream is, unless a later start is nearer.
            if ((!stream && !restarted) || at < stream_at ||
                start_for(*shared, at).text > stream_at)
                start_at(at);
            window_at = stream_at;
            window.resize(k_chunk);
            window.resize(read_stream(std::span<char>(window.data(), window.size())));
            // Before the text it read is used: the same error whatever the ranges.
            if (index_misfit) throw TraceError(bgzip_index_path(shared->path), 0, *index_misfit);
            stream_at += window.size();
            if (window.empty()) break; // the end of the text
        }
        return got;
    }
};

BodyText::BodyText(const std::string& path) : impl_(std::make_unique<Impl>()) {
    std::string why_not;
    if (!readable(path, &why_not)) throw TraceError(path, 0, why_not);
    auto shared = std::make_shared<SharedText>();
    shared->path = path;
    struct stat status {};
    stat(path.c_str(), &status);
    if (!ByteSource(path).compressed()) {
        shared->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (shared->fd < 0)
            throw TraceError(path, 0, std::string("cannot open: ") + std::strerror(errno));
        shared->text_size = static_cast<std::uint64_t>(status.st_size);
        impl_->shared = std::move(shared);
        return;
    }
    const auto index = *index_file(path);
    const auto file_size = static_cast<std::uint64_t>(status.st_size);
    if (index.gztool)
        shared->restarts = read_gztool_index(index.path, file_size);
    else
        shared->members = read_bgzip_index(path, index.path, file_size);
    impl_->shared = shared;
    // The text's size: the last start, and what follows it.
    const std::uint64_t last =
        shared->restarts ? shared->restarts->points.back().text : shared->members.back().second;
    impl_->start_at(last);
    std::string rest;
    while (impl_->read_gzipped(impl_->stream_at, k_chunk, rest) > 0) rest.clear();
    shared->text_size = impl_->stream_at;
    if (impl_->stream) shared->ending = impl_->stream->ending();
    if (shared->restarts && shared->text_size != shared->restarts->text_size)
        throw TraceError(index.path, 0,
                         fmt::format("gives a text of {} bytes, where {} holds {}: delete it and "
                                     "run gztool -i again",
                                     shared->restarts->text_size, path, shared->text_size));
}

BodyText::BodyText(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BodyText::BodyText(BodyText&&) noexcept = default;

BodyText BodyText::another() const {
    auto impl = std::make_unique<Impl>();
    impl->shared = impl_->shared;
    return BodyText(std::move(impl));
}

BodyText::~BodyText() = default;

bool BodyText::readable(const std::string& path, std::string* why_not) {
    const auto say = [&](std::string cause) {
        if (why_not) *why_not = std::move(cause);
        return false;
    };
    struct stat trace {
    }, index{};
    if (stat(path.c_str(), &trace) != 0)
        return say(std::string("cannot open: ") + std::strerror(errno));
    if (!S_ISREG(trace.st_mode)) return say("not a regular file (a pipe?)");
    try { // gzip or not as ByteSource tells it, from the first bytes
        if (!ByteSource(path).compressed()) return true;
    } catch (const TraceError& e) {
        return say(e.cause());
    }
    const auto index_of_trace = index_file(path);
    if (!index_of_trace)
        return say(fmt::format("gzipped without an index of its members or restart points "
                               "beside it (bgzip's {}: bgzip -i writes one as it compresses, "
                               "bgzip -r for a file it wrote; or gztool's {}: gztool -i writes "
                               "one for any gzip file)",
                               bgzip_index_path(path), gztool_index_path(path)));
    stat(index_of_trace->path.c_str(), &index);
    // bgzip -i writes its index, then the file's last block (htslib's bgzip.c): a fresh index
    // may be a few ms older than its file, across a second's boundary. One older by more than a
    // second is another file's.
    constexpr std::int64_t k_ns_per_s = 1'000'000'000;
    if (modified_ns(trace) - modified_ns(index) > k_ns_per_s)
        return say(fmt::format("its index {} is older than it: {}", index_of_trace->path,
                               index_of_trace->gztool ? "delete it and run gztool -i again"
                                                      : "bgzip -r rebuilds it"));
    return true;
}

bool BodyText::restarts_from_points(const std::string& path) {
    const auto index = index_file(path);
    return index && index->gztool;
}

std::size_t BodyText::read_at(std::uint64_t offset, std::size_t bytes, std::string& out) {
    return impl_->shared->fd >= 0 ? impl_->read_plain(offset, bytes, out)
                                  : impl_->read_gzipped(offset, bytes, out);
}

const std::string& BodyText::path() const {
    return impl_->shared->path;
}

std::uint64_t BodyText::size() const {
    return impl_->shared->text_size;
}

ByteSource::Ending BodyText::ending() const {
    return impl_->shared->ending;
}

void BodyText::check_members_before(std::uint64_t offset) {
    if (impl_->shared->members.size() < 2) return; // no index of members, or nothing to misplace
    impl_->start_at(0);
    // A member is at most k_chunk of text: one that begins before `offset` ends before this.
    std::string text;
    while (impl_->stream_at < offset + k_chunk &&
           impl_->read_gzipped(impl_->stream_at, k_chunk, text) > 0)
        text.clear();
}

std::uint64_t BodyText::file_offset(std::uint64_t offset) const {
    const auto& shared = *impl_->shared;
    return shared.fd >= 0 ? offset : Impl::start_for(shared, offset).compressed;
}

} // namespace popsim::replay

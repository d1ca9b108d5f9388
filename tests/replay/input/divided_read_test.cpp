// SPDX-License-Identifier: BSD-3-Clause
// One .prv read by a reader and its helpers (replay/input/divided_read.hpp): the ranges cut the
// body into its lines exactly, and the trace read, its warnings and its errors are the lone
// reader's; so is an OTF2 archive whose locations the helpers read. The helpers here are
// in-process (help_read on the asks); mpirun's are tested by validation/mpi_runs.sh.
#include "replay/input/divided_read.hpp"
#include "replay/input/gztool_index.hpp"
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_reader.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <chrono>
#include <cstdlib>
#include <deque>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <zlib.h>

using namespace popsim;

namespace {

/// One helper's asks, handed to help_read_paraver at once, then its release.
class AsksAtOnce final : public replay::ReadRequests {
  public:
    AsksAtOnce(std::vector<replay::BodyRange> asks, std::deque<std::string>& answers)
        : asks_(std::move(asks)), answers_(answers) {}
    std::vector<replay::BodyRange> next() override { return std::exchange(asks_, {}); }
    void answer(const std::string& parsed_block) override { answers_.push_back(parsed_block); }

  private:
    std::vector<replay::BodyRange> asks_;
    std::deque<std::string>& answers_;
};

/// Helpers in this process, each reading `paths[h]` (the trace, or a file it cannot open).
class LocalHelpers final : public replay::ReadHelpers {
  public:
    explicit LocalHelpers(std::vector<std::string> paths)
        : paths_(std::move(paths)), asks_(paths_.size()), answers_(paths_.size()) {}
    std::uint32_t count() const override { return static_cast<std::uint32_t>(paths_.size()); }
    void ask(std::uint32_t helper, const replay::BodyRange& range) override {
        asks_.at(helper).push_back(range);
        ++asked;
    }
    std::string answer(std::uint32_t helper) override {
        if (answers_.at(helper).empty()) {
            AsksAtOnce requests(std::exchange(asks_[helper], {}), answers_[helper]);
            replay::help_read(paths_[helper], requests);
        }
        REQUIRE(!answers_[helper].empty());
        std::string block = std::move(answers_[helper].front());
        answers_[helper].pop_front();
        return block;
    }
    std::size_t asked = 0;

  private:
    std::vector<std::string> paths_;
    std::vector<std::vector<replay::BodyRange>> asks_;
    std::vector<std::deque<std::string>> answers_;
};

/// The file's bytes, with `bytes` written at `offset`.
void patch_file(const std::string& path, std::size_t offset, const std::string& bytes) {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string plain_copy(const std::string& gz, const std::string& name) {
    std::string text;
    gzFile f = gzopen(gz.c_str(), "rb");
    REQUIRE(f != nullptr);
    char buffer[1 << 16];
    for (int n; (n = gzread(f, buffer, sizeof buffer)) > 0;) text.append(buffer, buffer + n);
    gzclose(f);
    return test::write_file(test::scratch_dir("divided_" + name) / (name + ".prv"), text);
}

/// `piece` as one gzip member, as zlib writes it (level 6, a 10-byte header).
std::string gzip_member(const std::string& piece) {
    z_stream z{};
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, piece.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
    z.avail_in = static_cast<uInt>(piece.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

/// `text` as gzip members of at most `member_bytes` each, as bgzip writes them, and their index
/// (the .gzi: a count, then the compressed and uncompressed offsets of each member after the
/// first, little-endian).
std::string bgzip_file(const std::filesystem::path& path, const std::string& text,
                       std::size_t member_bytes) {
    std::string gz, index;
    const auto put = [&](std::uint64_t value) {
        for (int b = 0; b < 8; ++b) index += static_cast<char>((value >> (8 * b)) & 0xff);
    };
    std::uint64_t members = 0;
    for (std::size_t at = 0; at < text.size(); at += member_bytes) {
        if (at > 0) {
            put(gz.size());
            put(at);
            ++members;
        }
        gz += gzip_member(text.substr(at, member_bytes));
    }
    std::string count;
    std::swap(count, index);
    put(members);
    std::swap(count, index);
    test::write_file(path.string() + ".gzi", count + index);
    return test::write_file(path, gz);
}

replay::Trace read_with(const std::string& path, std::size_t block_bytes, std::size_t helpers,
                        std::size_t* asked = nullptr) {
    replay::ReadOptions o;
    o.block_bytes = block_bytes;
    LocalHelpers local(std::vector<std::string>(helpers, path));
    if (helpers > 0) o.helpers = &local;
    auto trace = replay::read_paraver(path, o);
    if (asked) *asked = local.asked;
    return trace;
}

void check_same_trace(const replay::Trace& a, const replay::Trace& b) {
    CHECK(a.counts.lines == b.counts.lines);
    CHECK(a.counts.bytes == b.counts.bytes);
    CHECK(a.counts.records() == b.counts.records());
    CHECK(a.counts.communications == b.counts.communications);
    CHECK(a.repairs.any() == b.repairs.any());
    CHECK(a.warnings.all().size() == b.warnings.all().size());
    REQUIRE(a.threads.size() == b.threads.size());
    for (std::size_t t = 0; t < a.threads.size(); ++t) {
        CHECK(a.threads[t].state_begin == b.threads[t].state_begin);
        CHECK(a.threads[t].state_value == b.threads[t].state_value);
        CHECK(a.threads[t].call_begin == b.threads[t].call_begin);
        CHECK(a.threads[t].call_end == b.threads[t].call_end);
        CHECK(a.threads[t].useful_instructions == b.threads[t].useful_instructions);
    }
}

/// Reading `trace` with one helper that sees `seen` under its name fails with an error naming
/// `trace` and saying `says`.
void check_helper_error(const std::string& trace, const std::string& seen, const std::string& says,
                        std::size_t block_bytes) {
    replay::ReadOptions o;
    o.block_bytes = block_bytes;
    LocalHelpers blind({seen});
    o.helpers = &blind;
    try {
        (void)replay::read_paraver(trace, o);
        FAIL("no error");
    } catch (const replay::TraceError& e) {
        const std::string message = e.what();
        CAPTURE(message);
        CHECK(message.starts_with(trace + ":"));
        CHECK(message.find(says) != std::string::npos);
    }
}

} // namespace

TEST_CASE("divided_read: ranges of any size give each line of the body once, in order") {
    const std::string header = "#Paraver header\n";
    std::string body;
    for (int i = 0; i < 40; ++i) body += std::string(static_cast<std::size_t>(i % 7), 'x') + "\n";
    body += "last line without its end";
    const auto path =
        test::write_file(test::scratch_dir("divided_ranges") / "ranges.txt", header + body);
    replay::BodyText file(path);
    for (std::uint64_t size : {1, 2, 3, 7, 16, 64, 1000}) {
        CAPTURE(size);
        std::string joined;
        std::size_t unfinished = 0;
        for (std::uint64_t begin = header.size(); begin < header.size() + body.size();
             begin += size) {
            replay::BodyRange range{.body_begin = header.size(), .begin = begin};
            if (begin + size < header.size() + body.size()) range.end = begin + size;
            replay::TextBlock text;
            replay::read_body_range(file, range, text);
            CHECK(!text.read_error);
            if (text.ends_mid_line)
                ++unfinished;
            else
                CHECK((text.text.empty() || text.text.back() == '\n'));
            joined += text.text;
        }
        CHECK(joined == body);
        CHECK(unfinished == 1);
    }
}

TEST_CASE("divided_read: real traces read with helpers are the traces read alone") {
    for (const char* name : {"lammps-melt/lammps_melt_4", "epoch/epoch_4proc", "hpcc/hpcc_2"}) {
        const std::string gz = test::shared_data(std::string(name) + ".prv.gz");
        if (!std::ifstream(gz)) continue;
        CAPTURE(name);
        const auto path = plain_copy(gz, std::string(name).substr(std::string(name).find('/') + 1));
        const auto alone = read_with(path, 4096, 0);
        for (std::size_t helpers : {1, 2, 3}) {
            CAPTURE(helpers);
            std::size_t asked = 0;
            check_same_trace(alone, read_with(path, 4096, helpers, &asked));
            CHECK(asked > 100); // the helpers read most of the body
        }
    }
}

TEST_CASE("divided_read: a .prv.gz in gzip members with their index is read as the .prv") {
    const std::string gz = test::shared_data("lammps-melt/lammps_melt_4.prv.gz");
    if (!std::ifstream(gz)) return;
    const auto plain = plain_copy(gz, "lammps_bgzf");
    const std::string text = test::read_file(plain);
    const auto dir = std::filesystem::path(plain).parent_path();
    const auto members = bgzip_file(dir / "lammps_bgzf.prv.gz", text, 65280);
    CHECK(replay::BodyText::readable(members));
    replay::BodyText body(members);
    CHECK(body.size() == text.size());
    std::string middle;
    CHECK(body.read_at(1000000, 200000, middle) == 200000);
    CHECK(middle == text.substr(1000000, 200000));
    const auto alone = read_with(plain, 4096, 0);
    std::size_t asked = 0;
    check_same_trace(alone, read_with(members, 4096, 3, &asked));
    CHECK(asked > 100);
    // Alone, the reader decompresses the ranges on its pipeline's threads.
    check_same_trace(alone, read_with(members, 4096, 0));
    // A gzip file without its index, or with an older one, is read by the reader alone.
    std::string why_not;
    std::filesystem::remove(members + ".gzi");
    CHECK(!replay::BodyText::readable(members, &why_not));
    CHECK(why_not.find("without an index of its members or restart points") != std::string::npos);
    check_same_trace(alone, read_with(members, 4096, 3, &asked));
    CHECK(asked == 0);
    // An index that does not fit: a warning, and the reader alone.
    test::write_file(members + ".gzi", std::string("\1\0\0\0\0\0\0\0", 8) + "garbage");
    const auto warned = read_with(members, 4096, 3, &asked);
    CHECK(asked == 0);
    bool said = false;
    for (const auto& w : warned.warnings.all())
        said = said || w.line().find("not a bgzip index") != std::string::npos;
    CHECK(said);
    // An index whose text offsets misplace a member (here by 50 bytes), which would drop or
    // repeat lines: found before the text is used, wherever the ranges fall. In the text read
    // before the ranges (the first member): a warning, and the trace read as one stream.
    const auto shift_entry = [&](std::size_t entry) {
        bgzip_file(dir / "lammps_bgzf.prv.gz", text, 65280);
        const std::size_t at = 8 + 16 * entry + 8; // the entry's text offset, little-endian
        std::string bytes = test::read_file(members + ".gzi").substr(at, 8);
        bytes[0] = static_cast<char>(static_cast<unsigned char>(bytes[0]) + 50); // no carry
        patch_file(members + ".gzi", at, bytes);
    };
    shift_entry(0);
    const auto first = read_with(members, 4096, 0);
    CHECK(first.counts.lines == alone.counts.lines);
    CHECK(first.counts.records() == alone.counts.records());
    CHECK(first.warnings.all().size() == alone.warnings.all().size() + 1);
    said = false;
    for (const auto& w : first.warnings.all())
        said = said || w.line().find("lammps_bgzf.prv.gz.gzi: does not fit") != std::string::npos;
    CHECK(said);
    // Further on: an error naming the index, alone and helped.
    shift_entry(30);
    for (const std::size_t helpers : {0, 3}) {
        CAPTURE(helpers);
        CHECK_THROWS_WITH_AS(read_with(members, 4096, helpers),
                             doctest::Contains("lammps_bgzf.prv.gz.gzi: does not fit"),
                             replay::TraceError);
    }
}

namespace {

/// `text` gzipped in `members` gzip members by zlib, as gzip writes one (Extrae's .prv.gz), with
/// gztool's index of restart points every MiB of text (`gztool -s 1 -i`).
std::string gztool_indexed(const std::filesystem::path& path, const std::string& text,
                           std::size_t members) {
    std::string gz;
    const std::size_t each = text.size() / members + 1;
    for (std::size_t at = 0; at < text.size(); at += each) gz += gzip_member(text.substr(at, each));
    const auto gz_path = test::write_file(path, gz);
    std::filesystem::remove(replay::gztool_index_path(gz_path));
    const std::string command = "gztool -s 1 -i '" + gz_path + "' > /dev/null 2>&1";
    INFO("gztool -s 1 -i failed (./dev installs gztool)");
    REQUIRE(std::system(command.c_str()) == 0);
    return gz_path;
}

bool warned_of(const replay::Trace& trace, const std::string& text) {
    for (const auto& w : trace.warnings.all())
        if (w.line().find(text) != std::string::npos) return true;
    return false;
}

} // namespace

TEST_CASE("divided_read: any .prv.gz with gztool's index of restart points is read as the .prv") {
    const std::string gz = test::shared_data("epoch/epoch_16proc.prv.gz");
    if (!std::ifstream(gz)) return;
    const auto plain = plain_copy(gz, "epoch_gztool");
    const std::string text = test::read_file(plain);
    REQUIRE(text.size() > 5'000'000); // restart points inside and across members
    const auto dir = std::filesystem::path(plain).parent_path();
    const auto alone = read_with(plain, 4096, 0);
    for (std::size_t members : {1, 3}) {
        CAPTURE(members);
        const auto path = gztool_indexed(dir / "epoch_gztool.prv.gz", text, members);
        CHECK(replay::BodyText::readable(path));
        replay::BodyText body(path);
        CHECK(body.size() == text.size());
        // Offsets at, before and after restart points and members, read in any order.
        for (std::uint64_t at :
             {std::uint64_t{4'000'000}, std::uint64_t{0}, std::uint64_t{1'048'575},
              text.size() / 3 - 10, std::uint64_t{2'500'000}, text.size() - 7}) {
            CAPTURE(at);
            std::string got;
            CHECK(body.read_at(at, 100'000, got) ==
                  std::min<std::uint64_t>(100'000, text.size() - at));
            CHECK(got == text.substr(at, 100'000));
        }
        std::size_t asked = 0;
        check_same_trace(alone, read_with(path, 4096, 3, &asked));
        CHECK(asked > 100);
        // Without --read-block, ranges of 2 MiB (k_member_range_bytes), two of three asked.
        replay::ReadOptions fitted;
        LocalHelpers two(std::vector<std::string>(2, path));
        fitted.helpers = &two;
        check_same_trace(alone, replay::read_paraver(path, fitted));
        CHECK(two.asked > 2);
        // Alone, the reader reads it as one stream.
        check_same_trace(alone, read_with(path, 4096, 0));
    }
    const auto path = (dir / "epoch_gztool.prv.gz").string();
    const auto index = replay::gztool_index_path(path);
    CHECK(index == (dir / "epoch_gztool.prv.gzi").string());
    // Under bgzip's name (gztool -I names it), recognised by its content.
    std::filesystem::rename(index, path + ".gzi");
    CHECK(replay::BodyText(path).size() == text.size());
    std::size_t asked = 0;
    check_same_trace(alone, read_with(path, 65536, 2, &asked));
    CHECK(asked > 100);
    std::filesystem::rename(path + ".gzi", index);
    const auto refused = [&](const std::string& says) {
        std::size_t asked = 0;
        const auto warned = read_with(path, 4096, 3, &asked);
        CHECK(asked == 0);
        CAPTURE(says);
        CHECK(warned_of(warned, says));
        CHECK(warned.counts.records() == alone.counts.records());
        // Alone too: the same warning, whichever number of processes reads it.
        CHECK(warned_of(read_with(path, 4096, 0), says));
    };
    // An index that gztool did not finish (its count of points is not yet written).
    const std::string whole = test::read_file(index);
    const std::size_t count_at = whole[15] == 'X' ? 20 : 16; // version 1 has 4 more bytes
    patch_file(index, count_at, std::string(8, '\0'));
    refused("incomplete: 0 restart points");
    // Another file's index: restart points that lie elsewhere, or a text of another size.
    test::write_file(index, whole);
    const auto other = gztool_indexed(dir / "other.prv.gz", text.substr(0, text.size() / 2), 1);
    std::filesystem::copy_file(replay::gztool_index_path(other), index,
                               std::filesystem::copy_options::overwrite_existing);
    refused("is its gztool index another file's?");
    // A text size that is not the file's (the index's last number but, in version 1, one).
    test::write_file(index, whole);
    patch_file(index, whole.size() - (whole[15] == 'X' ? 16 : 8) + 7, "\x7f");
    refused("gives a text of");
    // A first point that is not at the text's start (its text offset: the first number after the
    // header and the counts).
    test::write_file(index, whole);
    patch_file(index, count_at + 16 + 7, "\x01");
    refused("is the first, but not at the text's start");
    // A cut index.
    test::write_file(index, whole.substr(0, whole.size() / 2));
    refused("ends inside");
    // An index older than its file: not used, and said why.
    test::write_file(index, whole);
    std::filesystem::last_write_time(index, std::filesystem::last_write_time(path) -
                                                std::chrono::hours(1));
    std::string why_not;
    CHECK(!replay::BodyText::readable(path, &why_not));
    CHECK(why_not.find("is older than it: delete it and run gztool -i again") != std::string::npos);
    // Older by a few ms, as bgzip -i leaves a fresh index (written before the file's last
    // block), across a second's boundary: used. (The file clock's seconds are Unix seconds.)
    const auto second =
        std::chrono::floor<std::chrono::seconds>(std::filesystem::last_write_time(path));
    std::filesystem::last_write_time(path, second + std::chrono::milliseconds(2));
    std::filesystem::last_write_time(index, second - std::chrono::milliseconds(3));
    CHECK(replay::BodyText::readable(path, &why_not));
}

TEST_CASE("divided_read: errors name the line the lone reader names") {
    std::string content = "#Paraver (01/01/2026 at 00:00):1000_ns:1(1):1:1(1:1),0\n";
    for (int i = 0; i < 200; ++i)
        content +=
            "1:1:1:1:1:" + std::to_string(i * 10) + ":" + std::to_string(i * 10 + 10) + ":1\n";
    const auto dir = test::scratch_dir("divided_errors");
    const auto bad =
        test::write_file(dir / "bad.prv", content + "1:1:1:1:1:2000:x:1\n" + content.substr(60));
    for (std::size_t helpers : {0, 1, 3}) {
        CAPTURE(helpers);
        CHECK_THROWS_WITH_AS(read_with(bad, 64, helpers),
                             (bad + ":202: state record field 6 (end time) is not an unsigned "
                                    "integer: 'x'")
                                 .c_str(),
                             replay::TraceError);
    }
    // A helper on a machine that does not see the file, or sees another under its name: the
    // reader says so, at the first line of the helper's first range.
    const auto good = test::write_file(dir / "good.prv", content);
    const auto other = test::write_file(dir / "other.prv", content + content.substr(60));
    for (const auto& [seen, says] :
         {std::pair{dir / "absent.prv", "another process of the MPI run cannot read " +
                                            (dir / "absent.prv").string() +
                                            ": cannot open: No such file or directory"},
          std::pair{dir / "other.prv",
                    "another process of the MPI run sees another file at " + other + " ("}}) {
        check_helper_error(good, seen.string(), says, 64);
    }
}

TEST_CASE("divided_read: OTF2 archives whose locations helpers read are the archives read alone") {
    std::size_t archives = 0;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(test::shared_data("otf2"))) {
        if (entry.path().filename() != "traces.otf2") continue;
        const auto path = entry.path().string();
        CAPTURE(path);
        replay::Trace alone;
        try {
            alone = read_with(path, 1 << 20, 0);
        } catch (const replay::TraceError&) { // an archive popsim refuses is refused helped too
            CHECK_THROWS_AS(read_with(path, 1 << 20, 2), replay::TraceError);
            continue;
        }
        ++archives;
        for (std::size_t helpers : {1, 2, 3}) {
            CAPTURE(helpers);
            std::size_t asked = 0;
            check_same_trace(alone, read_with(path, 1 << 20, helpers, &asked));
            CHECK(asked == helpers); // a part of the locations each
        }
    }
    CHECK(archives >= 10);
}

TEST_CASE("divided_read: an OTF2 helper that cannot read the archive, or reads another, says so") {
    const auto dir = test::scratch_dir("divided_otf2");
    const auto good = test::shared_data("otf2/casita-10_scorep_mpi_tags/traces.otf2");
    std::string another;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(test::shared_data("otf2"))) {
        if (entry.path().filename() != "traces.otf2" || entry.path().string() == good) continue;
        if (replay::Otf2Archive(entry.path().string()).record_counts().size() !=
            replay::Otf2Archive(good).record_counts().size()) {
            another = entry.path().string();
            break;
        }
    }
    REQUIRE(!another.empty());
    for (const auto& [seen, says] :
         {std::pair{(dir / "absent.otf2").string(), std::string("another process of the MPI run "
                                                                "cannot read ")},
          std::pair{another,
                    "another process of the MPI run sees another archive at " + another + " ("}}) {
        check_helper_error(good, seen, says, replay::ReadOptions::k_block_bytes);
    }
}

TEST_CASE("divided_read: a parsed block's bytes travel whole, and garbage is refused") {
    replay::TextBlock text;
    text.text =
        "1:1:1:1:1:0:10:1\n2:1:1:1:1:5:50000001:3:42000050:7\n3:1:1:1:1:1:2:1:1:2:1:3:4:8:9\n";
    replay::ParsedBlock parsed, back;
    replay::parse_block(text, 1, parsed);
    REQUIRE(parsed.order.size() == 3);
    replay::from_bytes(replay::to_bytes(parsed), back);
    CHECK(back.lines == 3);
    REQUIRE(back.states.size() == 1);
    CHECK(back.states[0].end == 10);
    REQUIRE(back.pairs.size() == 2);
    CHECK(back.pairs[1].value == 7);
    REQUIRE(back.comms.size() == 1);
    CHECK(back.comms[0].size == 8);
    CHECK_THROWS_AS(replay::from_bytes("garbage", back), std::runtime_error);
}

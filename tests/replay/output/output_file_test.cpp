// SPDX-License-Identifier: BSD-3-Clause
// An output named *.gz is gzip: zlib, another implementation than the ISA-L that writes it, reads
// back every byte, whether the text came in one piece or in many.
#include "replay/output/output_file.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <zlib.h>

using namespace popsim;

namespace {
std::string gunzip(const std::string& path) {
    gzFile in = gzopen(path.c_str(), "rb");
    REQUIRE(in != nullptr);
    std::string text;
    char buffer[1 << 16];
    for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    CHECK(gzeof(in) == 1);
    gzclose(in);
    return text;
}
} // namespace

TEST_CASE("output file: a path ending in .gz is written gzip-compressed (issue 36, item 12)") {
    const auto dir = test::scratch_dir("output_file_gzip");
    std::string text; // 6 MB of Paraver-like lines, more than the compressor's output buffer
    for (int i = 0; text.size() < 6'000'000; ++i)
        text += "2:1:1:" + std::to_string(i % 7 + 1) + ":1:" + std::to_string(1000 + 37 * i) +
                ":50000001:" + std::to_string(i % 13) + "\n";
    SUBCASE("in one piece") {
        const auto path = (dir / "whole.prv.gz").string();
        replay::write_whole_file(path, text);
        CHECK(test::read_file(path).substr(0, 2) == "\x1f\x8b"); // gzip's magic number
        CHECK(gunzip(path) == text);
    }
    SUBCASE("line by line, and an empty file") {
        const auto path = (dir / "lines.prv.gz").string();
        replay::OutputFile out(path);
        for (std::size_t at = 0; at < text.size();) {
            const auto end = text.find('\n', at) + 1;
            out.write(std::string_view(text).substr(at, end - at));
            at = end;
        }
        out.commit();
        CHECK(gunzip(path) == text);
        const auto empty = (dir / "empty.gz").string();
        replay::write_whole_file(empty, "");
        CHECK(gunzip(empty).empty());
    }
    SUBCASE("any other name is written as it is") {
        const auto path = (dir / "plain.prv").string();
        replay::write_whole_file(path, text);
        CHECK(test::read_file(path) == text);
    }
}

TEST_CASE("output file: a symbolic link is written through, never replaced") {
    namespace fs = std::filesystem;
    const auto dir = test::scratch_dir("output_file_links");
    for (const auto* name : {"real.json", "link.json", "sub/link.json", "descriptor", "written"})
        fs::remove(dir / name);
    fs::create_directories(dir / "sub");
    replay::write_whole_file((dir / "real.json").string(), "old");
    SUBCASE("to a file: the file is replaced whole, the link stays") {
        fs::create_symlink("real.json", dir / "link.json");
        fs::create_symlink("../real.json", dir / "sub/link.json"); // relative to its own folder
        replay::write_whole_file((dir / "link.json").string(), "new");
        CHECK(fs::is_symlink(fs::symlink_status(dir / "link.json")));
        CHECK(test::read_file((dir / "real.json").string()) == "new");
        replay::write_whole_file((dir / "sub/link.json").string(), "newer");
        CHECK(fs::is_symlink(fs::symlink_status(dir / "sub/link.json")));
        CHECK(test::read_file((dir / "real.json").string()) == "newer");
        CHECK_FALSE(fs::exists(dir / "real.json.partial"));
    }
    SUBCASE("to an open descriptor (as /dev/stdout is): written through it, in place") {
        const int fd = ::open((dir / "written").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        REQUIRE(fd >= 0);
        fs::create_symlink("/proc/self/fd/" + std::to_string(fd), dir / "descriptor");
        replay::write_whole_file((dir / "descriptor").string(), "through");
        ::close(fd);
        CHECK(fs::is_symlink(fs::symlink_status(dir / "descriptor")));
        CHECK(test::read_file((dir / "written").string()) == "through");
    }
}

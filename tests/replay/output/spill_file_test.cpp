// SPDX-License-Identifier: BSD-3-Clause
// Spilled streams come back as they were written, whatever the interleaving, the number of
// streams (which sets the block size) or the readers reading at once; a spill that cannot be made
// names the output it serves.
#include "replay/output/output_file.hpp"
#include "replay/output/spill_file.hpp"
#include "test_support.hpp"

#include <cstdlib>
#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace popsim;
using replay::Spill;

namespace {
struct Item {
    std::uint32_t stream;
    std::uint64_t number;
};
} // namespace

TEST_CASE("spill: each stream reads back in order, two readers at once") {
    const auto dir = test::scratch_dir("spill_order");
    for (const std::size_t streams : {std::size_t{3}, std::size_t{5000}}) {
        CAPTURE(streams);
        Spill<Item> spill((dir / "out.prv").string(), streams);
        // Stream s gets s % 7 * 1000 items (some none), written round robin.
        std::vector<std::uint64_t> wanted(streams);
        for (std::size_t s = 0; s < streams; ++s) wanted[s] = s % 7 * 1000;
        const std::size_t rounds = 6000;
        for (std::uint64_t k = 0; k < rounds; ++k)
            for (std::uint32_t s = 0; s < streams; ++s)
                if (k < wanted[s]) spill.append(s, Item{s, k});
        spill.finish_writing();
        std::uint64_t total = 0;
        for (auto w : wanted) total += w;
        CHECK(spill.bytes_written() == total * sizeof(Item));
        for (std::uint32_t s = 0; s<streams; s += streams> 10 ? 997 : 1) {
            auto first = spill.reader(s), second = spill.reader(s);
            Item a, b;
            std::uint64_t read = 0;
            bool exact = true;
            while (first.next(a)) {
                exact = exact && second.next(b) && a.stream == s && a.number == read &&
                        b.number == read;
                ++read;
            }
            CHECK(exact);
            CHECK(read == wanted[s]);
            CHECK(!second.next(b));
            CHECK(!first.next(a)); // and stays at its end
        }
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir)) // nothing left behind
        CHECK(entry.path().filename().string().find("popsim-spill") == std::string::npos);
}

TEST_CASE("spill: made in the temporary folder when the output's cannot hold it, else an error "
          "naming the output") {
    const auto dir = test::scratch_dir("spill_where");
    // A device's folder (/dev) is no place for it: the temporary folder is.
    {
        Spill<Item> spill("/dev/null", 1);
        spill.append(0, Item{0, 42});
        spill.finish_writing();
        Item item;
        auto reader = spill.reader(0);
        CHECK((reader.next(item) && item.number == 42));
    }
    const char* saved = std::getenv("TMPDIR");
    const std::string saved_value = saved ? saved : "";
    ::setenv("TMPDIR", (dir / "no-such-folder").c_str(), 1);
    const std::string output = (dir / "missing" / "out.prv").string();
    try {
        Spill<Item> spill(output, 1);
        FAIL("a spill was made where no folder exists");
    } catch (const replay::OutputError& e) {
        CHECK(std::string(e.what()).starts_with(output + ": cannot write: "));
    }
    if (saved)
        ::setenv("TMPDIR", saved_value.c_str(), 1);
    else
        ::unsetenv("TMPDIR");
}

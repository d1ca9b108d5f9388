// Issue 19: Score-P's OTF2 archives read through the OTF2 library. The expected counts are
// otf2-print's (Debian's otf2-tools), saved in ../shared/data/otf2/summaries.txt and printed
// again here per location; the ping-pong's times are read off otf2-print's listing.
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_reader.hpp"
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace popsim;

namespace {

/// The archives' anchor files, by folder name.
std::map<std::string, std::string> archives() {
    std::map<std::string, std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(test::shared_data("otf2")))
        if (e.path().filename() == "traces.otf2")
            out[std::filesystem::relative(e.path(), test::shared_data("otf2")).begin()->string()] =
                e.path().string();
    return out;
}

/// summaries.txt's record counts per archive: "ENTER=196 LEAVE=196 ... TOTAL=428".
std::map<std::string, std::string> saved_counts() {
    std::ifstream in(test::shared_data("otf2/summaries.txt"));
    std::map<std::string, std::string> out;
    std::string line, archive;
    while (std::getline(in, line)) {
        if (line.starts_with("### ")) archive = line.substr(4, line.find(' ', 4) - 4);
        if (line.find("TOTAL=") != std::string::npos) out[archive] = line;
    }
    return out;
}

/// popsim's counts summed over the locations, in summaries.txt's form (kinds sorted).
std::string summed(const std::vector<replay::Otf2LocationRecords>& locations) {
    std::map<std::string, std::uint64_t> kinds;
    std::uint64_t total = 0;
    for (const auto& l : locations) {
        for (const auto& [kind, count] : l.records) {
            kinds[std::string(kind)] += count;
            total += count;
        }
    }
    std::string out;
    for (const auto& [kind, count] : kinds) out += fmt::format("{}={} ", kind, count);
    return out + fmt::format("TOTAL={} ", total);
}

/// otf2-print's listing: each event line is KIND LOCATION TIMESTAMP ATTRIBUTES.
struct Listed {
    std::string kind;
    std::uint64_t location;
    std::uint64_t time;
    std::string attributes;
};
std::vector<Listed> listing(const std::string& anchor) {
    const auto r = test::run_shell("otf2-print " + anchor + " 2>/dev/null");
    REQUIRE(r.status == 0);
    std::vector<Listed> out;
    static const std::regex event(R"(^([A-Z][A-Z_0-9]+) +(\d+) +(\d+) *(.*)$)");
    std::istringstream lines(r.output);
    std::smatch m;
    for (std::string line; std::getline(lines, line);)
        if (std::regex_match(line, m, event))
            out.push_back({m[1], std::stoull(m[2]), std::stoull(m[3]), m[4]});
    return out;
}

} // namespace

TEST_CASE("otf2: every archive's records per kind and per location are otf2-print's") {
    const auto saved = saved_counts();
    const bool have_otf2_print = test::run_shell("command -v otf2-print").status == 0;
    std::size_t checked = 0;
    for (const auto& [name, anchor] : archives()) {
        CAPTURE(name);
        const replay::Otf2Archive archive(anchor);
        const auto locations = archive.record_counts();
        REQUIRE(saved.count(name) == 1);
        CHECK(summed(locations) == saved.at(name));
        ++checked;
        if (!have_otf2_print) continue;
        std::map<std::pair<std::uint64_t, std::string>, std::uint64_t> printed, ours;
        for (const auto& e : listing(anchor)) ++printed[{e.location, e.kind}];
        for (const auto& l : locations)
            for (const auto& [kind, count] : l.records)
                ours[{l.location, std::string(kind)}] = count;
        CHECK(ours == printed);
    }
    CHECK(checked == 18);
}

TEST_CASE("otf2: the ping-pong's runtime and useful time per rank, off otf2-print's listing") {
    // pipit's ping-pong (2 ranks). By otf2-print: the clock runs at 2,095,197,216 ticks/s from
    // 7,397,466,976,977,800. A rank's useful time is the time between its first and last record
    // outside MPI regions; the runtime is the latest record.
    const auto anchor = test::shared_data("otf2/pipit-ping-pong/traces.otf2");
    constexpr std::uint64_t k_resolution = 2'095'197'216, k_offset = 7'397'466'976'977'800;
    std::map<std::uint64_t, Time> first, last, in_mpi, entered;
    std::map<std::uint64_t, int> depth;
    for (const auto& e : listing(anchor)) {
        const Time t =
            static_cast<Time>((e.time - k_offset) / k_resolution * 1'000'000'000 +
                              (e.time - k_offset) % k_resolution * 1'000'000'000 / k_resolution);
        first.try_emplace(e.location, t);
        last[e.location] = t;
        if (e.attributes.find("Region: \"MPI_") == std::string::npos) continue;
        if (e.kind == "ENTER" && depth[e.location]++ == 0) entered[e.location] = t;
        if (e.kind == "LEAVE" && --depth[e.location] == 0)
            in_mpi[e.location] += t - entered[e.location];
    }
    REQUIRE(first.size() == 2);
    const auto trace = replay::read_paraver(anchor, test::quiet_options());
    CHECK(trace.end_time() == std::max(last[0], last[1]));
    CHECK(trace.end_time() == 199'604'459);
    const auto dir = test::scratch_dir("otf2_ping_pong");
    const auto json = (dir / "pp.json").string();
    REQUIRE(test::run_popsim("analyze --quiet " + anchor + " --json " + json).status == 0);
    const auto useful = test::read_json(json)["traces"][0]["useful_ns"]["per_thread"];
    CHECK(useful[0] == last[0] - first[0] - in_mpi[0]);
    CHECK(useful[1] == last[1] - first[1] - in_mpi[1]);
    CHECK(useful == nlohmann::json::array({2'441'688, 3'038'537}));
}

TEST_CASE("otf2: a missing event file is the archive's error") {
    const auto dir = test::scratch_dir("otf2_missing_events");
    const auto source = std::filesystem::path(test::shared_data("otf2/casita-4_mpi_ls_barr"));
    std::filesystem::copy(source, dir / "run", std::filesystem::copy_options::recursive);
    std::filesystem::remove(dir / "run" / "traces" / "2.evt");
    const auto r = test::run_popsim("analyze " + (dir / "run" / "traces.otf2").string());
    CHECK(r.status == 2);
    CHECK(r.output.find("traces.otf2: location 2") != std::string::npos);
}

TEST_CASE("otf2: the commands around an archive: events, a window, cut refused") {
    const auto anchor = test::shared_data("otf2/casita-10_scorep_mpi_tags/traces.otf2");
    // summaries.txt: ENTER=196 LEAVE=196 MPI_RECV=18 MPI_SEND=18 over 10 locations.
    const auto events = test::run_popsim("events " + anchor);
    REQUIRE(events.status == 0);
    CHECK(events.output.find("ENTER                                      196") !=
          std::string::npos);
    CHECK(events.output.find("MPI_SEND                                    18") !=
          std::string::npos);
    // A window of the ping-pong: 4 ms long, from 195 ms.
    const auto ping_pong = test::shared_data("otf2/pipit-ping-pong/traces.otf2");
    const auto window =
        test::run_popsim("analyze --quiet " + ping_pong + " --from 195ms --to 199ms --no-color");
    REQUIRE(window.status == 0);
    CHECK(test::table_row(window.output, "Runtime (s)") == test::Cells{"0.004000"});
    // cut copies Paraver records: it refuses an archive, saying what to do instead.
    const auto cut = test::run_popsim("cut " + ping_pong + " --from 1ms -o " +
                                      (test::scratch_dir("otf2_cut") / "c.prv").string());
    CHECK(cut.status == 1);
    CHECK(cut.output.find("analyze --from/--to") != std::string::npos);
}

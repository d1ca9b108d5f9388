// SPDX-License-Identifier: BSD-3-Clause
// Issue 19: Score-P's OTF2 archives read through the OTF2 library. The expected counts are
// otf2-print's (Debian's otf2-tools), saved in ../shared/data/otf2/summaries.txt and printed
// again here per location; the ping-pong's times are read off otf2-print's listing.
#include "replay/input/otf2_archive.hpp"
#include "replay/input/paraver_reader.hpp"
#include "simulator/cli_support.hpp"
#include "test_support.hpp"

#include <array>
#include <deque>
#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <otf2/otf2.h>
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
        CAPTURE_BINDING(name);
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

TEST_CASE("otf2: a missing local definitions file is the archive's error, named") {
    // Issue 35, item 4: without it the location's references were read as global ones (other
    // numbers, and a warning about message matching).
    const auto dir = test::scratch_dir("otf2_missing_definitions");
    const auto source = std::filesystem::path(test::shared_data("otf2/pipit-ping-pong"));
    std::filesystem::copy(source, dir / "run", std::filesystem::copy_options::recursive);
    std::filesystem::remove(dir / "run" / "traces" / "1.def");
    const auto anchor = (dir / "run" / "traces.otf2").string();
    const auto r = test::run_popsim("analyze " + anchor);
    CHECK(r.status == 2);
    CHECK(r.output == fmt::format("popsim: error: {}: location 1 (Master thread): its definitions "
                                  "file {} is missing\n",
                                  anchor, (dir / "run" / "traces" / "1.def").string()));
}

TEST_CASE("otf2: an anchor file that is not OTF2's is refused before the library opens it") {
    // Issue 35, item 5: the OTF2 library leaks what it allocated when it fails to open one (the
    // ASan build then exited 1, not 2).
    const auto dir = test::scratch_dir("otf2_garbage_anchor");
    const auto anchor = test::write_file(dir / "traces.otf2", "garbage\n");
    const auto r = test::run_popsim("analyze " + anchor);
    CHECK(r.status == 2);
    CHECK(r.output == "popsim: error: " + anchor +
                          ": not an OTF2 archive: its anchor file does not begin with OTF2's "
                          "header\n");
}

namespace {

/// Writes, through the OTF2 library, a one-rank archive whose events name what its definitions
/// lack: MPI_Send [100, 200) ns sends 8 bytes to rank 0 that nothing receives, and region 7
/// (undefined) is entered at 300 and left at 400; a send and a receive at 250 and 260 ns lie in no
/// MPI region.
std::string faulty_archive(const std::filesystem::path& dir) {
    OTF2_Archive* a = OTF2_Archive_Open(dir.c_str(), "faulty", OTF2_FILEMODE_WRITE, 1 << 20,
                                        1 << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    REQUIRE(a != nullptr);
    static OTF2_FlushCallbacks flush{
        [](void*, OTF2_FileType, OTF2_LocationRef, void*, bool) -> OTF2_FlushType {
            return OTF2_FLUSH;
        },
        [](void*, OTF2_FileType, OTF2_LocationRef) -> OTF2_TimeStamp { return 0; }};
    OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, 0);
    OTF2_EvtWriter_Enter(w, nullptr, 100, 0);
    OTF2_EvtWriter_MpiSend(w, nullptr, 100, 0, 0, 1, 8);
    OTF2_EvtWriter_Leave(w, nullptr, 200, 0);
    OTF2_EvtWriter_MpiSend(w, nullptr, 250, 0, 0, 2, 8); // in no MPI region (as APEX writes them)
    OTF2_EvtWriter_MpiRecv(w, nullptr, 260, 0, 0, 2, 8);
    OTF2_EvtWriter_Enter(w, nullptr, 300, 7);
    OTF2_EvtWriter_Leave(w, nullptr, 400, 7);
    std::uint64_t events = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &events);
    OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, 0));
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1'000'000'000, 0, 400, OTF2_UNDEFINED_TIMESTAMP);
    const char* strings[] = {"", "MPI_Send", "machine", "MPI Rank 0", "Master thread", "world"};
    for (OTF2_StringRef k = 0; k < 6; ++k) OTF2_GlobalDefWriter_WriteString(g, k, strings[k]);
    OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 3, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, 4, OTF2_LOCATION_TYPE_CPU_THREAD, events, 0);
    const std::uint64_t members[] = {0};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 5, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 1, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 5, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 1, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 5, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_CloseGlobalDefWriter(a, g);
    REQUIRE(OTF2_Archive_Close(a) == OTF2_SUCCESS);
    return (dir / "faulty.otf2").string();
}

} // namespace

TEST_CASE("otf2: undefined regions and unmatched messages are left out, each with a warning") {
    const auto anchor = faulty_archive(test::scratch_dir("otf2_faulty"));
    const auto r = test::run_popsim("analyze " + anchor + " --no-color");
    REQUIRE(r.status == 0);
    CHECK(r.output.find(": 2 region entries and exits name a region the definitions lack, and "
                        "are left out") != std::string::npos);
    CHECK(r.output.find(": message halves (sends or receives) found no partner and are left out") !=
          std::string::npos);
    // Issue 34, item 5: messages outside MPI regions were dropped without the promised warning.
    CHECK(r.output.find(": 2 message records (MpiSend, MpiIsend, MpiRecv, MpiIrecv) lie in no MPI "
                        "call region and are left out") != std::string::npos);
    // By hand: of the run's 400 ns (from the clock's start), the rank is in MPI_Send for 100 and
    // computes in the last 200 (the undefined region counts as computation): CommE 200/400.
    CHECK(test::table_row(r.output, "Communication efficiency") == test::Cells{"50.00%"});
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
    // --region by name: the archive's definitions name its regions (otf2-print -G: region 261 is
    // the function "jacobi", Extrae's user-function value 261 + 1).
    const auto jacobi = test::shared_data("otf2/casita-2_jacobi_blame_cpu_015/traces.otf2");
    const auto region =
        test::run_popsim("analyze --quiet " + jacobi + " --region jacobi --no-color");
    REQUIRE(region.status == 0);
    CHECK(region.output.find("region User function jacobi (60000019:262)") != std::string::npos);
    // cut copies Paraver records: it refuses an archive, saying what to do instead.
    const auto cut = test::run_popsim("cut " + ping_pong + " --from 1ms -o " +
                                      (test::scratch_dir("otf2_cut") / "c.prv").string());
    CHECK(cut.status == 1);
    CHECK(cut.output.find("analyze --from/--to") != std::string::npos);
}

TEST_CASE("otf2: the ping-pong's ideal runtime and useful time, by a model of its chain") {
    // On the ideal network each of the two ranks runs its computation (the gaps between its MPI
    // calls in otf2-print's listing, the first from time 0, the last to its last record) and:
    // MPI_Init ends when both have reached it (prv2dim's barrier); Comm_size, Comm_rank and
    // Finalize take no time; a Recv ends when it and its message's Send have both begun; a Send
    // of 32 KiB or more (rendezvous) ends when its Recv has begun too, a smaller one at once.
    const auto anchor = test::shared_data("otf2/pipit-ping-pong/traces.otf2");
    constexpr std::uint64_t k_resolution = 2'095'197'216, k_offset = 7'397'466'976'977'800;
    constexpr std::uint64_t k_eager_limit = 32 * 1024;
    struct Call {
        std::string name;
        Time gap;                // the computation before it
        std::uint64_t bytes = 0; // of the message it sends or receives
    };
    std::array<std::vector<Call>, 2> calls;
    std::array<Time, 2> left{0, 0}, last{0, 0}, first{-1, -1};
    std::array<std::pair<Time, Time>, 2> init, finalize; // [enter, leave)
    static const std::regex region(R"(Region: "(MPI_\w+)\")"), length(R"(Length: (\d+))");
    for (const auto& e : listing(anchor)) {
        const Time t =
            static_cast<Time>((e.time - k_offset) / k_resolution * 1'000'000'000 +
                              (e.time - k_offset) % k_resolution * 1'000'000'000 / k_resolution);
        auto& mine = calls[e.location];
        last[e.location] = t;
        if (first[e.location] < 0) first[e.location] = t;
        std::smatch m;
        if (e.kind == "ENTER" && std::regex_search(e.attributes, m, region)) {
            mine.push_back({m[1], t - left[e.location]});
            if (m[1] == "MPI_Init") init[e.location].first = t;
            if (m[1] == "MPI_Finalize") finalize[e.location].first = t;
        }
        if (e.kind == "LEAVE" && std::regex_search(e.attributes, m, region)) {
            left[e.location] = t;
            if (m[1] == "MPI_Init") init[e.location].second = t;
            if (m[1] == "MPI_Finalize") finalize[e.location].second = t;
        }
        if ((e.kind == "MPI_SEND" || e.kind == "MPI_RECV") &&
            std::regex_search(e.attributes, m, length))
            mine.back().bytes = std::stoull(m[1]);
    }
    // Each rank's clock and next call; `sent[r]`: when r's messages not yet received began;
    // `posted[r]`: when r's receives of rendezvous messages began, not yet sent.
    std::array<Time, 2> clock{0, 0}, useful{0, 0};
    std::array<std::size_t, 2> next{0, 0};
    std::array<std::optional<Time>, 2> began;
    std::array<std::deque<Time>, 2> sent, posted;
    const auto finish = [&](int r, Time end) {
        clock[r] = end;
        began[r].reset();
        ++next[r];
    };
    for (bool moved = true; moved;) {
        moved = false;
        for (int r = 0; r < 2; ++r) {
            const int other = 1 - r;
            if (next[r] == calls[r].size()) continue;
            const auto& c = calls[r][next[r]];
            if (!began[r]) {
                clock[r] += c.gap;
                useful[r] += c.gap;
                began[r] = clock[r];
                if (c.name == "MPI_Recv" && c.bytes >= k_eager_limit) posted[r].push_back(clock[r]);
            }
            const Time at = *began[r];
            if (c.name == "MPI_Init") {
                if (!began[other] || calls[other][next[other]].name != "MPI_Init") continue;
                const Time end = std::max(at, *began[other]);
                finish(r, end);
                finish(other, end);
            } else if (c.name == "MPI_Send" && c.bytes < k_eager_limit) {
                sent[r].push_back(at);
                finish(r, at);
            } else if (c.name == "MPI_Send") {
                if (posted[other].empty()) continue;
                sent[r].push_back(at);
                finish(r, std::max(at, posted[other].front()));
                posted[other].pop_front();
            } else if (c.name == "MPI_Recv") {
                if (sent[other].empty()) continue;
                finish(r, std::max(at, sent[other].front()));
                sent[other].pop_front();
            } else {
                finish(r, at);
            }
            moved = true;
        }
    }
    REQUIRE(next[0] == calls[0].size());
    REQUIRE(next[1] == calls[1].size());
    for (int r = 0; r < 2; ++r) {
        useful[r] += last[r] - left[r];
        clock[r] += last[r] - left[r];
    }
    const auto dir = test::scratch_dir("otf2_ping_pong_ideal");
    const auto json = (dir / "pp.json").string();
    REQUIRE(test::run_popsim("analyze --quiet " + anchor + " --json " + json).status == 0);
    const auto t = test::read_json(json)["traces"][0];
    CHECK(t["ideal"]["task_end_ns"] == nlohmann::json::array({clock[0], clock[1]}));
    CHECK(t["ideal"]["task_useful_ns"] == nlohmann::json::array({useful[0], useful[1]}));
    // modelfactors' efficiencies from these and the traced useful times (the test above).
    const double runtime = 199'604'459, ideal = static_cast<double>(std::max(clock[0], clock[1]));
    const double max_useful = 3'038'537, average_useful = (2'441'688 + 3'038'537) / 2.0;
    const auto e = t["mpi_multiplicative"];
    CHECK(e["load_balance"].get<double>() == doctest::Approx(average_useful / max_useful));
    CHECK(e["communication_efficiency"].get<double>() == doctest::Approx(max_useful / runtime));
    // Start-up and shut-down (docs/metrics.md): rank 1 is in MPI_Init while rank 0 is not created
    // yet, then both are in it (once rank 0 has computed up to it) until the first exit, and both
    // are in MPI_Finalize from the later entry to the earlier exit, then past their last records;
    // on the ideal network rank 1 waits in MPI_Init's barrier until rank 0 is created (S_id),
    // and Score-P's MPI_Init and MPI_Finalize cost nothing.
    REQUIRE(first[0] > init[1].first); // rank 0 starts after rank 1 is in MPI_Init
    REQUIRE(init[0].first > first[0]);
    const Time startup =
        (first[0] - init[1].first) + (std::min(init[0].second, init[1].second) - init[0].first);
    const Time shutdown = std::min(finalize[0].second, finalize[1].second) -
                          std::max(finalize[0].first, finalize[1].first) +
                          (199'604'459 - std::max(last[0], last[1]));
    const Time ideal_startup = first[0] - init[1].first;
    CHECK(t["startup_shutdown_ns"]["traced"] == startup + shutdown);
    CHECK(t["startup_shutdown_ns"]["ideal"] == ideal_startup);
    const double startup_efficiency = (runtime - static_cast<double>(startup + shutdown)) / runtime;
    CHECK(e["startup_efficiency"].get<double>() == doctest::Approx(startup_efficiency));
    const double serialisation = static_cast<double>(std::max(useful[0], useful[1])) / ideal;
    CHECK(e["serialization_efficiency"].get<double>() == doctest::Approx(serialisation));
    CHECK(e["transfer_efficiency"].get<double>() ==
          doctest::Approx(max_useful / runtime / startup_efficiency / serialisation));
    CHECK(e["transfer_efficiency"].get<double>() > 0.5); // was 1.7 %, with MPI_Init in it
}

TEST_CASE("otf2: an MPI+OpenMP archive keeps its threads and parallel regions") {
    // CASITA's Jacobi: 2 ranks x 4 OpenMP threads (and 2 CUDA streams, left out). Each
    // THREAD_FORK of a master opens a parallel region: summaries.txt counts 4009.
    const auto anchor = test::shared_data("otf2/casita-2_jacobi_blame_cpu_015/traces.otf2");
    const auto json = (test::scratch_dir("otf2_hybrid") / "j.json").string();
    const auto r = test::run_popsim("analyze --quiet " + anchor + " --json " + json);
    REQUIRE(r.status == 0);
    const auto hybrid = test::read_json(json)["traces"][0]["hybrid"];
    CHECK(hybrid["layout"]["processes"] == 2);
    CHECK(hybrid["layout"]["threads_per_process"] == 4);
    std::uint64_t instances = 0;
    for (const auto& region : hybrid["regions"]) {
        instances += region["instances"].get<std::uint64_t>();
        CHECK(region["name"].get<std::string>().starts_with("!$omp parallel @jacobi_cuda.c:"));
    }
    CHECK(instances == 4009);
    for (const auto* model : {"hybrid_additive", "hybrid_multiplicative"}) {
        for (const auto& [name, value] : hybrid[model].items()) {
            if (!value.is_number()) continue;
            CAPTURE_BINDING(name);
            CHECK(value.get<double>() >= 0);
            CHECK(value.get<double>() <= 1.0);
        }
    }
}

TEST_CASE("otf2: counters of useful time, off otf2-print's listing (the ping-pong with PAPI)") {
    // Score-P reads PAPI_TOT_CYC (accumulated) at every region's entry and exit. A rank's useful
    // cycles are, over its spans outside MPI regions (from its first record to its first MPI
    // entry, between an MPI exit and the next entry, from its last MPI exit to its last record),
    // the counter's latest value at the span's end less that at its start.
    const auto anchor = test::shared_data("otf2/pipit-ping-pong-papi/traces.otf2");
    const auto listed = listing(anchor);
    std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> reads;
    static const std::regex cycles(R"re("PAPI_TOT_CYC" <\d+>; UINT64; (\d+))re");
    for (const auto& e : listed) {
        std::smatch m;
        if (e.kind == "METRIC" && std::regex_search(e.attributes, m, cycles))
            reads[e.location].emplace_back(e.time, std::stoull(m[1]));
    }
    const auto at = [&](std::uint64_t location, std::uint64_t time) {
        std::uint64_t value = reads[location].front().second;
        for (const auto& [t, v] : reads[location])
            if (t <= time) value = v;
        return value;
    };
    std::map<std::uint64_t, std::uint64_t> span_start, last;
    std::map<std::uint64_t, int> depth;
    std::uint64_t useful_cycles = 0;
    for (const auto& e : listed) {
        span_start.try_emplace(e.location, e.time);
        last[e.location] = e.time;
        if (e.attributes.find("Region: \"MPI_") == std::string::npos) continue;
        if (e.kind == "ENTER" && depth[e.location]++ == 0)
            useful_cycles += at(e.location, e.time) - at(e.location, span_start[e.location]);
        if (e.kind == "LEAVE" && --depth[e.location] == 0) span_start[e.location] = e.time;
    }
    for (const auto& [location, time] : last)
        useful_cycles += at(location, time) - at(location, span_start[location]);
    const auto json = (test::scratch_dir("otf2_papi") / "p.json").string();
    REQUIRE(test::run_popsim("analyze --quiet " + anchor + " --json " + json).status == 0);
    const auto t = test::read_json(json)["traces"][0];
    CHECK(t["useful_cycles"] == useful_cycles);
    CHECK(useful_cycles == 2'454'193);
    // No PAPI_TOT_INS in this archive: no IPC and no instructions, rather than 0.
    CHECK(t["mpi_multiplicative"]["average_ipc"].is_null());
    CHECK(t["useful_instructions"].is_null());
}

TEST_CASE("otf2: a Score-P experiment folder is a run, a folder of them a series") {
    const auto data = test::shared_data("otf2");
    const auto one = test::run_popsim("analyze --quiet --no-color " + data + "/pipit-ping-pong");
    REQUIRE(one.status == 0);
    CHECK(test::table_row(one.output, "Runtime (s)") == test::Cells{"0.199604"});
    // Two Jacobi runs (1.5 % and 5 % of CPU blame), as a series, in natural order.
    const auto dir = test::scratch_dir("otf2_series");
    for (const char* run : {"casita-2_jacobi_blame_cpu_015", "casita-2_jacobi_blame_cpu_050"})
        std::filesystem::create_directory_symlink(std::filesystem::path(data) / run, dir / run);
    const auto json = (dir / "s.json").string();
    REQUIRE(test::run_popsim("analyze --quiet " + dir.string() + " --json " + json).status == 0);
    const auto traces = test::read_json(json)["traces"];
    REQUIRE(traces.size() == 2);
    CHECK(traces[0]["path"].get<std::string>().ends_with("cpu_015/traces.otf2"));
    CHECK(traces[1]["path"].get<std::string>().ends_with("cpu_050/traces.otf2"));
}

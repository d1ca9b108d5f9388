// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Helpers shared by the tests: where the validation data is, scratch files, synthetic traces.
#include "replay/input/paraver_reader.hpp"
#include "replay/synth.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

/// CAPTURE for a structured binding: clang 14 refuses one inside CAPTURE's lambda (C++20 allows
/// it; clang 16 does).
#define CAPTURE_BINDING(x)                                                                         \
    const auto& x##_captured = x;                                                                  \
    INFO(#x " := " << x##_captured)

namespace popsim::test {

/// The exit status that tells CTest a test was skipped (SKIP_RETURN_CODE in tests/CMakeLists.txt).
inline constexpr int k_skipped = 77;

/// The validation data: $POPSIM_DATA, else ../shared/data beside the checkout.
inline std::string shared_data_dir() {
    const char* dir = std::getenv("POPSIM_DATA");
    return dir != nullptr && *dir != '\0' ? dir : POPSIM_SHARED_DATA;
}

/// A file of the validation data. Without the data the test is skipped (exit status 77, which
/// CTest reports as skipped): a clone of the repository alone passes its tests.
inline std::string shared_data(const std::string& relative) {
    const std::string dir = shared_data_dir();
    if (!std::filesystem::is_directory(dir)) {
        std::printf("popsim-skip: this test needs the validation data, absent from %s (put it "
                    "there or set POPSIM_DATA; README, \"Tests\")\n",
                    dir.c_str());
        std::fflush(stdout);
        std::exit(k_skipped);
    }
    return dir + "/" + relative;
}

/// A fresh scratch directory for one test, under the build tree.
inline std::filesystem::path scratch_dir(const std::string& name) {
    auto dir = std::filesystem::current_path() / "scratch" / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

inline std::string write_file(const std::filesystem::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
}

/// The whole content of a file (a report popsim wrote).
inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

/// Replaces the first `from` in the file with `to` (a record synth does not write, say a receive
/// moved in time); false, the file unchanged, when `from` is not there.
inline bool replace_in_file(const std::string& path, const std::string& from,
                            const std::string& to) {
    auto text = read_file(path);
    const auto at = text.find(from);
    if (at == std::string::npos) return false;
    write_file(path, text.replace(at, from.size(), to));
    return true;
}

/// Writes the trace a synth description describes and returns its .prv path.
inline std::string synth_trace(const std::string& name, const std::string& description) {
    const auto path = (scratch_dir(name) / (name + ".prv")).string();
    replay::synth::write_paraver(replay::synth::parse_description(description, name), path);
    return path;
}

/// A valid MPI program whose replay with every collective member waiting for the last (Dimemas)
/// closes a cycle: rank 0 contributes to a Gather rooted at rank 1 at 1 s, leaves at once and
/// sends to rank 1, which receives that message (at 2 s) before it enters the Gather. Replayed
/// as the Gather's data flows (its members left early in the trace): rank 0 leaves at 1 s, sends,
/// computes 1 s: 2 s; rank 1 computes 2 s, has the message, the Gather's data is there, computes
/// 1 s: 3 s (real run: 3.002 s). Returns its .prv path.
inline std::string gather_cycle_trace(const std::string& name) {
    return synth_trace(name, R"(ranks 2
0 compute 1s
0 Gather 1ms root=1 size=8
0 Send 1ms to=1 size=8
0 compute 1s
1 compute 2s
1 Recv 1ms from=0 size=8
1 Gather 1ms root=1 size=8
1 compute 1s
)");
}

/// Every Paraver trace of the validation data (.prv.gz; not the simulated ones, nor the OTF2
/// archives' folder), sorted.
inline std::vector<std::string> real_paraver_traces() {
    const auto root = shared_data("");
    std::vector<std::string> traces;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
        const auto name = e.path().filename().string();
        if (name.ends_with(".prv.gz") && !name.ends_with(".sim.prv.gz") &&
            e.path().string().find("/otf2/") == std::string::npos)
            traces.push_back(e.path().string());
    }
    std::sort(traces.begin(), traces.end());
    return traces;
}

/// Synthetic traces the streaming pass must translate as the in-memory program does: a
/// rendezvous Isend/Wait with a rooted Bcast, a Sendrecv ring with rooted Reduces naming different
/// roots, an Allreduce and a receive without its record.
/// A program whose bursts prv2dim cuts at every kind of place: events at time 0, inside bursts,
/// at a call's entry and exit, user functions (tests/replay/input/prv2dim_cuts_test.cpp gives
/// the cuts, derived by hand).
inline constexpr const char* k_prv2dim_cuts_program = R"(ranks 2
0 event 40000001 1
0 event 40000050 3
0 compute 100ns
0 event 40000003 1
0 event 60000019 5
0 event 40000003 0
0 compute 100ns
0 event 42000050 7
0 Send 50ns to=1 size=8
0 event 40000003 1
0 compute 50ns
0 event 60000019 0
0 compute 50ns
0 event 40000001 0
1 at 50ns
1 event 60000019 2
1 event 60000019 0
1 Recv 350ns from=0 size=8
1 event 60000019 0
1 event 40000001 0
)";

inline constexpr std::pair<const char*, const char*> k_streaming_cases[] = {
    {"isend_wait_bcast", R"(ranks 2
0 compute 5us
0 Isend 1us to=1 size=102400 req=s
0 compute 7us
0 Wait 2us req=s
1 Irecv 1us from=0 size=102400 req=r
1 compute 3us
1 Wait 9us req=r
1 Bcast 2us root=1 size=8
0 Bcast 4us root=1 size=8
)"},
    {"sendrecv_reduce", R"(ranks 3
0 compute 4us
1 compute 6us
2 compute 1us
0 Sendrecv 3us to=1 from=2 size=1024
1 Sendrecv 3us to=2 from=0 size=1024
2 Sendrecv 9us to=0 from=1 size=1024
2 Reduce 2us root=2 size=8
0 Reduce 2us root=0 size=8
1 Reduce 2us root=2 size=8
0 Allreduce 2us size=8
1 Allreduce 2us size=8
2 Allreduce 2us size=8
0 Recv 2us size=8
)"},
};

// S1 OpenMP example (metrics-reference §3.2): 1 process x 3 threads, T = 16 s, serial useful 4 s on
// the master, a 12 s parallel region with useful 9, 9 and 6 s (the rest waiting in a barrier).
inline constexpr const char* k_omp_example = R"(ranks 1 threads 3
0.0 compute 4s
0.0 event 60000001 1
0.0 compute 9s
0.0 state 5 3s
0.0 event 60000001 0
0.1 at 4s
0.1 event 60000018 1
0.1 compute 9s
0.1 state 5 3s
0.1 event 60000018 0
0.2 at 4s
0.2 event 60000018 1
0.2 compute 6s
0.2 state 5 6s
0.2 event 60000018 0
)";

/// A chain of late senders (issue 18's hand cases): rank 0 computes 10 us and sends to rank 1,
/// which entered its Recv at 2 us; rank 1 then sends to rank 2, in its Recv since 1 us, which
/// computes 3 us more.
inline constexpr const char* k_late_sender_chain = R"(ranks 3
0 compute 10us
0 Send 1us to=1 size=8
1 compute 2us
1 Recv 9us from=0 size=8
1 Send 1us to=2 size=8
2 compute 1us
2 Recv 11us from=1 size=8
2 compute 3us
)";

/// The late-sender chain in user functions (60000019): rank 0 computes 4 us in function 1, then
/// 6 us in function 2 called from 1, and returns to 1 before its Send; rank 2 enters function 3
/// after 1 us and stays in it.
inline constexpr const char* k_chain_in_functions = R"(ranks 3
0 event 60000019 1
0 compute 4us
0 event 60000019 2
0 compute 6us
0 event 60000019 0
0 Send 1us to=1 size=8
1 compute 2us
1 Recv 9us from=0 size=8
1 Send 1us to=2 size=8
2 compute 1us
2 event 60000019 3
2 Recv 11us from=1 size=8
2 compute 3us
)";

/// A late root of a Bcast, then a late receiver of a rendezvous message: rank 0 (the root)
/// computes 6 us; ranks 1 and 2 enter the Bcast at 1 and 0 us. Rank 1 computes 2 us and sends
/// 64 KB (rendezvous) to rank 2, which posts its receive after 9 us of computing.
inline constexpr const char* k_late_root_and_rendezvous = R"(ranks 3
0 compute 6us
0 Bcast 1us root=0 size=8
1 compute 1us
1 Bcast 5us root=0 size=8
1 compute 2us
1 Send 2us to=2 size=65536
1 compute 1us
2 Bcast 1us root=0 size=8
2 compute 9us
2 Recv 1us from=1 size=65536
2 compute 1us
)";

/// An OpenMP worker thread that calls MPI (the streaming passes leave it to memory).
inline constexpr const char* k_worker_calls_mpi = R"(ranks 2 threads 2
0.0 event 60000001 1
0.0 compute 5us
0.0 event 60000001 0
0.1 compute 1us
0.1 Send 1us to=1 size=8
1.0 Recv 2us from=0 size=8
)";

/// Reading options for tests: the .pcf labels are not read.
inline replay::ReadOptions quiet_options() {
    replay::ReadOptions options;
    options.read_labels = false;
    return options;
}

inline replay::Trace read_quiet(const std::string& path) {
    return replay::read_paraver(path, quiet_options());
}

/// A warning log's lines, to compare two logs.
inline std::vector<std::string> warning_lines(const replay::WarningLog& log) {
    std::vector<std::string> out;
    for (const auto& w : log.all()) out.push_back(w.line());
    return out;
}

} // namespace popsim::test

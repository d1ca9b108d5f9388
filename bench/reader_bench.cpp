// SPDX-License-Identifier: BSD-3-Clause
// Reader benchmark: throughput (MB/s of uncompressed text, records/s) sequentially and in
// parallel, and peak memory per record. Usage: popsim_reader_bench TRACE.prv
#include "replay/allocator_tuning.hpp"
#include "replay/input/paraver_reader.hpp"

#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <string>

using namespace popsim::replay;

namespace {

/// The process's peak resident memory so far (VmHWM), in bytes.
std::uint64_t peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

struct ReadFigures {
    double seconds;
    std::uint64_t bytes, records;
};

ReadFigures timed_read(const char* path, unsigned threads) {
    ReadOptions o;
    o.threads = threads;
    o.read_labels = false;
    const auto t0 = std::chrono::steady_clock::now();
    const Trace trace = read_paraver(path, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {s, trace.counts.bytes, trace.counts.records()};
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        fmt::print(stderr, "usage: {} TRACE.prv\n", argv[0]);
        return 1;
    }
    keep_freed_memory_in_heap();
    const std::uint64_t baseline = peak_rss_bytes();
    const ReadFigures parallel = timed_read(argv[1], 0); // first: its peak is the model's memory
    const std::uint64_t peak = peak_rss_bytes() - baseline;
    const ReadFigures sequential = timed_read(argv[1], 1);
    const double mb = static_cast<double>(parallel.bytes) / 1e6,
                 records = static_cast<double>(parallel.records);
    fmt::print("trace                  {} ({:.0f} MB uncompressed, {:.0f} M records)\n", argv[1],
               mb, records / 1e6);
    fmt::print("read, all cores        {:6.3f} s  {:6.0f} MB/s  {:6.1f} M records/s\n",
               parallel.seconds, mb / parallel.seconds, records / parallel.seconds / 1e6);
    fmt::print("read, one thread       {:6.3f} s  {:6.0f} MB/s  {:6.1f} M records/s\n",
               sequential.seconds, mb / sequential.seconds, records / sequential.seconds / 1e6);
    fmt::print("peak memory            {:.0f} MB = {:.1f} bytes per record (target <= 16)\n",
               static_cast<double>(peak) / 1e6, static_cast<double>(peak) / records);
    return 0;
}

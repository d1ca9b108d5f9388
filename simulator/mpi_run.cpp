// SPDX-License-Identifier: BSD-3-Clause
#include "simulator/mpi_run.hpp"

#include "pipeline/console/diagnostics.hpp"
#include "simulator/failure.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <deque>
#include <fmt/format.h>
#include <limits>
#include <mpi.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sched.h>
#include <stdexcept>
#include <unistd.h>

namespace popsim::simulator {

namespace {

/// The divided read's messages (replay/input/divided_read.hpp): an ask is its range (five
/// numbers), a release nothing, an answer a parsed block's bytes.
constexpr int k_ask = 1, k_release = 2, k_answer = 3;
constexpr int k_range_numbers = 5;
/// What one MPI call moves at most, in bytes (its counts are int): larger data goes in pieces.
constexpr int k_piece = 1 << 30;

/// A reader's helpers. Destroyed, it releases every helper, asked or not.
class MpiReadHelpers final : public replay::ReadHelpers {
  public:
    /// `asked`: the helpers asked for ranges (none when MPI cannot be called from the reader's
    /// threads); `released`: every helper of the trace.
    MpiReadHelpers(MPI_Comm comm, std::vector<std::uint32_t> asked,
                   std::vector<std::uint32_t> released)
        : comm_(comm), asked_(std::move(asked)), released_(std::move(released)) {}
    ~MpiReadHelpers() override {
        for (auto& ask : sending_) MPI_Wait(&ask.request, MPI_STATUS_IGNORE);
        for (const auto rank : released_) // each waits for nothing else
            MPI_Send(nullptr, 0, MPI_BYTE, static_cast<int>(rank), k_release, comm_);
    }
    MpiReadHelpers(const MpiReadHelpers&) = delete;
    MpiReadHelpers& operator=(const MpiReadHelpers&) = delete;

    std::uint32_t count() const override { return static_cast<std::uint32_t>(asked_.size()); }
    /// Sent without waiting for the helper to take it: a blocking send may wait for its receive
    /// (the MPI standard allows it even for a few bytes), and the helper may be in its own send of
    /// an answer the reader is not receiving yet.
    void ask(std::uint32_t helper, const replay::BodyRange& range) override {
        forget_sent();
        auto& ask = sending_.emplace_back();
        ask.numbers = {range.body_begin, range.begin, range.end,
                       static_cast<std::uint64_t>(range.ns_per_unit), range.text_size};
        MPI_Isend(ask.numbers.data(), k_range_numbers, MPI_UINT64_T, rank(helper), k_ask, comm_,
                  &ask.request);
    }
    std::string answer(std::uint32_t helper) override {
        std::string block;
        for (int bytes = k_piece; bytes == k_piece;) { // a shorter piece ends it
            MPI_Status status;
            MPI_Probe(rank(helper), k_answer, comm_, &status);
            MPI_Get_count(&status, MPI_BYTE, &bytes);
            const std::size_t at = block.size();
            block.resize(at + static_cast<std::size_t>(bytes));
            MPI_Recv(block.data() + at, bytes, MPI_BYTE, rank(helper), k_answer, comm_,
                     MPI_STATUS_IGNORE);
        }
        return block;
    }

  private:
    /// An ask under way, whose numbers MPI reads until it is sent.
    struct Sending {
        std::array<std::uint64_t, k_range_numbers> numbers{};
        MPI_Request request = MPI_REQUEST_NULL;
    };

    int rank(std::uint32_t helper) const { return static_cast<int>(asked_.at(helper)); }
    /// Drops the asks sent, oldest first.
    void forget_sent() {
        for (int sent = 1; sent != 0 && !sending_.empty();) {
            MPI_Test(&sending_.front().request, &sent, MPI_STATUS_IGNORE);
            if (sent != 0) sending_.pop_front();
        }
    }

    MPI_Comm comm_;
    std::vector<std::uint32_t> asked_, released_;
    std::deque<Sending> sending_; // a deque: MPI holds pointers into its elements
};

/// A helper's asks from its reader.
class MpiReadRequests final : public replay::ReadRequests {
  public:
    MpiReadRequests(MPI_Comm comm, std::uint32_t reader)
        : comm_(comm), reader_(static_cast<int>(reader)) {}

    std::vector<replay::BodyRange> next() override {
        // The first ask waited for, then those already there: parsed side by side.
        std::vector<replay::BodyRange> asks;
        for (int there = 1; there != 0 && !released_;) {
            MPI_Status status;
            if (asks.empty())
                MPI_Probe(reader_, MPI_ANY_TAG, comm_, &status);
            else
                MPI_Iprobe(reader_, MPI_ANY_TAG, comm_, &there, &status);
            if (there == 0) break;
            if (status.MPI_TAG == k_release) {
                MPI_Recv(nullptr, 0, MPI_BYTE, reader_, k_release, comm_, MPI_STATUS_IGNORE);
                released_ = true;
                break;
            }
            std::array<std::uint64_t, k_range_numbers> numbers{};
            MPI_Recv(numbers.data(), k_range_numbers, MPI_UINT64_T, reader_, k_ask, comm_,
                     MPI_STATUS_IGNORE);
            asks.push_back({.body_begin = numbers[0],
                            .begin = numbers[1],
                            .end = numbers[2],
                            .ns_per_unit = static_cast<Time>(numbers[3]),
                            .text_size = numbers[4]});
        }
        return asks;
    }
    void answer(const std::string& parsed_block) override {
        // In pieces within MPI's int count (an OTF2 archive's locations can exceed it), the last
        // shorter than a whole piece, even empty.
        for (std::size_t at = 0;; at += k_piece) {
            const auto bytes = std::min<std::size_t>(k_piece, parsed_block.size() - at);
            MPI_Send(parsed_block.data() + at, static_cast<int>(bytes), MPI_BYTE, reader_, k_answer,
                     comm_);
            if (bytes < k_piece) break;
        }
    }

  private:
    MPI_Comm comm_;
    int reader_;
    bool released_ = false;
};

/// The failure an exception means (current_failure), outside a catch block.
Failure failure_of(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (...) {
        return current_failure();
    }
}

} // namespace

MpiRun::MpiRun(int& argc, char**& argv) {
    // One thread calls MPI at a time: the main thread, or the serial stage of the reader's
    // pipeline (a oneTBB thread) that takes the helpers' blocks. Without that, traces are read
    // whole by one process.
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    serialized_ = provided >= MPI_THREAD_SERIALIZED;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm_dup(MPI_COMM_WORLD, &reads_);
}

MpiRun::~MpiRun() {
    MPI_Comm_free(&reads_);
    MPI_Finalize();
}

void MpiRun::note_binding() const {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (!reports_here() || sched_getaffinity(0, sizeof allowed, &allowed) != 0 ||
        CPU_COUNT(&allowed) != 1 || cores <= 1)
        return;
    pipeline::print_note(fmt::format(
        "mpirun bound this process to one of the machine's {} cores, which popsim's threads then "
        "share; mpirun --bind-to none gives each process every core (--map-by ppr:1:node "
        "--bind-to none: one process per node)",
        cores));
}

std::unique_ptr<replay::ReadHelpers>
MpiRun::read_helpers(const std::vector<std::uint32_t>& helpers) {
    return std::make_unique<MpiReadHelpers>(
        reads_, serialized_ ? helpers : std::vector<std::uint32_t>(), helpers);
}

std::unique_ptr<replay::ReadRequests> MpiRun::read_requests(std::uint32_t reader) {
    return std::make_unique<MpiReadRequests>(reads_, reader);
}

std::vector<std::string> MpiRun::gather(const std::vector<std::string>& results,
                                        const std::vector<bool>& here,
                                        const std::vector<std::exception_ptr>& failures) {
    gathered_ = true;
    // This process's part: [i, bytes] per item it did, [i, status, message] per one that failed;
    // the reporting process keeps its own.
    auto part = nlohmann::json::array();
    std::optional<std::pair<std::size_t, Failure>> first_failure;
    for (std::size_t i = 0; i < here.size(); ++i) {
        if (!here[i]) continue;
        if (failures[i]) {
            const auto f = failure_of(failures[i]);
            if (reports_here() && !first_failure) first_failure.emplace(i, f);
            if (!reports_here()) part.push_back({i, f.status, f.message});
        } else if (!reports_here()) {
            part.push_back({i, nlohmann::json::binary({results[i].begin(), results[i].end()})});
        }
    }
    std::vector<std::uint8_t> mine;
    nlohmann::json::to_cbor(part, mine);
    return exchange(mine, here.size(), first_failure);
}

std::optional<std::string> MpiRun::share(std::optional<std::string> bytes) {
    // Its presence and length, then the bytes in pieces within MPI's int count.
    std::array<std::uint64_t, 2> header{bytes ? 1U : 0U, bytes ? bytes->size() : 0};
    MPI_Bcast(header.data(), 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (header[0] == 0) return std::nullopt;
    std::string shared = reports_here() ? std::move(*bytes) : std::string(header[1], '\0');
    for (std::size_t at = 0; at < shared.size(); at += k_piece) {
        MPI_Bcast(shared.data() + at,
                  static_cast<int>(std::min<std::size_t>(k_piece, shared.size() - at)), MPI_BYTE, 0,
                  MPI_COMM_WORLD);
    }
    return shared;
}

bool MpiRun::agree(bool ready) {
    if (agreed_) return true; // only the first call takes part in the collective
    agreed_ = true;
    int mine = ready ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all != 0;
}

void MpiRun::fail_gather(const Failure& failure) {
    if (gathered_) return;
    agree(false);
    gathered_ = true;
    constexpr auto before_any_item = std::numeric_limits<std::size_t>::max();
    const auto part = nlohmann::json::array({{before_any_item, failure.status, failure.message}});
    std::vector<std::uint8_t> mine;
    nlohmann::json::to_cbor(part, mine);
    try {
        exchange(mine, 0, std::pair{before_any_item, failure});
    } catch (const ForwardedFailure&) { // its own, or another's: this process reports its own
    }
}

std::vector<std::string>
MpiRun::exchange(const std::vector<std::uint8_t>& mine, std::size_t items,
                 std::optional<std::pair<std::size_t, Failure>> first_failure) {
    if (mine.size() > static_cast<std::size_t>(INT_MAX))
        throw std::runtime_error("an MPI process's results exceed 2 GiB: use more processes");
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(reports_here() ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(counts.size(), 0);
    long long total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = static_cast<int>(total);
        total += counts[r];
    }
    if (total > INT_MAX)
        throw std::runtime_error("the MPI processes' results exceed 2 GiB: divide the work less");
    std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
    MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                0, MPI_COMM_WORLD);
    if (!reports_here()) return {};
    std::vector<std::string> others(items);
    for (std::size_t r = 1; r < counts.size(); ++r) {
        const auto begin = all.begin() + offsets[r];
        for (const auto& entry : nlohmann::json::from_cbor(begin, begin + counts[r])) {
            const auto i = entry[0].get<std::size_t>();
            if (entry.size() == 3) {
                if (!first_failure || i < first_failure->first)
                    first_failure.emplace(
                        i, Failure{entry[1].get<int>(), entry[2].get<std::string>()});
                continue;
            }
            const auto& bytes = entry[1].get_binary();
            if (i < others.size()) others[i].assign(bytes.begin(), bytes.end());
        }
    }
    if (first_failure) throw ForwardedFailure(first_failure->second);
    return others;
}

} // namespace popsim::simulator

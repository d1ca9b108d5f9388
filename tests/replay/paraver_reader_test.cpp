// SPDX-License-Identifier: BSD-3-Clause
// The Paraver reader: what real traces do (paraver-format.md's pitfalls checklist) and every kind
// of bad input, each with its exact "file:line: cause" message.
#include "replay/input/paraver_labels.hpp"
#include "replay/program/replay_program.hpp"
#include "replay/trace_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <zlib.h>

using namespace popsim;
using replay::TraceError;

namespace {

const std::string k_header =
    "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:2(1:1,1:1),1\nc:1:1:2:1:2\n";

/// Writes `content` as NAME in a scratch directory and returns its path.
std::string trace_file(const std::string& name, const std::string& content) {
    return test::write_file(test::scratch_dir("reader_" + name) / (name + ".prv"), content);
}

std::string gzip_file(const std::string& name, const std::string& content) {
    const auto path = (test::scratch_dir("reader_" + name) / (name + ".prv.gz")).string();
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
    gzclose(f);
    return path;
}

void check_error(const std::string& name, const std::string& content, std::uint64_t line,
                 const std::string& cause) {
    const auto path = trace_file(name, content);
    CHECK_THROWS_WITH_AS(test::read_quiet(path),
                         (path + ":" + std::to_string(line) + ": " + cause).c_str(), TraceError);
}

} // namespace

TEST_CASE("paraver_reader: the header grammar") {
    const auto t = test::read_quiet(trace_file(
        "header",
        "#Paraver (09/10/2019 at 16:09):11528373565_ns:2(2,2):1:2(2:1,2:2),1\nc:1:1:2:1:2\n"
        "1:1:1:1:1:0:11528373565:1\n"));
    CHECK(t.header.date == "09/10/2019 at 16:09");
    CHECK(t.end_time() == 11528373565);
    CHECK(t.header.cpus_per_node == std::vector<std::uint32_t>{2, 2});
    CHECK(t.thread_count() == 4);
    CHECK(replay::to_string(t.threads[3].name) == "1.2.2");
    CHECK(t.header.communicators.size() == 1);
    CHECK(t.header.communicators[0].tasks == std::vector<std::uint32_t>{1, 2});
}

TEST_CASE("paraver_reader: time units are converted to ns") {
    CHECK(test::read_quiet(trace_file("unit_us", "#Paraver (d):7_us:1:1:1(1:1)\n1:1:1:1:1:0:7:1\n"))
              .end_time() == 7000);
    CHECK(test::read_quiet(trace_file("unit_none", "#Paraver (d):7:1:1:1(1:1)\n1:1:1:1:1:0:7:1\n"))
              .end_time() == 7000);
    CHECK(test::read_quiet(trace_file("unit_ms", "#Paraver (d):7_ms:1:1:1(1:1)\n1:1:1:1:1:1:7:1\n"))
              .threads[0]
              .state_begin[1] == 1'000'000);
}

TEST_CASE("paraver_reader: several applications, ':' separators, no resources") {
    const auto path = trace_file(
        "apps", "#Paraver (01/01/2000 at 00:00):139_ns:0:2:1(1:0):2(2:0,1:0)\n1:0:1:1:1:0:139:1\n");
    const auto t = test::read_quiet(path);
    // Neither calls MPI: the first is analysed, the other listed in a warning.
    CHECK(t.header.applications.size() == 1);
    CHECK(t.application == 1);
    CHECK(t.thread_count() == 1);
    CHECK(t.header.cpus_per_node.empty());
    REQUIRE(t.warnings.find("other-applications") != nullptr);
    CHECK(t.warnings.find("other-applications")->line() ==
          "the trace holds 2 applications; popsim analyses application 1 (the one that calls MPI; "
          "--app N picks another) and leaves out application 2 (2 tasks, 3 threads)");
    replay::ReadOptions second;
    second.read_labels = false;
    second.application = 2;
    const auto t2 = replay::read_paraver(path, second);
    CHECK(t2.thread_count() == 3);
    CHECK(replay::to_string(t2.threads[2].name) == "2.2.1");
    CHECK(t2.index_of({2, 2, 1}) == 2);
    // Application 1: one task of one thread; application 2: tasks of 2 and 1 threads.
    CHECK(t.threads_are_tasks());
    CHECK_FALSE(t2.threads_are_tasks());
    second.application = 3;
    CHECK_THROWS_WITH_AS(replay::read_paraver(path, second),
                         (path + ": --app 3: the trace has 2 applications").c_str(), TraceError);
}

TEST_CASE(
    "paraver_reader: the application that calls MPI is analysed, with its communicators only") {
    // Application 1 reads uncore counters (no MPI), application 2 is the MPI program; a
    // communicator line names a task application 2 does not have (as PROFET's traces do).
    const auto path =
        trace_file("mpi_app", "#Paraver (01/01/2000 at 00:00):100_ns:1(3):2:1(1:1):2(1:1,1:1),2\n"
                              "c:2:1:2:1:2\nc:2:2:3:1:2:3\n"
                              "1:1:1:1:1:0:100:1\n"
                              "2:1:2:1:1:10:50000002:8\n2:1:2:1:1:20:50000002:0\n"
                              "2:1:2:2:1:10:50000002:8\n2:1:2:2:1:20:50000002:0\n");
    const auto t = test::read_quiet(path);
    CHECK(t.application == 2);
    CHECK(t.thread_count() == 2);
    CHECK(t.header.communicators.size() == 2);
    const auto program = replay::build_replay_program(t);
    CHECK(program.collectives.size() == 1);
    REQUIRE(program.warnings.find("foreign-communicators") != nullptr);
    CHECK(program.warnings.find("foreign-communicators")->instances[0] ==
          "communicator 2 lists task 3 of 2");
    // A collective on such a communicator is refused, naming why it is unknown.
    const auto on_foreign = trace_file(
        "mpi_app_foreign", "#Paraver (01/01/2000 at 00:00):100_ns:1(2):1:2(1:1,1:1),1\n"
                           "c:1:1:2:1:9\n"
                           "2:1:1:1:1:10:50000002:10:50100004:1\n2:1:1:1:1:20:50000002:0\n"
                           "2:1:1:2:1:10:50000002:10:50100004:1\n2:1:1:2:1:20:50000002:0\n"
                           "1:1:1:1:1:20:100:1\n1:1:1:2:1:20:100:1\n");
    CHECK_THROWS_WITH_AS(
        replay::build_replay_program(test::read_quiet(on_foreign)),
        (on_foreign + ": task 1 calls MPI_Allreduce at 10 ns on communicator 1, whose `c:` line "
                      "lists task 9 of the application's 2, and is left out")
            .c_str(),
        TraceError);
}

TEST_CASE("paraver_reader: what real Extrae traces contain is accepted") {
    const auto t = test::read_quiet(trace_file(
        "real_quirks", "new format\n" + k_header +
                           "i:1:5:1:1:2:2\n" // uncounted inter-communicator line
                           "# a comment\r\n"
                           "\n"
                           "1:1:1:1:1:0:100:1\r\n"
                           "2:1:1:1:1:100:50000001:1\n"
                           "1:1:1:1:1:100:200:4\n"
                           "4:1:1:1:1:150:1:2:1:160\n" // global comm: skipped
                           "2:1:1:1:1:200:50000001:0\n"
                           "3:1:1:1:1:100:200:2:1:2:1:50:210:64:7\n" // out of time order
                           "2:1:1:1:1:200:42000050:5:42000050:9\n"   // split line, repeated type
                           "1:2:1:2:1:0:1000:1\n"));
    CHECK(t.counts.states == 3);
    CHECK(t.counts.events == 3);
    CHECK(t.counts.communications == 1);
    CHECK(t.counts.skipped == 1);
    CHECK(t.threads[0].call_id.size() == 1);
    CHECK(t.threads[0].call_end[0] == 200);
    CHECK(t.comms.bytes[0] == 64);
    CHECK(t.comms.tag[0] == 7);
}

TEST_CASE("paraver_reader: .prv and .prv.gz of the same content give the same model") {
    const std::string content =
        k_header +
        "1:1:1:1:1:0:600:1\n2:1:1:1:1:600:42000050:123\n1:1:1:1:1:600:1000:5\n1:2:1:2:1:0:1000:1\n";
    const auto plain = test::read_quiet(trace_file("same_plain", content));
    const auto gz = test::read_quiet(gzip_file("same_gz", content));
    CHECK(plain.counts.records() == gz.counts.records());
    CHECK(plain.threads[0].state_begin == gz.threads[0].state_begin);
    CHECK(plain.threads[0].useful_instructions == 123);
    CHECK(gz.threads[0].useful_instructions == 123);
}

TEST_CASE("paraver_reader: malformed lines name the field") {
    check_error("bad_field", k_header + "1:1:1:1:1:0:x:1\n", 3,
                "state record field 6 (end time) is not an unsigned integer: 'x'");
    check_error("few_fields", k_header + "1:1:1:1:1:0:5\n", 3,
                "state record has 6 fields, field 7 (state) is missing");
    check_error("many_fields", k_header + "1:1:1:1:1:0:5:1:9\n", 3,
                "state record has more than 7 fields");
    check_error("comm_fields", k_header + "3:1:1:1:1:1:2:2:1:2:1:3:4:8\n", 3,
                "communication record has 13 fields, field 14 (tag) is missing");
    check_error("event_value", k_header + "2:1:1:1:1:5:50000001\n", 3,
                "event record has 6 fields, field 7 (event value) is missing");
    check_error("reversed", k_header + "1:1:1:1:1:9:5:1\n", 3,
                "state record ends before it begins (5 < 9)");
    check_error("huge", k_header + "2:1:1:1:1:5:1:99999999999999999999\n", 3,
                "event record field 7 (event value) does not fit in 64 bits");
    // In microseconds, the largest time 64-bit nanoseconds hold is 9223372036854775 us (2^63 - 1
    // ns is 9223372036854775.807 us): one more overflows.
    const std::string us_header =
        "#Paraver (01/01/2026 at 00:00):1000_us:1(2):1:2(1:1,1:1),1\nc:1:1:2:1:2\n";
    check_error("time_overflow", us_header + "1:1:1:1:1:0:9223372036854776:1\n", 3,
                "end time 9223372036854776 overflows 64-bit nanoseconds");
    CHECK(test::read_quiet(trace_file("time_largest", us_header + "1:1:1:1:1:0:9223372036854775:1\n"
                                                                  "1:1:1:2:1:0:1000:1\n"))
              .threads[0]
              .last_record == 9'223'372'036'854'775'000);
    // The header's end time, the same bound.
    check_error("end_overflow",
                "#Paraver (01/01/2026 at 00:00):9223372036854776_us:1(2):1:2(1:1,1:1),1\n", 1,
                "malformed Paraver header: the trace end time overflows 64-bit nanoseconds");
    CHECK(test::read_quiet(
              trace_file("end_largest",
                         "#Paraver (01/01/2026 at 00:00):9223372036854775_us:1(2):1:2(1:1,1:1),1\n"
                         "c:1:1:2:1:2\n1:1:1:1:1:0:9223372036854775:1\n"
                         "1:1:1:2:1:0:9223372036854775:1\n"))
              .header.end_time == 9'223'372'036'854'775'000);
}

TEST_CASE("paraver_reader: unknown record kinds and misplaced lines") {
    check_error("kind", k_header + "x:1:1\n", 3, "unknown record kind 'x' (expected 1, 2, 3 or 4)");
    check_error("nul", k_header + std::string("1\0:1:1\n", 7), 3,
                "unknown record kind '1\\x00' (control bytes: binary data, not text?) (expected "
                "1, 2, 3 or 4)");
    check_error("kind_12", k_header + "12:1:1:1:1:0:100:1\n", 3,
                "unknown record kind '12' (expected 1, 2, 3 or 4)");
    check_error("kind_7", k_header + "7:1:1:1:1:0:100:1\n", 3,
                "unknown record kind '7' (expected 1, 2, 3 or 4)");
    check_error("trailing_colon", k_header + "1:1:1:1:1:0:100:1:\n", 3,
                "the line ends with ':': a field is missing, or there is one too many");
    check_error("lone_kind", k_header + "1\r\n", 3,
                "state record has 0 fields, field 1 (cpu) is missing");
    check_error("late_comm", k_header + "1:1:1:1:1:0:5:1\nc:1:2:1:1\n", 4,
                "communicator line after the first record; they belong right after the header");
}

TEST_CASE("paraver_reader: empty, non-Paraver and truncated files") {
    check_error("empty", "", 1, "empty file: no Paraver header");
    check_error("not_paraver", "hello\n", 1,
                "not a Paraver trace: the first line does not start with '#Paraver ('");
    check_error("bad_header", "#Paraver (d):10_ns:1(2):1:2(1:1\n", 1,
                "malformed Paraver header: expected ',' between tasks at column 32");

    const std::string content = k_header + [] {
        std::string body;
        for (int i = 0; i < 20000; ++i)
            body += "2:1:1:1:1:" + std::to_string(i / 20) +
                    ":42000050:" + std::to_string(i * 7919) + "\n";
        return body;
    }();
    const auto full = gzip_file("truncated", content);
    std::string bytes;
    {
        std::ifstream in(full, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const auto cut = test::write_file(std::filesystem::path(full).parent_path() / "cut.prv.gz",
                                      bytes.substr(0, bytes.size() / 2));
    // A gzip stream cut short is a truncated trace (issue 35, item 7: it was an error at line 1,
    // even with --allow-truncated): refused naming the cut line, or read up to it with a warning.
    CHECK_THROWS_WITH_AS(test::read_quiet(cut), doctest::Contains("the trace is truncated"),
                         TraceError);
    auto allowed = test::quiet_options();
    allowed.allow_truncated = true;
    const auto partial = replay::read_paraver(cut, allowed);
    CHECK(partial.warnings.find("gzip-truncated") != nullptr);
    CHECK(partial.counts.events > 1000);
    std::string corrupt = bytes;
    for (std::size_t i = 20; i < 60; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
    const auto bad =
        test::write_file(std::filesystem::path(full).parent_path() / "corrupt.prv.gz", corrupt);
    CHECK_THROWS_WITH_AS(test::read_quiet(bad), doctest::Contains("corrupt gzip stream"),
                         TraceError);
    // A checksum that does not match (the data intact): named as such whatever the blocks read,
    // not as a record error on the line the decompressor stopped in.
    std::string checksum = bytes;
    for (std::size_t i = checksum.size() - 8; i < checksum.size() - 4; ++i) checksum[i] = 0;
    const auto crc =
        test::write_file(std::filesystem::path(full).parent_path() / "crc.prv.gz", checksum);
    for (const std::size_t block : {64, 100, 4096, 65536, 2 << 20}) {
        CAPTURE(block);
        auto o = test::quiet_options();
        o.block_bytes = block;
        CHECK_THROWS_WITH_AS(replay::read_paraver(crc, o),
                             doctest::Contains("corrupt gzip stream: checksum mismatch"),
                             TraceError);
    }
    // Issue 35, item 6: reserved flag bits, refused by gzip(1), are named.
    std::string reserved = bytes;
    reserved[3] = static_cast<char>(reserved[3] | 0x20);
    const auto flags =
        test::write_file(std::filesystem::path(full).parent_path() / "flags.prv.gz", reserved);
    CHECK_THROWS_WITH_AS(
        test::read_quiet(flags),
        (flags + ":1: corrupt gzip stream: the gzip header sets reserved flag bits (flags 0x20; "
                 "RFC 1952 requires bits 5-7 to be zero)")
            .c_str(),
        TraceError);
    CHECK_THROWS_WITH_AS(test::read_quiet("/nonexistent/x.prv"),
                         "/nonexistent/x.prv: cannot open: No such file or directory", TraceError);
}

TEST_CASE("paraver_reader: a header that contradicts the records") {
    check_error("task", k_header + "1:1:1:3:1:0:5:1\n", 3,
                "record names task 3 of application 1, but the header declares 2 tasks");
    check_error("thread", k_header + "1:1:1:1:2:0:5:1\n", 3,
                "record names thread 2 of task 1, but the header declares 1 threads");
    check_error("appl", k_header + "1:1:2:1:1:0:5:1\n", 3,
                "record names application 2, but the header declares 1");
    check_error("cpu", k_header + "1:9:1:1:1:0:5:1\n", 3,
                "record names CPU 9, but the header declares 2 CPUs");
    check_error("comms_count",
                "#Paraver (d):10_ns:1(2):1:2(1:1,1:1),2\nc:1:1:2:1:2\n1:1:1:1:1:0:5:1\n", 3,
                "the header declares 2 communicators, but 1 communicator lines follow it");
    check_error("zero_task", k_header + "1:1:1:0:1:0:5:1\n", 3,
                "application, task and thread numbers are 1-based; found 0");
    // Tasks of 2 and 1 threads: the thread is checked against its own task's count.
    const std::string mixed = "#Paraver (d):10_ns:1(3):1:2(2:1,1:1)\n";
    check_error("thread_of_mixed", mixed + "1:1:1:2:2:0:5:1\n", 2,
                "record names thread 2 of task 2, but the header declares 1 threads");
}

TEST_CASE("paraver_reader: a record goes to the thread its task and thread number name") {
    // One thread per task (numbered without the table) and tasks of several threads (with it).
    const auto one = test::read_quiet(trace_file("owner_one", k_header + "1:1:1:2:1:0:1000:1\n"));
    CHECK(one.threads[0].state_count() == 0);
    CHECK(one.threads[1].state_count() == 1);
    const auto mixed = test::read_quiet(
        trace_file("owner_mixed",
                   "#Paraver (d):10_ns:1(3):1:2(2:1,1:1)\n1:1:1:2:1:0:10:1\n1:1:1:1:2:0:10:3\n"));
    CHECK(mixed.threads[2].state_count() == 1);
    CHECK(replay::to_string(mixed.threads[2].name) == "1.2.1");
    CHECK(mixed.threads[2].state_value[0] == 1);
    CHECK(mixed.threads[1].state_count() == 1);
    CHECK(mixed.threads[1].state_value[0] == 3);
    CHECK(mixed.threads[0].state_count() == 0);
}

TEST_CASE(
    "paraver_reader: with a thousand tasks and more, records go to their threads as with few") {
    // From 1,024 threads on, the reader starts loading each record's thread state a few records
    // ahead (paraver_reader.cpp): a record ahead that names no declared thread must not be looked
    // up, and is refused at its own line when it comes.
    constexpr int k_tasks = 1100;
    std::string header = "#Paraver (d):1100_ns:1(1100):1:1100(1:1";
    for (int task = 2; task <= k_tasks; ++task) header += ",1:1";
    header += ")\n";
    std::string records;
    for (int task = k_tasks; task >= 1; task -= 7)
        records += "1:1:1:" + std::to_string(task) + ":1:0:" + std::to_string(task) + ":1\n";
    const auto t = test::read_quiet(trace_file("many_tasks", header + records));
    REQUIRE(t.threads.size() == k_tasks);
    for (int task = 1; task <= k_tasks; ++task) {
        const auto& thread = t.threads[static_cast<std::size_t>(task - 1)];
        const bool written = (k_tasks - task) % 7 == 0;
        REQUIRE(thread.state_count() == (written ? 1 : 0));
        if (written) CHECK(thread.states_end == static_cast<Time>(task));
    }
    check_error("many_tasks_bad",
                header + "1:1:1:5:1:0:5:1\n1:1:1:6:1:0:6:1\n1:1:1:1101:1:0:7:1\n" + records, 4,
                "record names task 1101 of application 1, but the header declares 1100 tasks");
    check_error("many_tasks_bad_thread", header + "1:1:1:5:1:0:5:1\n1:1:1:6:2:0:6:1\n" + records, 3,
                "record names thread 2 of task 6, but the header declares 1 threads");
}

TEST_CASE("paraver_reader: MPI call events must pair up") {
    check_error("exit_without_entry",
                k_header + "2:1:1:1:1:5:50000001:1\n2:1:1:1:1:6:50000001:0\n"
                           "2:1:1:1:1:7:50000001:0\n",
                5,
                "thread 1.1.1 leaves an MPI call (event 50000001:0) at 7 ns that it never "
                "entered (its previous call ended at 6 ns; records out of time order?)");
    check_error("nested", k_header + "2:1:1:1:1:5:50000001:1\n2:1:1:1:1:6:50000002:10\n", 4,
                "thread 1.1.1 enters MPI call 10 at 6 while call 1 entered at 5 is still open");
    check_error("attr", k_header + "2:1:1:1:1:5:50100001:8\n", 3,
                "collective attribute event 50100001 at 5 is not at the entry of an MPI call (it "
                "belongs on the entry's line, or on a line after it at the same time)");
}

TEST_CASE("paraver_reader: each thread's records must come in time order") {
    check_error("states_out_of_order",
                k_header + "1:1:1:1:1:500:1000:1\n1:1:1:2:1:0:1000:1\n1:1:1:1:1:0:500:1\n", 5,
                "records out of time order: this state of thread 1.1.1 is at 0 ns, after one at "
                "500 ns (each thread's records must come in time order, as Extrae and Paraver "
                "write them)");
    check_error("events_out_of_order",
                k_header + "2:1:1:1:1:7:50000001:0\n2:1:1:1:1:5:50000001:1\n", 4,
                "records out of time order: this event of thread 1.1.1 is at 5 ns, after one at "
                "7 ns (each thread's records must come in time order, as Extrae and Paraver write "
                "them)");
    // Threads interleave freely, and communication records may come anywhere.
    const auto t = test::read_quiet(
        trace_file("threads_interleave", k_header + "1:1:1:2:1:0:1000:1\n1:1:1:1:1:0:1000:1\n"
                                                    "3:1:1:1:1:900:900:2:1:2:1:100:100:8:0\n"));
    CHECK(t.counts.communications == 1);
}

TEST_CASE("paraver_reader: a truncated trace is refused, or read up to its last record") {
    // The header declares 1000 ns; the records stop at 250 ns (a cut at a line start), or the
    // last line has no newline (a cut mid-line).
    const std::string early = k_header + "1:1:1:1:1:0:100:1\n1:1:1:2:1:0:250:1\n";
    check_error("truncated_records", early, 4,
                "the trace is truncated (an interrupted merge, copy or simulate -o?): the records "
                "end at 0.000000250 s, 75.0 % of the run the header declares (0.000001000 s) is "
                "missing; --allow-truncated analyses the part that is there");
    check_error("truncated_mid_line", k_header + "1:1:1:1:1:0:1000:1\n1:1:1:2:1:0:10", 4,
                "the trace is truncated (an interrupted merge, copy or simulate -o?): the records "
                "end at 0.000001000 s, 0.0 % of the run the header declares (0.000001000 s) is "
                "missing, and the last line has no newline (cut mid-line); --allow-truncated "
                "analyses the part that is there");
    check_error("header_only", k_header, 2,
                "the trace is truncated (an interrupted merge, copy or simulate -o?): the records "
                "end at 0.000000000 s, 100.0 % of the run the header declares (0.000001000 s) is "
                "missing; --allow-truncated analyses the part that is there");

    replay::ReadOptions allow;
    allow.read_labels = false;
    allow.allow_truncated = true;
    const auto t = replay::read_paraver(trace_file("truncated_allowed", early), allow);
    CHECK(t.end_time() == 250);
    REQUIRE(t.warnings.find("truncated") != nullptr);
    CHECK(t.warnings.find("truncated")->line() ==
          "the trace is truncated: the records end at 0.000000250 s, 75.0 % of the run the header "
          "declares (0.000001000 s) is missing; it is analysed up to its last record "
          "(--allow-truncated)");
    const auto cut = replay::read_paraver(
        trace_file("mid_line_allowed", k_header + "1:1:1:1:1:0:400:1\n1:1:1:2:1:0:10"), allow);
    CHECK(cut.end_time() == 400);
    CHECK(cut.threads[1].state_count() == 0); // the unfinished line is left out
    CHECK(cut.warnings.find("truncated")
              ->line()
              .ends_with("and the last line has no newline (cut mid-line); it is analysed up to "
                         "its last record "
                         "(--allow-truncated), without its unfinished line"));
}

TEST_CASE("paraver_reader: a cut trace reads as Paraver's cutter wrote it") {
    // Thread 1.1.1 was inside a call at the cut (its first MPI event is an exit, at 2 ns); thread
    // 1.2.1 begins with the cutter's reset record (every type set to 0). At the cut's end (1000 ns)
    // the closing record leaves 1.1.1's open call and resets the collective attributes; a state
    // record lies past the end the header declares, as in a Paraver cut.
    const auto t = test::read_quiet(
        trace_file("cut", k_header + "2:1:1:1:1:2:50000001:0:42000050:17\n"
                                     "2:2:1:2:1:0:50000001:0:50000002:0:50100004:0\n"
                                     "2:1:1:1:1:500:50000001:3\n"
                                     "2:1:1:1:1:1000:50000001:0:50000002:0:50100004:0:50100001:0\n"
                                     "1:2:1:2:1:0:1200:1\n"));
    REQUIRE(t.threads[0].call_id.size() == 1);
    CHECK(t.threads[0].call_begin[0] == 500);
    CHECK(t.threads[0].call_end[0] == 1000);
    CHECK(t.threads[1].call_id.size() == 0);
    CHECK(t.end_time() == 1200);
    REQUIRE(t.warnings.find("cut-start") != nullptr);
    CHECK(t.warnings.find("cut-start")->count == 2);
    CHECK(t.warnings.find("cut-start")->instances[0] == "thread 1.1.1 at 0.000000002 s (line 3)");
    REQUIRE(t.warnings.find("reset-records") != nullptr);
    CHECK(t.warnings.find("reset-records")->count == 3);
    REQUIRE(t.warnings.find("records-after-end") != nullptr);
    CHECK(t.warnings.find("records-after-end")->line() ==
          "records lie after the trace end the header declares (0.000001000 s; a cut trace?): "
          "the trace is taken to end at its last record, 0.000001200 s: line 7 at "
          "0.000001200 s");
}

TEST_CASE("paraver_reader: overlapping states keep the earlier one and are reported") {
    const auto t = test::read_quiet(trace_file(
        "overlap", k_header + "1:1:1:1:1:0:10:1\n1:1:1:1:1:5:20:15\n1:1:1:1:1:20:1000:1\n"));
    REQUIRE(t.warnings.all().size() == 1);
    CHECK(t.warnings.all()[0].line().starts_with(
        "state records overlap earlier states of their thread; the earlier state is kept where "
        "they overlap: line 4: state 15 [5, 20) of thread 1.1.1 overlaps the previous state, "
        "which ends at 10"));
    CHECK(t.threads[0].state_begin[1] == 10); // the later record only from where the earlier ended
}

TEST_CASE("paraver_reader: a missing .pcf or .row is a warning, not an error") {
    replay::ReadOptions o;
    const auto t =
        replay::read_paraver(trace_file("no_labels", k_header + "1:1:1:1:1:0:1000:1\n"), o);
    REQUIRE(t.warnings.all().size() == 2);
    CHECK(t.warnings.all()[0].line().starts_with("no .pcf beside the trace"));
    CHECK(t.warnings.all()[0].line().ends_with("no_labels.pcf"));
}

TEST_CASE("paraver_reader: a .pcf number runs to a blank, or the line is refused") {
    // "5000000x1" was read as type 5000000 labelled "x1 ...": 50000001's names silently lost.
    CHECK_THROWS_WITH_AS(
        replay::parse_pcf_text("EVENT_TYPE\n0    5000000x1    MPI Point-to-point\n", "t.pcf"),
        "t.pcf:2: EVENT_TYPE line is not '<gradient> <type> <label>'", TraceError);
    CHECK_THROWS_WITH_AS(replay::parse_pcf_text("EVENT_TYPE\n0 1 a\nVALUES\n1x End\n", "t.pcf"),
                         "t.pcf:4: VALUES line is not '<value> <label>'", TraceError);
    const auto labels =
        replay::parse_pcf_text("EVENT_TYPE\n0\t50000001\tMPI Point-to-point\nVALUES\n0 End\n", "t");
    REQUIRE(labels.event_types.size() == 1);
    CHECK(labels.event_types[0].first == 50000001);
    CHECK(labels.event_types[0].second == "MPI Point-to-point");
}

TEST_CASE("paraver_reader: sequential and parallel reading agree") {
    const auto path = test::shared_data("epoch/epoch_4proc.prv.gz");
    replay::ReadOptions one, many;
    one.threads = 1;
    one.block_bytes = 64 << 10; // many blocks
    many.block_bytes = 64 << 10;
    const auto a = replay::read_paraver(path, one), b = replay::read_paraver(path, many);
    CHECK(a.counts.records() == b.counts.records());
    CHECK(a.counts.lines == b.counts.lines);
    for (std::size_t t = 0; t < a.threads.size(); ++t) {
        CHECK(a.threads[t].state_begin == b.threads[t].state_begin);
        CHECK(a.threads[t].call_begin == b.threads[t].call_begin);
        CHECK(a.threads[t].useful_instructions == b.threads[t].useful_instructions);
    }
}

TEST_CASE("paraver_reader: communicator lines may fill several blocks, and any block size works") {
    // 2000 communicators (~30 KB of `c:` lines) read in 1 KiB blocks: the header section spans
    // about 30 blocks; the body's line numbers still count from the file's first line.
    std::string content = "#Paraver (01/01/2020 at 00:00):100_ns:1(2):1:2(1:1,1:1),2000\n";
    for (int i = 1; i <= 2000; ++i) content += "c:1:" + std::to_string(i) + ":2:1:2\n";
    content += "1:1:1:1:1:0:100:1\n1:2:1:2:1:0:100:1\n";
    for (std::size_t block : {std::size_t{0}, std::size_t{1}, std::size_t{1024}}) {
        CAPTURE(block);
        replay::ReadOptions o;
        o.block_bytes = block; // 0 and 1 are raised to the minimum block size
        o.read_labels = false;
        const auto t = replay::read_paraver(trace_file("many_communicators", content), o);
        CHECK(t.header.communicators.size() == 2000);
        CHECK(t.counts.lines == 2003);
        CHECK(t.counts.states == 2);
        CHECK(t.counts.bytes == content.size());
    }
    check_error("many_communicators_bad", content + "1:1:1:1:1:0:x:1\n", 2004,
                "state record field 6 (end time) is not an unsigned integer: 'x'");
}

TEST_CASE("paraver_reader: counters read only at sample points are summed over useful bursts") {
    // One Running burst [0, 100) with reads inside it at 10 (0), 30 (10 instructions, 20 cycles)
    // and 60 (5, 10), none at its end (folding's NAMD trace): the burst-end rule finds 0, so the
    // reads inside Running bursts are summed: 15 instructions, 30 cycles. A read in the Idle state
    // [100, 200) does not count.
    const auto t = test::read_quiet(trace_file(
        "sampled", "#Paraver (d):200_ns:1(1):1:1(1:1),0\n1:1:1:1:1:0:100:1\n"
                   "2:1:1:1:1:10:42000050:0:42000059:0\n2:1:1:1:1:30:42000050:10:42000059:20\n"
                   "2:1:1:1:1:60:42000050:5:42000059:10\n1:1:1:1:1:100:200:0\n"
                   "2:1:1:1:1:150:42000050:7:42000059:7\n"));
    CHECK(t.threads[0].has_counters);
    CHECK(t.threads[0].useful_instructions == 15);
    CHECK(t.threads[0].useful_cycles == 30);
    REQUIRE(t.warnings.find("sampled-counters") != nullptr);
    // Reads that never fall in a useful burst: no counters rather than 0.
    const auto none = test::read_quiet(
        trace_file("unsampled", "#Paraver (d):200_ns:1(1):1:1(1:1),0\n1:1:1:1:1:0:100:0\n"
                                "2:1:1:1:1:50:42000050:9:42000059:9\n1:1:1:1:1:100:200:1\n"));
    CHECK_FALSE(none.threads[0].has_counters);
    CHECK(none.warnings.find("sampled-counters")->line() ==
          "hardware counters are read, but no read falls in a useful burst: instructions, cycles "
          "and IPC are not available");
}

TEST_CASE("paraver_reader: concatenated gzip members read as one stream") {
    // `cat a.gz b.gz`, and what bgzip and pigz write for large files: one member after another,
    // the next one already in the buffer the previous one ended in.
    const std::string content =
        k_header + "1:1:1:1:1:0:500:1\n1:1:1:1:1:500:1000:3\n" + "1:1:1:2:1:0:1000:1\n";
    const auto whole = test::read_quiet(trace_file("members_plain", content));
    std::string concatenated;
    for (const auto& part : {content.substr(0, 40), content.substr(40, 30), content.substr(70)}) {
        const auto member = gzip_file("member", part);
        std::ifstream in(member, std::ios::binary);
        concatenated.append(std::istreambuf_iterator<char>(in), {});
    }
    const auto path =
        test::write_file(test::scratch_dir("reader_members") / "members.prv.gz", concatenated);
    const auto t = test::read_quiet(path);
    CHECK(t.counts.states == whole.counts.states);
    CHECK(t.counts.bytes == whole.counts.bytes);
    CHECK(t.threads[0].state_count() == 2);
    CHECK(t.threads[1].states_end == 1000);
}

TEST_CASE("paraver_reader: a header longer than a block, lone CR line ends, a huge first line") {
    // 1000 tasks (a 4 KB header) read in 64-byte blocks: the header line spans many blocks.
    std::string header = "#Paraver (01/01/2026 at 00:00):1000_ns:0:1:1000(";
    for (int t = 0; t < 1000; ++t) header += t > 0 ? ",1:0" : "1:0";
    replay::ReadOptions o;
    o.read_labels = false;
    o.block_bytes = 64;
    const auto t =
        replay::read_paraver(trace_file("long_header", header + ")\n1:0:1:1:1:0:1000:1\n"), o);
    CHECK(t.thread_count() == 1000);
    check_error("lone_cr",
                "#Paraver (01/01/2026 at 00:00):1000_ns:1(1):1:1(1:1)\r1:1:1:1:1:0:1000:1\r", 1,
                "lines end with a lone carriage return (\\r, old Mac line ends), not \\n or "
                "\\r\\n: convert them, e.g. with tr '\\r' '\\n'");
}

TEST_CASE("paraver_reader: a .row that contradicts the trace names its line") {
    const auto path = trace_file("row_count", k_header + "1:1:1:1:1:0:1000:1\n");
    const auto row = test::write_file(std::filesystem::path(path).parent_path() / "row_count.row",
                                      "# names\nLEVEL THREAD SIZE 1\nonly one\n");
    replay::ReadOptions o; // reads the labels
    CHECK_THROWS_WITH_AS(replay::read_paraver(path, o),
                         (row + ":2: LEVEL THREAD lists 1 threads, but the trace has 2").c_str(),
                         TraceError);
}

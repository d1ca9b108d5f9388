// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Streams of fixed-size items too long to hold in memory, kept on disk: written stream by stream
// in any interleaving, then read back each from its start, several readers at once. The
// simulated trace spills each thread's records this way, since the trace file orders them by
// traced time and the output by simulated time (docs/replay.md, "Simulated traces").
//
// One unnamed temporary file holds them all, in blocks: a block is written once its stream has
// filled it, and each stream remembers where its blocks are. It is made beside the output it
// serves (whose disk has room for what is spilled: less than the output), else in the temporary
// directory, and unlinked as soon as it is made, so nothing is left behind whatever ends the
// process. Its errors name that output (OutputError, exit status 3).
//
// Example:
//   Spill<Item> spill("/data/out/run.prv", 64); // 64 streams, for that output
//   spill.append(3, item);              // ... in any order
//   spill.finish_writing();
//   auto reader = spill.reader(3);
//   while (reader.next(item)) { ... }
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace popsim::replay {

class SpillFile {
  public:
    /// Makes the temporary file for `output`; throws OutputError when it cannot.
    SpillFile(const std::string& output, std::size_t streams, std::size_t item_bytes);
    ~SpillFile();
    SpillFile(const SpillFile&) = delete;
    SpillFile& operator=(const SpillFile&) = delete;

    void append(std::size_t stream, const void* item);
    /// Writes every stream's last, partly filled block; no append() after it.
    void finish_writing();
    std::uint64_t bytes_written() const { return end_; }

    /// One stream's items from its first, with a block of them in memory.
    class Reader {
      public:
        bool next(void* item);

      private:
        friend class SpillFile;
        Reader(const SpillFile& file, std::size_t stream);
        const SpillFile* file_;
        std::size_t stream_, block_ = 0, at_ = 0;
        std::vector<std::byte> items_;
    };
    Reader reader(std::size_t stream) const { return Reader(*this, stream); }

  private:
    struct Block {
        std::uint64_t offset;
        std::uint32_t bytes;
    };
    struct Stream {
        std::vector<std::byte> pending; // the block being filled
        std::vector<Block> blocks;
    };
    void write_block(Stream& stream);
    void read_block(const Block& block, std::vector<std::byte>& into) const;
    [[noreturn]] void fail(const char* what) const;

    std::string output_, directory_; // for errors
    int fd_ = -1;
    std::size_t item_bytes_, block_bytes_;
    std::uint64_t end_ = 0;
    std::vector<Stream> streams_;
};

/// A SpillFile of items of type T.
template <class Item> class Spill {
    static_assert(std::is_trivially_copyable_v<Item>);

  public:
    Spill(const std::string& output, std::size_t streams) : file_(output, streams, sizeof(Item)) {}
    void append(std::size_t stream, const Item& item) { file_.append(stream, &item); }
    void finish_writing() { file_.finish_writing(); }
    std::uint64_t bytes_written() const { return file_.bytes_written(); }

    class Reader {
      public:
        explicit Reader(SpillFile::Reader reader) : reader_(std::move(reader)) {}
        bool next(Item& item) { return reader_.next(&item); }

      private:
        SpillFile::Reader reader_;
    };
    Reader reader(std::size_t stream) const { return Reader(file_.reader(stream)); }

  private:
    SpillFile file_;
};

} // namespace popsim::replay

// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One .prv read by several processes (an MPI run: docs/architecture.md, "Many processes").
// The process that reads the trace (its reader) reads the header and the first block as alone;
// the rest of the body is cut into ranges of bytes, each range's lines (those that begin in it)
// read and parsed by the reader or by one of its helpers in turn, and every parsed block applied
// by the reader in file order. So the trace model, the observers and every number are the single
// process's; what is divided is the reading and parsing (half of analyze's work, and all of it
// that runs in parallel within one process).
//
// A lone reader reads a bgzip'd .prv.gz with its index in the same ranges (DividedBody without
// helpers), each decompressed on one of its pipeline's threads.
//
// The reader's side is ReadOptions::helpers (paraver_reader.hpp); a helper runs
// help_read_paraver until the reader releases it. Neither side knows how the bytes travel: the
// front end that starts the processes gives both (simulator/mpi_run).
#include "replay/input/body_text.hpp"
#include "replay/input/parsed_block.hpp"
#include "replay/time.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace popsim::replay {

/// The lines that begin in bytes [begin, end) of a .prv whose body begins at `body_begin` (a line
/// start, before which no line of the body begins), parsed with the header's time unit.
struct BodyRange {
    static constexpr std::uint64_t k_to_the_end = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t body_begin = 0;
    std::uint64_t begin = 0;
    std::uint64_t end = k_to_the_end; // the last range reads on to the end of the file
    Time ns_per_unit = 1;
    /// The text's size as the reader sees it: a helper that sees another file answers an error.
    std::uint64_t text_size = 0;
};

/// The reader's side: the processes that parse ranges for it. Each helper answers its asks in
/// the order they were made.
class ReadHelpers {
  public:
    virtual ~ReadHelpers() = default;
    virtual std::uint32_t count() const = 0;
    virtual void ask(std::uint32_t helper, const BodyRange& range) = 0;
    /// The parsed block of the helper's oldest unanswered ask (parsed_block.hpp's bytes).
    virtual std::string answer(std::uint32_t helper) = 0;
};

/// A helper's side: the reader's asks, and where the answers go.
class ReadRequests {
  public:
    virtual ~ReadRequests() = default;
    /// The asks waiting, at least one (it waits for one); none once the reader has released this
    /// helper (after the asks before the release).
    virtual std::vector<BodyRange> next() = 0;
    virtual void answer(const std::string& parsed_block) = 0;
};

/// The reader's side of a divided body: its ranges of `block_bytes` after `body_begin`, in file
/// order, range j read by the reader when j % (helpers + 1) is 0, else asked of helper
/// j % (helpers + 1) - 1 a few ranges ahead. Without helpers the reader reads every range, on its
/// pipeline's threads: a gzipped file's members are then decompressed side by side. Destroyed, it
/// takes the answers still owed (so that the helpers can read the trace again, for the in-memory
/// analysis, or end).
class DividedBody {
  public:
    /// `helpers` may be null. Throws TraceError if the file cannot be read at any offset
    /// (BodyText).
    DividedBody(const std::string& path, ReadHelpers* helpers, std::uint64_t body_begin,
                Time ns_per_unit, std::size_t block_bytes);
    ~DividedBody();
    DividedBody(const DividedBody&) = delete;
    DividedBody& operator=(const DividedBody&) = delete;

    /// The next range: false past the last. Sets `range` when the reader reads it
    /// (read_body_range, with a reader of its own: text().another()), else fills `parsed` with
    /// the helper's answer.
    bool next(std::optional<BodyRange>& range, ParsedBlock& parsed);
    const BodyText& text() const { return text_; }
    /// How the file's data ends (a gzipped one's: BodyText::ending).
    ByteSource::Ending ending() const { return text_.ending(); }

  private:
    BodyRange range(std::uint64_t j) const;
    std::uint32_t part(std::uint64_t j) const { return static_cast<std::uint32_t>(j % parts_); }

    ReadHelpers* helpers_;
    BodyText text_;
    BodyRange first_;
    std::uint64_t block_bytes_;
    std::uint64_t ranges_ = 0;
    std::uint64_t parts_;
    std::uint64_t next_ = 0;          // the next range to give
    std::uint64_t asked_ = 0;         // every range of a helper before this one is asked
    std::vector<std::uint64_t> owed_; // per helper, answers not taken yet
};

/// Reads the range's lines from the trace's text.
/// A range's text ends with its last line's line end; a line that does not end before the end of
/// the file (TextBlock::ends_mid_line) or a read error (TextBlock::read_error) ends it as the
/// reader's own blocks end.
void read_body_range(BodyText& text, const BodyRange& range, TextBlock& out);

/// A helper's work: each ask's range of the trace at `path` read and parsed, answered in order,
/// until the reader releases it. A file this process cannot open (or read at any offset:
/// BodyText) is answered as a read error of each range (the reader reports it at the range's
/// first line).
void help_read_paraver(const std::string& path, ReadRequests& requests);

/// A helper's work for the trace at `path`: an OTF2 archive's locations (otf2_archive.hpp,
/// help_read_otf2), else a .prv's ranges (help_read_paraver).
void help_read(const std::string& path, ReadRequests& requests);

} // namespace popsim::replay

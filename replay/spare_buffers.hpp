// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Buffers one stage of the reader's pipeline gives back for another to fill again, handed out the
// most recently given first: its memory is the likeliest to be in a cache still. A FIFO hands out
// the one given back longest ago; with every block under way holding its text, its parsed records
// and its callbacks, the reader then cycled through megabytes of buffers, more than a core's L2
// cache. Taken and given once per block (256 KiB of text): a lock costs nothing measurable.
#include <mutex>
#include <utility>
#include <vector>

namespace popsim::replay {

template <class T> class SpareBuffers {
  public:
    void push(T buffer) {
        const std::lock_guard lock(mutex_);
        spares_.push_back(std::move(buffer));
    }
    /// The buffer given back last, if any.
    bool try_pop(T& buffer) {
        const std::lock_guard lock(mutex_);
        if (spares_.empty()) return false;
        buffer = std::move(spares_.back());
        spares_.pop_back();
        return true;
    }

  private:
    std::mutex mutex_;
    std::vector<T> spares_;
};

} // namespace popsim::replay

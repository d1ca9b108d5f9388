// SPDX-License-Identifier: BSD-3-Clause
#include "replay/allocator_tuning.hpp"

#include <malloc.h>

namespace popsim::replay {

void keep_freed_memory_in_heap() {
    mallopt(M_MMAP_THRESHOLD, 32 << 20); // blocks up to 32 MiB come from (and return to) the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);  // do not give the heap's top back to the kernel
    mallopt(M_TOP_PAD, 64 << 20);        // grow the heap in large steps
}

void give_freed_memory_back() {
    malloc_trim(0);
}

} // namespace popsim::replay

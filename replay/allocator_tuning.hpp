// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Process-wide allocator policy for popsim's executables (keep_freed_memory_in_heap is never
// called by the library itself).
//
// Reading streams multi-MB blocks through a pipeline; glibc hands blocks above 128 KiB back to the
// kernel on free, so every block would be faulted in again. Keeping freed memory in the heap
// halved the time to read a 1.3 GB trace on the virtual machines popsim is measured on, where a
// fresh page is expensive.
//
// Transparent huge pages were tried and dropped: with glibc.malloc.hugetlb=1 a 1.3 GB analysis
// first ran ~25 % faster, but later measurements on the same machine had it 15-30 % slower (the
// kernel zeroing and compacting 2 MiB pages: 1-2.2 s of system time against 0.6 s). A user can
// still set GLIBC_TUNABLES=glibc.malloc.hugetlb=1 to try it on their machine. Advising only the
// main heap from inside (madvise MADV_HUGEPAGE, then MADV_COLLAPSE, as it grows) changed nothing:
// the pipeline's stages allocate their per-thread state from glibc's arenas of their own threads
// (bench/README.md, session 40).
namespace popsim::replay {

void keep_freed_memory_in_heap();

/// Gives the heap's free pages back to the system: for the rare place where memory just freed
/// will not be needed again and its copy is being built (the streamed program's blocks).
void give_freed_memory_back();

} // namespace popsim::replay

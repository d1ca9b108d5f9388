#pragma once
// Process-wide allocator policy for popsim's executables (never called by the library itself).
//
// On the virtual machines popsim is measured on, touching a fresh 4 KiB page costs ~13 us (3.5 s
// per GB), so memory that is allocated anew costs more than the work done with it:
// - reading streams multi-MB blocks through a pipeline; glibc hands blocks above 128 KiB back to
//   the kernel on free, so every block is faulted in again. Keeping freed memory in the heap halved
//   the time to read a 1.3 GB trace.
// - transparent huge pages fault 2 MiB at once; glibc backs its heap with them only when the
//   tunable glibc.malloc.hugetlb=1 is set at process start. It cut a 1.3 GB analysis by ~25 %.
namespace popsim::replay {

void keep_freed_memory_in_heap();

/// Re-executes the program (/proc/self/exe, same arguments) with glibc.malloc.hugetlb=1 added to
/// GLIBC_TUNABLES, unless it is already there. Returns only if it did not re-execute.
void reexec_with_huge_pages(char** argv);

} // namespace popsim::replay

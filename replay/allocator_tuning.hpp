#pragma once
// Process-wide allocator policy for popsim's executables (never called by the library itself).
//
// Reading streams multi-MB blocks through a pipeline; glibc hands blocks above 128 KiB back to the
// kernel on free, so every block is page-faulted in again. On virtual machines a fresh page costs
// ~10 us (measured: 3.5 s per GB here), which doubled the time to read a 1.3 GB trace. Keeping freed
// memory in the heap removes that cost.
namespace popsim::replay {

void keep_freed_memory_in_heap();

} // namespace popsim::replay

#include "replay/allocator_tuning.hpp"

#include <cstdlib>
#include <malloc.h>
#include <string>
#include <unistd.h>

namespace popsim::replay {

void keep_freed_memory_in_heap() {
    mallopt(M_MMAP_THRESHOLD, 32 << 20); // blocks up to 32 MiB come from (and return to) the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);  // do not give the heap's top back to the kernel
    mallopt(M_TOP_PAD, 64 << 20);        // grow the heap in large steps
}

void reexec_with_huge_pages(char** argv) {
    constexpr const char* k_tunable = "glibc.malloc.hugetlb=1";
    const char* current = std::getenv("GLIBC_TUNABLES");
    std::string tunables = current ? current : "";
    if (tunables.find("glibc.malloc.hugetlb") != std::string::npos)
        return; // already set, by us or the user
    tunables += tunables.empty() ? k_tunable : std::string(":") + k_tunable;
    if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
    execv("/proc/self/exe", argv); // returns only on failure: then carry on without huge pages
}

} // namespace popsim::replay

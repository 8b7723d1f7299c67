#pragma once
// What the host's memory allows, as the kernel reports it.
#include <cstdint>

namespace pacer {

// MemAvailable of /proc/meminfo (memory that can be had without swapping), 0 where it cannot be read.
uint64_t mem_available_bytes();

}  // namespace pacer

// What the host's memory allows (pacer/host_memory.hpp).
#include "pacer/host_memory.hpp"

#include <fstream>

namespace pacer {

uint64_t mem_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name, unit;
  uint64_t kb = 0;
  while (meminfo >> name >> kb >> unit)
    if (name == "MemAvailable:") return kb * 1024;
  return 0;
}

}  // namespace pacer

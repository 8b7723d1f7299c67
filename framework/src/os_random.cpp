#include "pacer/os_random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "pacer/error.hpp"
#include "pacer/printable.hpp"

namespace pacer {

void os_random_bytes(std::span<std::byte> out) {
  size_t got = 0;
  while (got < out.size()) {
    // Blocks only until the kernel's pool is first seeded (early boot), never afterwards.
    const ssize_t n = ::getrandom(out.data() + got, out.size() - got, 0);
    if (n > 0) {
      got += size_t(n);
    } else if (n < 0 && errno != EINTR) {
      throw FailedError(std::string("the OS random source (getrandom) failed: ") + std::strerror(errno));
    }
  }
}

std::string os_random_hex(size_t bytes) {
  std::vector<std::byte> raw(bytes);
  os_random_bytes(raw);
  return hex_bytes(raw);
}

}  // namespace pacer

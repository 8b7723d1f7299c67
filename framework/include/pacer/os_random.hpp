#pragma once
// Unpredictable bytes from the kernel's CSPRNG (getrandom(2)): blinding scalars, job ids, the
// coefficients of batched key checks. Never a seeded PRNG: its output can be predicted from a
// few samples, and std::random_device may be a hardware instruction on some builds.
#include <cstddef>
#include <span>
#include <string>

namespace pacer {

// Fills `out`; throws FailedError if the OS cannot deliver (never returns weak bytes).
void os_random_bytes(std::span<std::byte> out);

// `bytes` random bytes as lowercase hex (URL-safe), e.g. 16 -> 32 characters, 128 bits.
std::string os_random_hex(size_t bytes);

template <class T>
T os_random_value() {
  T v;
  os_random_bytes(std::as_writable_bytes(std::span<T, 1>(&v, 1)));
  return v;
}

}  // namespace pacer

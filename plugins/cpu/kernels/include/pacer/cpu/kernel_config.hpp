#pragma once
// Which CPU kernels run: chosen per backend from its params ([backend.params] ifma, msm_window),
// passed down to every kernel call, with the allocator their buffers come from. No global switch and no environment variable, so two backends
// (or a test and its oracle) in one process can run different paths side by side.
#include <string>

#include "pacer/allocator.hpp"

namespace pacer::math {

// AVX-512F + IFMA on this CPU (only then can CpuKernels::ifma be true).
inline bool cpu_has_ifma() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
  return false;
#endif
}

struct CpuKernels {
  // AVX-512 IFMA for the MSM's bucket additions, compute_h's odd coset and the key-point check;
  // the scalar code otherwise (and always on CPUs without IFMA).
  bool ifma = false;
  // Pippenger window width in bits for large MSMs (2..15); 0 = the cost model's choice.
  unsigned msm_window = 0;
  // Where the kernels' large buffers come from (MSM digits, GLV images and buckets, NTT scratch,
  // key points): the backend's HostServices::allocator. Null: aligned operator new (tests, tools).
  Allocator* allocator = nullptr;
  // GLV MSMs of fewer points than this make every base's image φ(P) (one bucket set for both
  // halves of the split); larger ones apply φ to the second half's bucket sums instead and never
  // hold the images (msm.hpp). Measured on the 2-core VM: images twice as fast at 2^13, equal at
  // 2^18, where they would cost 17 MB (G1) and 34 MB (G2) an MSM.
  size_t glv_images_below = size_t(1) << 17;

  // The fastest paths this CPU has.
  static CpuKernels detect() { return {cpu_has_ifma(), 0, nullptr}; }
};

}  // namespace pacer::math

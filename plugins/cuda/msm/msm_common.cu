// The group-independent MSM kernels: signed digits and chunk partial counts.
#include "msm/pippenger.cuh"

namespace pacer::cuda::msm {

// One thread per scalar: all windows' signed digits, written window-major (coalesced per window).
__global__ void digits_kernel(const uint32_t* __restrict__ scalars, uint32_t n, uint32_t c, uint32_t windows,
                              uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint4* src = reinterpret_cast<const uint4*>(scalars) + 2 * size_t(i);
  const uint4 lo = __ldg(src), hi = __ldg(src + 1);
  const uint32_t s[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  signed_digits(s, windows, c, [&](uint32_t w, uint32_t key, bool neg) {
    keys[size_t(w) * n + i] = key;
    vals[size_t(w) * n + i] = i | (uint32_t(neg) << 31);
  });
}

// One thread per chunk: how many partial sums the chunk will emit (logic.hpp, chunk_shape).
__global__ void count_kernel(const uint32_t* __restrict__ keys, size_t region_len, uint32_t chunk,
                             uint32_t chunks_per_region, uint32_t regions, uint32_t* __restrict__ counts) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= size_t(regions) * chunks_per_region) return;
  const size_t r = t / chunks_per_region, ci = t % chunks_per_region;
  const size_t rb = r * region_len, re = rb + region_len;
  const size_t begin = rb + ci * chunk, end = min(begin + chunk, re);
  counts[t] = chunk_shape(keys, begin, end, rb, re).partials();
}

}  // namespace pacer::cuda::msm

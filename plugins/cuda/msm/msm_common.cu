// The group-independent MSM kernels: signed digits and chunk partial counts.
#include "msm/pippenger.cuh"

namespace pacer::cuda::msm {

// One thread per scalar: all windows' signed digits, placed by the region layout (logic.hpp;
// coalesced per window: consecutive scalars, consecutive slots).
__global__ void digits_kernel(const uint32_t* __restrict__ scalars, uint32_t c, uint32_t windows, RegionLayout lay,
                              uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= lay.n) return;
  const uint4* src = reinterpret_cast<const uint4*>(scalars) + 2 * i;
  const uint4 lo = __ldg(src), hi = __ldg(src + 1);
  const uint32_t s[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  place_digits(lay, s, windows, c, i, [&](size_t slot, uint32_t key, uint32_t val) {
    keys[slot] = key;
    vals[slot] = val;
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

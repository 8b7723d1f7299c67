#pragma once
// The device side of synthesis (synth/rows.hpp): one thread per row of A and B.
#include "synth/rows.hpp"
#include "util/ldst.cuh"

namespace pacer::cuda::synth {

// Rows [0, n) are A's and go to a; rows [n, 2n) are B's and go to b. A grid-stride loop: a key's
// rows are short (a handful of terms), so consecutive threads read neighbouring terms.
template <class F>
__global__ void rows_kernel(F* __restrict__ a, F* __restrict__ b, const uint32_t* __restrict__ start,
                            const uint32_t* __restrict__ wire, const F* __restrict__ coef, const F* __restrict__ w,
                            uint32_t n) {
  const auto load_f = [](const F* p) { return ld_ro(p); };
  const auto load_u32 = [](const uint32_t* p) { return __ldg(p); };
  for (size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x; r < 2 * size_t(n); r += size_t(gridDim.x) * blockDim.x) {
    const F sum = row_sum<F>(__ldg(start + r), __ldg(start + r + 1), wire, coef, w, load_f, load_u32);
    st(r < n ? a + r : b + (r - n), sum);
  }
}

}  // namespace pacer::cuda::synth

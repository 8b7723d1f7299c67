#pragma once
// NTT kernels over a scalar field F (Fr, 8 words): tile passes in shared memory (plan.hpp), the
// twiddle/coset tables, and compute_h's element-wise steps. Included by one .cu per curve.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "internal.hpp"
#include "ntt/plan.hpp"
#include "util/cuda_util.cuh"
#include "util/ldst.cuh"

namespace pacer::cuda::ntt {

inline constexpr unsigned kPassThreads = 256;
inline constexpr uint32_t kLogCols = 3;  // 8 tile columns per block: 256-byte coalesced rows

template <class F>
struct PassArgs {
  const F* roots = nullptr;  // ω_T^e for e < T = 2^log_t (T >= n)
  const F* coset = nullptr;  // DIT first pass only: element q *= coset[rev_L(q)] (g^j/n)
  uint32_t L = 0, P = 0, K = 0, log_cols = 0, log_t = 0;
  bool dit = false, inverse = false, contiguous = false;
};

// ω_n^e (or ω_n^-e) from the table of the largest domain.
template <class F>
__device__ __forceinline__ F root_pow(const PassArgs<F>& a, uint64_t e) {
  const uint64_t mask = (uint64_t(1) << a.log_t) - 1;
  uint64_t idx = (e << (a.log_t - a.L)) & mask;
  if (a.inverse) idx = (mask + 1 - idx) & mask;
  return ld_ro(a.roots + idx);
}

// Shared memory holds the tile word-sliced (word w of element e at w·E + e): a warp touching 32
// consecutive elements hits 32 banks.
template <class F>
__device__ __forceinline__ F sm_load(const uint32_t* sm, uint32_t E, uint32_t e) {
  F x;
PACER_UNROLL
  for (int w = 0; w < F::n; ++w) x.l[w] = sm[w * E + e];
  return x;
}
template <class F>
__device__ __forceinline__ void sm_store(uint32_t* sm, uint32_t E, uint32_t e, const F& x) {
PACER_UNROLL
  for (int w = 0; w < F::n; ++w) sm[w * E + e] = x.l[w];
}

// Element f of the block's tile set -> (column in block, tile position). Row-major over columns
// when a column's lo bits leave room for the block's columns (C consecutive lo values share one
// row of C elements); otherwise the block's elements are one contiguous range of memory.
__device__ __forceinline__ void tile_coords(uint32_t f, const Pass& p, uint32_t log_cols, bool contiguous, uint32_t& c,
                                            uint32_t& m) {
  if (!contiguous) {
    c = f & ((1u << log_cols) - 1);
    m = f >> log_cols;
  } else {
    const uint32_t lo = f & ((1u << p.P) - 1);
    m = (f >> p.P) & ((1u << p.K) - 1);
    c = ((f >> (p.P + p.K)) << p.P) | lo;
  }
}

template <class F>
__global__ void __launch_bounds__(kPassThreads) ntt_pass_kernel(F* __restrict__ data, PassArgs<F> a) {
  extern __shared__ uint32_t sm[];
  const Pass p{a.P, a.K};
  const uint32_t M = 1u << a.K, C = 1u << a.log_cols, E = M << a.log_cols;
  uint32_t* tw = sm + F::n * E;  // ω_M^x, x < M/2, word-sliced with stride M/2
  const uint32_t half = M / 2;
  for (uint32_t x = threadIdx.x; x < half; x += blockDim.x)
    sm_store(tw, half, x, root_pow(a, uint64_t(x) << (a.L - a.K)));

  const size_t col0 = size_t(blockIdx.x) << a.log_cols;
  for (uint32_t f = threadIdx.x; f < E; f += blockDim.x) {
    uint32_t c, m;
    tile_coords(f, p, a.log_cols, a.contiguous, c, m);
    const size_t col = col0 + c, gi = tile_index(col, m, p);
    F x = ld(data + gi);
    if (a.dit) {
      if (a.P) x = x * root_pow(a, pass_twiddle_exp(col, m, a.L, p));
      if (a.coset) x = x * ld_ro(a.coset + bit_reverse(uint32_t(gi), a.L));
    }
    sm_store(sm, E, (m << a.log_cols) | c, x);
  }
  __syncthreads();

  for (uint32_t s = 0; s < a.K; ++s) {
    for (uint32_t b = threadIdx.x; b < E / 2; b += blockDim.x) {
      const uint32_t c = b & (C - 1);
      const Butterfly bf = butterfly(b >> a.log_cols, s, a.K, a.dit);
      const uint32_t e0 = (bf.i0 << a.log_cols) | c, e1 = (bf.i1 << a.log_cols) | c;
      F u = sm_load<F>(sm, E, e0), v = sm_load<F>(sm, E, e1);
      if (a.dit) {
        if (bf.e) v = v * sm_load<F>(tw, half, bf.e);
        sm_store(sm, E, e0, u + v);
        sm_store(sm, E, e1, u - v);
      } else {
        F d = u - v;
        if (bf.e) d = d * sm_load<F>(tw, half, bf.e);
        sm_store(sm, E, e0, u + v);
        sm_store(sm, E, e1, d);
      }
    }
    __syncthreads();
  }

  for (uint32_t f = threadIdx.x; f < E; f += blockDim.x) {
    uint32_t c, m;
    tile_coords(f, p, a.log_cols, a.contiguous, c, m);
    const size_t col = col0 + c, gi = tile_index(col, m, p);
    F x = sm_load<F>(sm, E, (m << a.log_cols) | c);
    if (!a.dit && a.P) x = x * root_pow(a, pass_twiddle_exp(col, m, a.L, p));
    st(data + gi, x);
  }
}

template <class F>
size_t pass_smem_bytes(uint32_t K, uint32_t log_cols) {
  return (size_t(F::n) * ((size_t(1) << (K + log_cols)) + (size_t(1) << K) / 2)) * 4;
}

// Runs all passes of one transform in place. inverse: ω^-1 (no 1/n: the caller folds it in).
template <class F>
void run_transform(F* data, uint32_t L, bool dit, bool inverse, const F* roots, uint32_t log_t, const F* coset,
                   cudaStream_t stream, const KernelConfig& kernels) {
  if (L == 0) return;
  // Tuning (KernelConfig, checked by check_kernel_config): stages per pass, 1 + log2 tiles per block.
  const uint32_t log_cols_max = kernels.ntt_log_cols ? kernels.ntt_log_cols - 1 : kLogCols;
  const Plan plan = make_plan(L, dit, kernels.ntt_pass_bits ? kernels.ntt_pass_bits : kMaxPassBits);
  for (uint32_t i = 0; i < plan.count; ++i) {
    PassArgs<F> a;
    a.roots = roots;
    a.coset = dit && i == 0 ? coset : nullptr;
    a.L = L;
    a.P = plan.pass[i].P;
    a.K = plan.pass[i].K;
    a.log_cols = std::min(log_cols_max, L - a.K);  // at most the number of columns
    while (a.log_cols > 0 && pass_smem_bytes<F>(a.K, a.log_cols) > 200 * 1024) --a.log_cols;
    a.log_t = log_t;
    a.dit = dit;
    a.inverse = inverse;
    a.contiguous = a.P < a.log_cols;
    const size_t smem = pass_smem_bytes<F>(a.K, a.log_cols);
    if (smem > 48 * 1024)  // per device, so set each time (cheap, idempotent)
      CUDA_CHECK(cudaFuncSetAttribute(ntt_pass_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    const size_t blocks = (size_t(1) << L) >> (a.K + a.log_cols);
    const unsigned threads = unsigned(std::min<size_t>(kPassThreads, std::max<size_t>(32, (size_t(1) << (a.K + a.log_cols)) / 2)));
    ntt_pass_kernel<F><<<unsigned(blocks), threads, smem, stream>>>(data, a);
    CUDA_CHECK_LAUNCH();
  }
}

// out[i] = lo[i mod 2^12] · hi[i >> 12]: a power table from two short host-made tables.
template <class F>
__global__ void powers_kernel(F* out, size_t count, const F* lo, const F* hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    st(out + i, ld_ro(lo + (i & 4095)) * ld_ro(hi + (i >> 12)));
}

// h_i = a_i·b_i - c_i, out of Montgomery form.
template <class F>
__global__ void h_kernel(F* a, const F* b, const F* c, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    st(a + i, (ld(a + i) * ld_ro(b + i) - ld_ro(c + i)).to_std());
}

// c_i = a_i·b_i (the C evaluations of a satisfied R1CS, docs/formats.md §6.2).
template <class F>
__global__ void hadamard_kernel(F* c, const F* a, const F* b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    st(c + i, ld_ro(a + i) * ld_ro(b + i));
}

template <class F>
__global__ void bit_reverse_kernel(F* out, const F* in, uint32_t L) {
  const size_t n = size_t(1) << L;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    st(out + i, ld_ro(in + bit_reverse(uint32_t(i), L)));
}

template <class F>
__global__ void scale_kernel(F* a, F s, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    st(a + i, ld(a + i) * s);
}

inline unsigned grid_for(size_t n) { return unsigned(std::min<size_t>((n + 255) / 256, size_t(132) * 32)); }

// x^i for i < count into a device table, via two host tables (x^i, i < 4096; x^(4096 i)).
template <class F>
void build_power_table(F* out, size_t count, const F& x, const F& first, int device, cudaStream_t stream) {
  std::vector<F> lo(4096), hi(std::max<size_t>(1, (count + 4095) / 4096));
  F acc = first;  // first·x^i: folds a constant factor (1/n) into the table
  for (auto& v : lo) {
    v = acc;
    acc = acc * x;
  }
  F step = x;  // x^4096
  for (int i = 0; i < 12; ++i) step = step.sqr();
  F h = F::one();
  for (auto& v : hi) {
    v = h;
    h = h * step;
  }
  DeviceBuffer dlo(lo.size() * sizeof(F), "NTT table set-up", device), dhi(hi.size() * sizeof(F), "NTT table set-up", device);
  CUDA_CHECK(cudaMemcpyAsync(dlo.get(), lo.data(), lo.size() * sizeof(F), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(dhi.get(), hi.data(), hi.size() * sizeof(F), cudaMemcpyHostToDevice, stream));
  powers_kernel<F><<<grid_for(count), 256, 0, stream>>>(out, count, dlo.get<F>(), dhi.get<F>());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the host tables die here
}

}  // namespace pacer::cuda::ntt

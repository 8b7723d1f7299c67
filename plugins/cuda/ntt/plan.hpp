#pragma once
// Pass structure of the radix-2 NTTs, shared by the kernels and the host simulation in the
// self-test (plain C++: no CUDA headers).
//
// Size n = 2^L. Forward DIF (Gentleman-Sande) takes natural order to bit-reversed order; DIT
// (Cooley-Tukey) takes bit-reversed order to natural order. A pass runs K consecutive stages on
// tiles of M = 2^K elements: the "mid" bits [P, P+K) of the index vary inside a tile, the bits
// below (lo) and above (hi) are fixed per tile. Inside a tile a pass is a plain size-M transform
// with the roots ω_M; what the global stages add on top is one factor per element,
//   ω_n^(lo · rev_K(m) · 2^(L-P-K))      (m = position in the tile)
// applied after the tile transform for DIF and before it for DIT (the four-step twiddle). Both
// orders need no bit-reversal permutation: compute_h runs inverse DIF, the coset scaling on the
// bit-reversed coefficients, then forward DIT.
#include <cstddef>
#include <cstdint>

#include "ff/carry.hpp"

namespace pacer::cuda::ntt {

inline constexpr uint32_t kMaxPassBits = 8;  // 256-element tiles
inline constexpr uint32_t kMaxPasses = 8;

struct Pass {
  uint32_t P = 0, K = 0;  // tile bits [P, P+K)
};

struct Plan {
  uint32_t L = 0, count = 0;
  Pass pass[kMaxPasses];
};

// Splits L bits into as few passes of at most kmax bits as possible, sizes as even as possible.
// DIT goes from the low bits up, DIF from the high bits down.
inline Plan make_plan(uint32_t L, bool dit, uint32_t kmax = kMaxPassBits) {
  Plan plan;
  plan.L = L;
  if (L == 0) return plan;
  plan.count = (L + kmax - 1) / kmax;
  uint32_t done = 0;
  for (uint32_t i = 0; i < plan.count; ++i) {
    const uint32_t left = plan.count - i;
    const uint32_t k = (L - done + left - 1) / left;
    plan.pass[i].K = k;
    plan.pass[i].P = dit ? done : L - done - k;
    done += k;
  }
  return plan;
}

PACER_HD uint32_t bit_reverse(uint32_t x, uint32_t bits) {
  if (bits == 0) return 0;
#if defined(__CUDA_ARCH__)
  return __brev(x) >> (32 - bits);
#else
  uint32_t r = 0;
  for (uint32_t b = 0; b < bits; ++b, x >>= 1) r = (r << 1) | (x & 1);
  return r;
#endif
}

// Global index of tile column `col` (= hi·2^P + lo), tile position m.
PACER_HD size_t tile_index(size_t col, uint32_t m, const Pass& p) {
  const size_t lo = col & ((size_t(1) << p.P) - 1), hi = col >> p.P;
  return (hi << (p.P + p.K)) | (size_t(m) << p.P) | lo;
}

// Exponent (of ω_n) of the per-element factor of a pass; 0 for the pass that has no lo bits.
PACER_HD uint64_t pass_twiddle_exp(size_t col, uint32_t m, uint32_t L, const Pass& p) {
  const uint64_t lo = col & ((size_t(1) << p.P) - 1);
  return (lo * bit_reverse(m, p.K)) << (L - p.P - p.K);
}

// Butterfly b (< M/2) of tile stage s: the two tile positions and the exponent of ω_M (< M/2).
struct Butterfly {
  uint32_t i0, i1, e;
};
PACER_HD Butterfly butterfly(uint32_t b, uint32_t s, uint32_t K, bool dit) {
  if (dit) {  // half = 2^s
    const uint32_t j = b & ((1u << s) - 1);
    const uint32_t i0 = ((b >> s) << (s + 1)) | j;
    return {i0, i0 + (1u << s), j << (K - 1 - s)};
  }
  const uint32_t h = K - 1 - s;  // half = 2^h
  const uint32_t j = b & ((1u << h) - 1);
  const uint32_t i0 = ((b >> h) << (h + 1)) | j;
  return {i0, i0 + (1u << h), j << s};
}

}  // namespace pacer::cuda::ntt

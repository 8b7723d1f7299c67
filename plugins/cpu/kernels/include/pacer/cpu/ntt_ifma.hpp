#pragma once
// compute_h's odd-coset step (iNTT, shift by the coset generator, NTT) on AVX-512 IFMA, eight
// butterflies side by side. The scalar NTT is bound by the Montgomery product (~18 ns on the dev VM,
// ~4 ns a lane here) and by its memory passes: a bit-reversal and one pass per stage.
//
// Layout: lane l holds the l-th eighth of the array, so element i = l·m + q (m = n/8) is lane l of
// block q, and a stage whose half h is below m pairs block q with block q + h under one twiddle
// for all lanes. The three stages that pair lanes (h = m, 2m, 4m) run on 8x8 transposed tiles.
// No bit reversal: the inverse is decimation in frequency (natural in, bit-reversed out), the
// forward one decimation in time (bit-reversed in, natural out), and the coset shift in between
// multiplies position i by n^-1·g^rev(i) with rev(l·m + q) = rev(q)·8 + rev3(l).
// Cache: stages with h below kLocalBlocks blocks run block by block (one block of 160 KB stays
// in L2 through the inverse's last stages, the shift and the forward's first ones).
//
// Values stay below 2p inside (twiddles canonical: one factor below p keeps a product below 2p
// for p < 2^255, true of both scalar fields); the output is canonical.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>

#include "pacer/buffer.hpp"
#include "pacer/cpu/ifma_field.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer::math {

namespace ifma {

// Scalar fields of four 64-bit limbs below 2^255.
template <class Fr>
constexpr bool ntt_supported() {
#if defined(PACER_HAVE_IFMA_CODE)
  return Fr::N == 4 && (Fr::P[3] >> 63) == 0;
#endif
  return false;
}

// What the transform reads, owned by Radix2Domain. n >= 64.
template <class Fr>
struct CosetTables {
  size_t n;
  const Fr* roots;        // ω^k, k < n/2
  const Fr* inv_roots;    // ω^-k, k < n/2
  const Fr* block_scale;  // (g^8)^rev(q), q < n/8
  const Fr* lane_scale;   // n^-1·g^rev3(l), l < 8
};

// Blocks (of 8 elements) per cache block: 512·320 bytes.
inline constexpr size_t kLocalBlocks = 512;

#if defined(PACER_HAVE_IFMA_CODE)

using Lanes5 = Lanes<5>;

// Eight consecutive 4-limb elements into lanes, and (canonical) back.
PACER_IFMA_INLINE Lanes5 load_elements(const uint64_t* src, const Constants<5>& c) {
  const __m512i pick_lo = index8(0, 4, 8, 12, 1, 5, 9, 13), pick_hi = index8(2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i lo4 = index8(0, 1, 2, 3, 8, 9, 10, 11), hi4 = index8(4, 5, 6, 7, 12, 13, 14, 15);
  __m512i r[4], v[4];
  for (int k = 0; k < 4; ++k) r[k] = _mm512_loadu_si512(src + 8 * k);
  const __m512i a = _mm512_permutex2var_epi64(r[0], pick_lo, r[1]);  // limbs 0, 1 of elements 0-3
  const __m512i b = _mm512_permutex2var_epi64(r[0], pick_hi, r[1]);  // limbs 2, 3
  const __m512i e = _mm512_permutex2var_epi64(r[2], pick_lo, r[3]);  // elements 4-7
  const __m512i f = _mm512_permutex2var_epi64(r[2], pick_hi, r[3]);
  v[0] = _mm512_permutex2var_epi64(a, lo4, e);
  v[1] = _mm512_permutex2var_epi64(a, hi4, e);
  v[2] = _mm512_permutex2var_epi64(b, lo4, f);
  v[3] = _mm512_permutex2var_epi64(b, hi4, f);
  return from_64<4>(v, c.mask);
}

PACER_IFMA_INLINE void store_elements(uint64_t* dst, const Lanes5& x) {
  const __m512i pick_lo = index8(0, 4, 8, 12, 1, 5, 9, 13), pick_hi = index8(2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i lo4 = index8(0, 1, 2, 3, 8, 9, 10, 11), hi4 = index8(4, 5, 6, 7, 12, 13, 14, 15);
  __m512i v[4];
  to_64<4>(x, v);
  const __m512i a = _mm512_permutex2var_epi64(v[0], lo4, v[1]);  // limbs 0, 1 of elements 0-3
  const __m512i e = _mm512_permutex2var_epi64(v[0], hi4, v[1]);  // elements 4-7
  const __m512i b = _mm512_permutex2var_epi64(v[2], lo4, v[3]);  // limbs 2, 3
  const __m512i f = _mm512_permutex2var_epi64(v[2], hi4, v[3]);
  _mm512_storeu_si512(dst, _mm512_permutex2var_epi64(a, pick_lo, b));
  _mm512_storeu_si512(dst + 8, _mm512_permutex2var_epi64(a, pick_hi, b));
  _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi64(e, pick_lo, f));
  _mm512_storeu_si512(dst + 24, _mm512_permutex2var_epi64(e, pick_hi, f));
}

template <class Fr>
PACER_IFMA_INLINE Lanes5 splat(const Fr& w, const Constants<5>& c) {
  __m512i v[4];
  for (int k = 0; k < 4; ++k) v[k] = broadcast(w.v[k]);
  return from_64<4>(v, c.mask);
}

// table[first + t·stride] in lane t.
template <class Fr>
PACER_IFMA_INLINE Lanes5 gather_table(const Fr* table, size_t first, size_t stride, const Constants<5>& c) {
  const long long s = static_cast<long long>(stride * sizeof(Fr));
  const __m512i at = index8(0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s);
  const auto* base = reinterpret_cast<const long long*>(table + first);
  __m512i v[4];
  for (int k = 0; k < 4; ++k) v[k] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), 0xff, at, base + k, 1);
  return from_64<4>(v, c.mask);
}

// Gentleman-Sande: (u, v) -> (u + v, (u - v)·w).
PACER_IFMA_INLINE void dif(Lanes5& u, Lanes5& v, const Lanes5& w, const Constants<5>& c) {
  const Lanes5 d = sub(u, v, c);
  u = add(u, v, c);
  v = mul<4>(d, w, c);
}
// Cooley-Tukey: (u, v) -> (u + v·w, u - v·w).
PACER_IFMA_INLINE void dit(Lanes5& u, Lanes5& v, const Lanes5& w, const Constants<5>& c) {
  const Lanes5 t = mul<4>(v, w, c);
  v = sub(u, t, c);
  u = add(u, t, c);
}

// One stage of half h (in blocks, h < m) over butterflies [begin, end) of the m/2.
template <bool kDif, class Fr>
[[gnu::target("avx512f,avx512ifma")]] void block_stage(Lanes5* s, const Fr* roots, size_t n, size_t h, size_t begin,
                                                     size_t end) {
  const auto c = make_constants<Fr>();
  const size_t stride = n / (2 * h);
  for (size_t b = begin; b < end; ++b) {
    const size_t j = b % h, q = (b / h) * 2 * h + j;
    const Lanes5 w = splat(roots[j * stride], c);
    if constexpr (kDif) dif(s[q], s[q + h], w, c);
    else dit(s[q], s[q + h], w, c);
  }
}

// The stages of half < len (blocks) inside s[0, len): the inverse's last ones, the coset shift,
// the forward's first ones.
template <class Fr>
[[gnu::target("avx512f,avx512ifma")]] void local_block(Lanes5* s, size_t first_block, size_t len,
                                                     const CosetTables<Fr>& t) {
  const auto c = make_constants<Fr>();
  const size_t n = t.n;
  for (size_t h = len / 2; h >= 1; h /= 2)
    for (size_t j = 0; j < h; ++j) {
      const Lanes5 w = splat(t.inv_roots[j * (n / (2 * h))], c);
      for (size_t g = 0; g < len; g += 2 * h) dif(s[g + j], s[g + j + h], w, c);
    }
  const Lanes5 lane_scale = gather_table(t.lane_scale, 0, 1, c);
  for (size_t q = 0; q < len; ++q) {
    const Lanes5 w = canonical(mul<4>(lane_scale, splat(t.block_scale[first_block + q], c), c), c);
    s[q] = mul<4>(s[q], w, c);
  }
  for (size_t h = 1; h < len; h *= 2)
    for (size_t j = 0; j < h; ++j) {
      const Lanes5 w = splat(t.roots[j * (n / (2 * h))], c);
      for (size_t g = 0; g < len; g += 2 * h) dit(s[g + j], s[g + j + h], w, c);
    }
}

// Tile of blocks [q0, q0 + 8): elements l·m + q0 + t, t < 8, in w[l]. Lane-pairing stages of the
// inverse (h = 4m, 2m, m), read from the array; or of the forward (h = m, 2m, 4m), written to it.
template <class Fr>
[[gnu::target("avx512f,avx512ifma")]] void tile_inverse(const Fr* a, Lanes5* s, size_t q0, const CosetTables<Fr>& t) {
  const auto c = make_constants<Fr>();
  const size_t m = t.n / 8;
  Lanes5 w[8];
  for (size_t l = 0; l < 8; ++l) w[l] = load_elements(a[l * m + q0].v.data(), c);
  for (size_t l = 0; l < 4; ++l) dif(w[l], w[l + 4], gather_table(t.inv_roots, l * m + q0, 1, c), c);
  for (size_t l : {0, 1, 4, 5}) dif(w[l], w[l + 2], gather_table(t.inv_roots, 2 * ((l % 2) * m + q0), 2, c), c);
  const Lanes5 w1 = gather_table(t.inv_roots, 4 * q0, 4, c);
  for (size_t l = 0; l < 8; l += 2) dif(w[l], w[l + 1], w1, c);
  for (size_t i = 0; i < 5; ++i) {
    __m512i r[8];
    for (size_t l = 0; l < 8; ++l) r[l] = w[l].l[i];
    transpose8(r);
    for (size_t k = 0; k < 8; ++k) s[q0 + k].l[i] = r[k];
  }
}

template <class Fr>
[[gnu::target("avx512f,avx512ifma")]] void tile_forward(const Lanes5* s, Fr* a, size_t q0, const CosetTables<Fr>& t) {
  const auto c = make_constants<Fr>();
  const size_t m = t.n / 8;
  Lanes5 w[8];
  for (size_t i = 0; i < 5; ++i) {
    __m512i r[8];
    for (size_t k = 0; k < 8; ++k) r[k] = s[q0 + k].l[i];
    transpose8(r);
    for (size_t l = 0; l < 8; ++l) w[l].l[i] = r[l];
  }
  const Lanes5 w1 = gather_table(t.roots, 4 * q0, 4, c);
  for (size_t l = 0; l < 8; l += 2) dit(w[l], w[l + 1], w1, c);
  for (size_t l : {0, 1, 4, 5}) dit(w[l], w[l + 2], gather_table(t.roots, 2 * ((l % 2) * m + q0), 2, c), c);
  for (size_t l = 0; l < 4; ++l) dit(w[l], w[l + 4], gather_table(t.roots, l * m + q0, 1, c), c);
  for (size_t l = 0; l < 8; ++l) store_elements(a[l * m + q0].v.data(), canonical(w[l], c));
}

#endif  // PACER_HAVE_IFMA_CODE

// In place: evaluations on the domain (natural order, Montgomery) -> evaluations on its odd coset.
// local_blocks (a power of two) is exposed so tests reach the out-of-cache stages at small n.
// The working buffer (5/4 of a's size) comes from `allocator` (Usage::ntt; null: operator new).
template <class Fr>
void odd_coset(std::span<Fr> a, const CosetTables<Fr>& t, ThreadPool* pool, size_t local_blocks = kLocalBlocks,
               Allocator* allocator = nullptr) {
#if defined(PACER_HAVE_IFMA_CODE)
  const size_t n = t.n, m = n / 8;
  const size_t len = std::min(m, local_blocks);
  AllocatedArray<Lanes5> buffer(allocator, m, Usage::ntt);  // every entry written by tile_inverse first
  Lanes5* s = buffer.data();
  constexpr size_t kTilesPerTask = 64, kButterfliesPerTask = 2048;
  const size_t tiles = m / 8;
  auto each_tile = [&](const std::function<void(size_t q0)>& fn) {
    run_tasks(pool, (tiles + kTilesPerTask - 1) / kTilesPerTask, [&](size_t k) {
      for (size_t tile = k * kTilesPerTask, e = std::min(tiles, tile + kTilesPerTask); tile < e; ++tile) fn(8 * tile);
    });
  };
  each_tile([&](size_t q0) { tile_inverse(a.data(), s, q0, t); });
  auto global_stage = [&](bool inverse, size_t h) {
    run_tasks(pool, (m / 2 + kButterfliesPerTask - 1) / kButterfliesPerTask, [&](size_t k) {
      const size_t begin = k * kButterfliesPerTask, end = std::min(m / 2, begin + kButterfliesPerTask);
      if (inverse) block_stage<true>(s, t.inv_roots, n, h, begin, end);
      else block_stage<false>(s, t.roots, n, h, begin, end);
    });
  };
  for (size_t h = m / 2; h >= len; h /= 2) global_stage(true, h);
  run_tasks(pool, m / len, [&](size_t k) { local_block(s + k * len, k * len, len, t); });
  for (size_t h = len; h < m; h *= 2) global_stage(false, h);
  each_tile([&](size_t q0) { tile_forward(s, a.data(), q0, t); });
#else
  (void)a, (void)t, (void)pool, (void)local_blocks, (void)allocator;
  throw std::logic_error("ifma::odd_coset called without IFMA code");
#endif
}

}  // namespace ifma
}  // namespace pacer::math

#pragma once
// Synthesis terms eight at a time on AVX-512 IFMA (ifma_field.hpp): the scalar Montgomery product
// (~20 ns) is most of a term's cost once the witness is prefetched, and eight lanes of vpmadd52
// do it in a few ns each. Eight consecutive terms (of one row or several) are gathered limb-major
// (coefficients from their contiguous array, witness values by their wires), multiplied, brought
// below p and summed into their rows by the scalar code: the same integers as synthesis.hpp's
// scalar loop, so the results are bit-identical.
#include <cstddef>
#include <cstdint>

#include "pacer/cpu/ifma_field.hpp"
#include "pacer/formats/constraint_rows.hpp"

namespace pacer::math::ifma {

// Scalar fields of four 64-bit limbs below 2^255 (both curves' r).
template <class Fr>
constexpr bool synthesis_supported() {
#if defined(PACER_HAVE_IFMA_CODE)
  return Fr::N == 4 && (Fr::P[3] >> 63) == 0;
#endif
  return false;
}

#if defined(PACER_HAVE_IFMA_CODE)

// u64 offsets of limb `limb` of eight consecutive 4-limb elements.
PACER_IFMA_INLINE __m512i limb_offsets(unsigned limb) {
  return _mm512_add_epi64(index8(0, 4, 8, 12, 16, 20, 24, 28), broadcast(limb));
}

// out[r] = Σ coef[k]·w[wire[k]] over row first_slot + r's terms, for r < count; `ahead` terms of
// witness prefetched.
template <class Fr>
[[gnu::target("avx512f,avx512ifma,avx2")]] void sum_rows_ifma(const ConstraintRows& rows, size_t first_slot,
                                                             size_t count, const Fr256* w, Fr* out, size_t ahead) {
  static_assert(synthesis_supported<Fr>());
  constexpr size_t N = 4, L = kLimbs52<N>;
  const Constants<L> c = make_constants<Fr>();
  const uint32_t* start = rows.start.data() + first_slot;
  const uint32_t* wire = rows.wire.data();
  const auto* coef = reinterpret_cast<const long long*>(rows.coef.data());
  const auto* wit = reinterpret_cast<const long long*>(w);
  const size_t begin = start[0], end = start[count], terms = rows.wire.size();
  const __m512i zero = _mm512_setzero_si512();
  size_t r = 0;
  Fr sum;
  // Ends the rows that end at or before term k (empty rows included).
  auto finish_rows_before = [&](size_t k) {
    while (r < count && start[r + 1] <= k) {
      out[r++] = sum;
      sum = Fr::zero();
    }
  };
  for (size_t p = begin; p < std::min(terms, begin + ahead); ++p) __builtin_prefetch(&w[wire[p]]);
  alignas(64) uint64_t prod[N][8];
  size_t k = begin;
  for (; k + 8 <= end; k += 8) {
    for (size_t p = k + ahead; p < std::min(terms, k + ahead + 8); ++p) __builtin_prefetch(&w[wire[p]]);
    const __m512i wires =  // u64 offsets of the witness values (masked forms: see transpose8)
        shl(_mm512_maskz_cvtepu32_epi64(0xff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wire + k))), 2);
    __m512i cv[N], wv[N];
    for (unsigned l = 0; l < N; ++l) {
      cv[l] = _mm512_mask_i64gather_epi64(zero, 0xff, limb_offsets(l), coef + 4 * k, 8);
      wv[l] = _mm512_mask_i64gather_epi64(zero, 0xff, _mm512_add_epi64(wires, broadcast(l)), wit, 8);
    }
    const Lanes<L> product = canonical(mul<N>(from_64<N>(cv, c.mask), from_64<N>(wv, c.mask), c), c);
    __m512i pv[N];
    to_64<N>(product, pv);
    for (unsigned l = 0; l < N; ++l) _mm512_store_si512(prod[l], pv[l]);
    for (size_t j = 0; j < 8; ++j) {
      finish_rows_before(k + j);
      sum += Fr::from_mont(Fr256{prod[0][j], prod[1][j], prod[2][j], prod[3][j]});
    }
  }
  for (; k < end; ++k) {  // the last few terms, one at a time
    finish_rows_before(k);
    sum += Fr::from_mont(rows.coef[k]) * Fr::from_mont(w[wire[k]]);
  }
  finish_rows_before(end);
}

#endif  // PACER_HAVE_IFMA_CODE

}  // namespace pacer::math::ifma

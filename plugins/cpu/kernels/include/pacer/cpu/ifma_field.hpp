#pragma once
// Field arithmetic on AVX-512 IFMA: eight elements side by side, one per 64-bit lane, as 52-bit
// limbs (5 for a 4-limb field, 8 for a 6-limb one). The scalar Montgomery product is bound by the
// carry-flag chain (~68 adc/adox per product, about one per cycle on Zen 4); vpmadd52 has no flags,
// and eight lanes of it cost ~4.4 ns per product against ~20 ns on the same core.
//
// Values stay the integers the scalar code uses (Montgomery form with R = 2^(64N)), so nothing is
// converted but the limb layout: an L-limb Montgomery product divides by 2^(52L), so one factor
// enters shifted left by s = 52L - 64N bits (4 for 4 limbs, 32 for 6), and the product
// (a·2^s·b + m·p) / 2^(52L) stays below 2p while a·b < p·2^(64N): both factors below 2p when
// p < 2^(64N-2), or one below p and one below 2p when p < 2^(64N-1).
//
// Users: the MSM's batched bucket additions (msm_ifma.hpp) and the NTT (ntt_ifma.hpp).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "pacer/cpu/kernel_config.hpp"
#include "pacer/math/field.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PACER_HAVE_IFMA_CODE 1
#endif


namespace pacer::math {

namespace ifma {

#if defined(PACER_HAVE_IFMA_CODE)


#define PACER_IFMA_INLINE [[gnu::target("avx512f,avx512ifma"), gnu::always_inline]] inline

// 52-bit limbs for an N-limb (64-bit) field: 5 for 4, 8 for 6.
template <size_t N>
inline constexpr size_t kLimbs52 = (64 * N + 51) / 52;

// Eight field elements, limb-major: l[i] holds 52-bit limb i of every lane.
template <size_t L>
struct Lanes {
  __m512i l[L];
};

template <size_t L>
struct Constants {
  __m512i p[L], two_p[L], one[L], pinv, mask;
};

// Shifts through the zero-masked forms: GCC 12's plain ones start from _mm512_undefined_epi32(),
// which -Wuninitialized flags once inlined.
PACER_IFMA_INLINE __m512i shl(__m512i a, unsigned n) { return _mm512_maskz_slli_epi64(0xff, a, n); }
PACER_IFMA_INLINE __m512i shr(__m512i a, unsigned n) { return _mm512_maskz_srli_epi64(0xff, a, n); }
PACER_IFMA_INLINE __m512i sar(__m512i a, unsigned n) { return _mm512_maskz_srai_epi64(0xff, a, n); }

PACER_IFMA_INLINE __m512i broadcast(uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }

// N x 64-bit limbs (v[k] holds limb k of every lane) into 52-bit limbs, and back.
template <size_t N>
PACER_IFMA_INLINE Lanes<kLimbs52<N>> from_64(const __m512i v[N], __m512i mask) {
  Lanes<kLimbs52<N>> r;
  for (size_t i = 0; i < kLimbs52<N>; ++i) {
    const size_t bit = 52 * i, w = bit / 64, off = bit % 64;
    __m512i x = shr(v[w], unsigned(off));
    if (off > 12 && w + 1 < N) x = _mm512_or_si512(x, shl(v[w + 1], unsigned(64 - off)));
    r.l[i] = _mm512_and_si512(x, mask);
  }
  return r;
}

template <size_t N>
PACER_IFMA_INLINE void to_64(const Lanes<kLimbs52<N>>& a, __m512i v[N]) {
  for (size_t k = 0; k < N; ++k) {
    const size_t bit = 64 * k, i = bit / 52, off = bit % 52;
    __m512i x = shr(a.l[i], unsigned(off));  // 52 - off bits of limb i, then whole limbs above it
    for (size_t have = 52 - off, j = i + 1; have < 64 && j < kLimbs52<N>; have += 52, ++j)
      x = _mm512_or_si512(x, shl(a.l[j], unsigned(have)));
    v[k] = x;
  }
}

template <class F>
[[gnu::target("avx512f,avx512ifma")]] inline Constants<kLimbs52<F::N>> make_constants() {
  constexpr size_t N = F::N, L = kLimbs52<N>;
  Constants<L> c;
  c.mask = broadcast((uint64_t(1) << 52) - 1);
  __m512i p64[N], two_p64[N], one64[N];
  Limbs<N> two_p = F::P;
  limbs_add(two_p, F::P);  // p < 2^(64N-2): no carry out
  for (size_t k = 0; k < N; ++k) {
    p64[k] = broadcast(F::P[k]);
    two_p64[k] = broadcast(two_p[k]);
    one64[k] = broadcast(F::R1[k]);
  }
  const auto p = from_64<N>(p64, c.mask), tp = from_64<N>(two_p64, c.mask), one = from_64<N>(one64, c.mask);
  for (size_t i = 0; i < L; ++i) c.p[i] = p.l[i], c.two_p[i] = tp.l[i], c.one[i] = one.l[i];
  c.pinv = broadcast(F::INV & ((uint64_t(1) << 52) - 1));  // -p^-1 mod 2^52
  return c;
}

// Carries signed limbs (each |limb| < 2^63) into 52-bit ones; the top limb keeps the sign.
template <size_t L>
PACER_IFMA_INLINE void normalize(Lanes<L>& a, __m512i mask) {
  for (size_t i = 0; i + 1 < L; ++i) {
    a.l[i + 1] = _mm512_add_epi64(a.l[i + 1], sar(a.l[i], 52));
    a.l[i] = _mm512_and_si512(a.l[i], mask);
  }
}

// a - b, plus 2p where negative: [0, 2p) for a, b < 2p.
template <size_t L>
PACER_IFMA_INLINE Lanes<L> sub(const Lanes<L>& a, const Lanes<L>& b, const Constants<L>& c) {
  Lanes<L> d;
  for (size_t i = 0; i < L; ++i) d.l[i] = _mm512_sub_epi64(a.l[i], b.l[i]);
  normalize(d, c.mask);
  const __mmask8 negative = _mm512_cmplt_epi64_mask(d.l[L - 1], _mm512_setzero_si512());
  for (size_t i = 0; i < L; ++i) d.l[i] = _mm512_mask_add_epi64(d.l[i], negative, d.l[i], c.two_p[i]);
  normalize(d, c.mask);
  return d;
}

// a - m where that is not negative, else a: [0, 2p) to [0, p) with m = p.
template <size_t L>
PACER_IFMA_INLINE Lanes<L> subtract_if_at_least(const Lanes<L>& a, const __m512i m[L], __m512i mask) {
  Lanes<L> d;
  for (size_t i = 0; i < L; ++i) d.l[i] = _mm512_sub_epi64(a.l[i], m[i]);
  normalize(d, mask);
  const __mmask8 keep = _mm512_cmplt_epi64_mask(d.l[L - 1], _mm512_setzero_si512());
  for (size_t i = 0; i < L; ++i) d.l[i] = _mm512_mask_mov_epi64(d.l[i], keep, a.l[i]);
  return d;
}

template <size_t L>
PACER_IFMA_INLINE Lanes<L> canonical(const Lanes<L>& a, const Constants<L>& c) {
  return subtract_if_at_least(a, c.p, c.mask);
}

// a·b·2^(-64N) mod p, in [0, 2p), for a, b < 2p: the 2^(-52L) Montgomery product of a and
// b·2^s, s = 52L - 64N (4 for BN254, 32 for BLS12-381). Operand scanning with the reduction
// interleaved (CIOS): L+1 accumulators live instead of 2L, which spares register spills.
template <size_t N>
PACER_IFMA_INLINE Lanes<kLimbs52<N>> mul(const Lanes<kLimbs52<N>>& a, const Lanes<kLimbs52<N>>& b,
                                         const Constants<kLimbs52<N>>& c) {
  constexpr size_t L = kLimbs52<N>;
  constexpr unsigned s = unsigned(52 * L - 64 * N);
  static_assert(s > 0 && s < 52);
  const __m512i zero = _mm512_setzero_si512();
  // A column lives at most L+1 rounds and takes at most four 52-bit halves and a carry in each:
  // far below 2^64.
  __m512i t[L + 1];
  for (auto& x : t) x = zero;
  for (size_t i = 0; i < L; ++i) {
    const __m512i bi =
        _mm512_and_si512(i == 0 ? shl(b.l[0], s) : _mm512_or_si512(shl(b.l[i], s), shr(b.l[i - 1], 52 - s)), c.mask);
    for (size_t j = 0; j < L; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], a.l[j], bi);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.l[j], bi);
    }
    const __m512i m = _mm512_madd52lo_epu64(zero, t[0], c.pinv);  // below 2^52 already
    for (size_t j = 0; j < L; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], m, c.p[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, c.p[j]);
    }
    const __m512i carry = shr(t[0], 52);  // the low 52 bits are zero now: drop the column
    for (size_t j = 0; j < L; ++j) t[j] = t[j + 1];
    t[0] = _mm512_add_epi64(t[0], carry);
    t[L] = zero;
  }
  Lanes<L> r;
  for (size_t i = 0; i < L; ++i) r.l[i] = t[i];
  for (size_t i = 0; i + 1 < L; ++i) {
    r.l[i + 1] = _mm512_add_epi64(r.l[i + 1], shr(r.l[i], 52));
    r.l[i] = _mm512_and_si512(r.l[i], c.mask);
  }
  return r;
}

// Eight Fq2 elements c0 + c1·u (u^2 = -1).
template <size_t L>
struct Lanes2 {
  Lanes<L> c0, c1;
};

// a + b, less 2p where that is at least 2p: [0, 2p) for a, b < 2p.
template <size_t L>
PACER_IFMA_INLINE Lanes<L> add(const Lanes<L>& a, const Lanes<L>& b, const Constants<L>& c) {
  Lanes<L> s;
  for (size_t i = 0; i < L; ++i) s.l[i] = _mm512_add_epi64(a.l[i], b.l[i]);
  normalize(s, c.mask);
  return subtract_if_at_least(s, c.two_p, c.mask);
}

template <size_t L>
PACER_IFMA_INLINE Lanes2<L> add(const Lanes2<L>& a, const Lanes2<L>& b, const Constants<L>& c) {
  return {add(a.c0, b.c0, c), add(a.c1, b.c1, c)};
}
template <size_t L>
PACER_IFMA_INLINE Lanes2<L> sub(const Lanes2<L>& a, const Lanes2<L>& b, const Constants<L>& c) {
  return {sub(a.c0, b.c0, c), sub(a.c1, b.c1, c)};
}
template <size_t L>
PACER_IFMA_INLINE Lanes2<L> canonical(const Lanes2<L>& a, const Constants<L>& c) {
  return {canonical(a.c0, c), canonical(a.c1, c)};
}
// Karatsuba, three products: the sums a0 + a1 and b0 + b1 go through add, which brings them back
// below 2p, so they are valid factors.
template <size_t N>
PACER_IFMA_INLINE Lanes2<kLimbs52<N>> mul(const Lanes2<kLimbs52<N>>& a, const Lanes2<kLimbs52<N>>& b,
                                          const Constants<kLimbs52<N>>& c) {
  const auto t0 = mul<N>(a.c0, b.c0, c), t1 = mul<N>(a.c1, b.c1, c);
  const auto t2 = mul<N>(add(a.c0, a.c1, c), add(b.c0, b.c1, c), c);
  return {sub(t0, t1, c), sub(sub(t2, t0, c), t1, c)};
}

// a^2: over Fq2, (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u, two products instead of three.
template <size_t N>
PACER_IFMA_INLINE Lanes<kLimbs52<N>> sqr(const Lanes<kLimbs52<N>>& a, const Constants<kLimbs52<N>>& c) {
  return mul<N>(a, a, c);
}
template <size_t N>
PACER_IFMA_INLINE Lanes2<kLimbs52<N>> sqr(const Lanes2<kLimbs52<N>>& a, const Constants<kLimbs52<N>>& c) {
  const auto t = mul<N>(a.c0, a.c1, c);
  return {mul<N>(add(a.c0, a.c1, c), sub(a.c0, a.c1, c), c), add(t, t, c)};
}

// -a, as 0 - a (not canonical, as sub's results are not).
template <size_t L>
PACER_IFMA_INLINE Lanes<L> neg(const Lanes<L>& a, const Constants<L>& c) {
  Lanes<L> zero;
  for (auto& x : zero.l) x = _mm512_setzero_si512();
  return sub(zero, a, c);
}

template <size_t L>
PACER_IFMA_INLINE __mmask8 zero_lanes(const Lanes<L>& a) {
  __mmask8 zero = 0xff;
  for (size_t i = 0; i < L; ++i) zero &= _mm512_cmpeq_epi64_mask(a.l[i], _mm512_setzero_si512());
  return zero;
}
template <size_t L>
PACER_IFMA_INLINE __mmask8 zero_lanes(const Lanes2<L>& a) { return zero_lanes(a.c0) & zero_lanes(a.c1); }

// Lanes in `m` become the field's one (R mod p; for Fq2, 1 + 0·u).
template <size_t L>
PACER_IFMA_INLINE void set_one(Lanes<L>& a, __mmask8 m, const Constants<L>& c) {
  for (size_t i = 0; i < L; ++i) a.l[i] = _mm512_mask_mov_epi64(a.l[i], m, c.one[i]);
}
template <size_t L>
PACER_IFMA_INLINE void set_one(Lanes2<L>& a, __mmask8 m, const Constants<L>& c) {
  set_one(a.c0, m, c);
  for (size_t i = 0; i < L; ++i) a.c1.l[i] = _mm512_mask_mov_epi64(a.c1.l[i], m, _mm512_setzero_si512());
}

PACER_IFMA_INLINE __m512i index8(long long a, long long b, long long c, long long d, long long e, long long f,
                                 long long g, long long h) {
  return _mm512_setr_epi64(a, b, c, d, e, f, g, h);
}

// r[i] lane j <-> r[j] lane i. (Masked forms throughout: GCC 12's plain unpack and gather start
// from _mm512_undefined_epi32(), which -Wuninitialized flags once inlined.)
PACER_IFMA_INLINE void transpose8(__m512i r[8]) {
  __m512i t[8], s[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_maskz_unpacklo_epi64(0xff, r[i], r[i + 1]);      // a0 b0 a2 b2 a4 b4 a6 b6
    t[i + 1] = _mm512_maskz_unpackhi_epi64(0xff, r[i], r[i + 1]);  // a1 b1 a3 b3 ...
  }
  const __m512i lo2 = index8(0, 1, 8, 9, 4, 5, 12, 13), hi2 = index8(2, 3, 10, 11, 6, 7, 14, 15);
  for (int i : {0, 1, 4, 5}) {
    s[i] = _mm512_permutex2var_epi64(t[i], lo2, t[i + 2]);      // a0 b0 c0 d0 a4 b4 c4 d4
    s[i + 2] = _mm512_permutex2var_epi64(t[i], hi2, t[i + 2]);  // a2 b2 c2 d2 a6 b6 c6 d6
  }
  const __m512i lo4 = index8(0, 1, 2, 3, 8, 9, 10, 11), hi4 = index8(4, 5, 6, 7, 12, 13, 14, 15);
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm512_permutex2var_epi64(s[i], lo4, s[i + 4]);
    r[i + 4] = _mm512_permutex2var_epi64(s[i], hi4, s[i + 4]);
  }
}

// Scratch: 8L words per Lanes<L>.
template <size_t L>
PACER_IFMA_INLINE void store(uint64_t* out, const Lanes<L>& a) {
  for (size_t i = 0; i < L; ++i) _mm512_storeu_si512(out + 8 * i, a.l[i]);
}
template <size_t L>
PACER_IFMA_INLINE void store(uint64_t* out, const Lanes2<L>& a) {
  store(out, a.c0);
  store(out + 8 * L, a.c1);
}
template <size_t L>
PACER_IFMA_INLINE void load(const uint64_t* in, Lanes<L>& a) {
  for (size_t i = 0; i < L; ++i) a.l[i] = _mm512_loadu_si512(in + 8 * i);
}
template <size_t L>
PACER_IFMA_INLINE void load(const uint64_t* in, Lanes2<L>& a) {
  load(in, a.c0);
  load(in + 8 * L, a.c1);
}

// Canonical lanes to and from eight scalar field elements.
template <class F>
PACER_IFMA_INLINE void to_scalars(const Lanes<kLimbs52<F::N>>& a, F* out) {
  __m512i v[F::N];
  to_64<F::N>(a, v);
  alignas(64) uint64_t limbs[F::N][8];
  for (size_t k = 0; k < F::N; ++k) _mm512_store_si512(limbs[k], v[k]);
  for (size_t j = 0; j < 8; ++j)
    for (size_t k = 0; k < F::N; ++k) out[j].v[k] = limbs[k][j];
}
template <class F>
PACER_IFMA_INLINE void to_scalars(const Lanes2<kLimbs52<F::Base::N>>& a, F* out) {
  typename F::Base c0[8], c1[8];
  to_scalars(a.c0, c0);
  to_scalars(a.c1, c1);
  for (size_t j = 0; j < 8; ++j) out[j] = F(c0[j], c1[j]);
}
template <class F>
PACER_IFMA_INLINE void from_scalars(const F* in, const Constants<kLimbs52<F::N>>& c, Lanes<kLimbs52<F::N>>& a) {
  alignas(64) uint64_t limbs[F::N][8];
  for (size_t j = 0; j < 8; ++j)
    for (size_t k = 0; k < F::N; ++k) limbs[k][j] = in[j].v[k];
  __m512i v[F::N];
  for (size_t k = 0; k < F::N; ++k) v[k] = _mm512_load_si512(limbs[k]);
  a = from_64<F::N>(v, c.mask);
}
template <class F>
PACER_IFMA_INLINE void from_scalars(const F* in, const Constants<kLimbs52<F::Base::N>>& c,
                                    Lanes2<kLimbs52<F::Base::N>>& a) {
  typename F::Base c0[8], c1[8];
  for (size_t j = 0; j < 8; ++j) c0[j] = in[j].c0, c1[j] = in[j].c1;
  from_scalars(c0, c, a.c0);
  from_scalars(c1, c, a.c1);
}

#endif  // PACER_HAVE_IFMA_CODE

}  // namespace ifma
}  // namespace pacer::math

#pragma once
// The MSM's batch of affine bucket additions on AVX-512 IFMA: eight additions side by side, one
// per 64-bit lane, field elements as 52-bit limbs (5 for BN254's Fq, 8 for BLS12-381's). The scalar Montgomery product is bound by
// the carry-flag chain (~68 adc/adox per product, about one per cycle on Zen 4); vpmadd52 has no
// flags, and eight lanes of it cost ~4.4 ns per product against ~20 ns on the same core.
//
// Values stay the integers the scalar code uses (Montgomery form with R = 2^(64N), below 2p inside,
// below p when stored), so nothing is converted but the limb layout: an L-limb Montgomery product
// divides by 2^(52L), so one factor enters shifted left by s = 52L - 64N bits (4 for BN254, 32 for
// BLS12-381), and a·2^s·b < 2^(s+2)·p^2 < p·2^(52L) keeps the product below 2p while p < 2^(64N-2).
//
// Chosen at run time (g_use_ifma_msm); the scalar flush stays the fallback and the oracle: the MSM
// tests run both.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "pacer/math/ec.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PACER_HAVE_IFMA_CODE 1
#endif

namespace pacer::math {

// True when this CPU has AVX-512F and IFMA and PACER_NO_IFMA is unset (benchmarks compare the paths).
inline bool detect_ifma() {
#if defined(PACER_HAVE_IFMA_CODE)
  __builtin_cpu_init();
  const char* off = std::getenv("PACER_NO_IFMA");
  if (off && *off && std::strcmp(off, "0") != 0) return false;
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
  return false;
#endif
}
// Tests switch it off to run the scalar flush.
inline bool g_use_ifma_msm = detect_ifma();

namespace ifma {

// Groups whose batched additions have an IFMA path: coordinates in an Fq of 4 or 6 limbs below
// 2^(64N-2), or in Fq2 over one (G1 and G2 of both curves).
template <class Group>
constexpr bool supported() {
#if defined(PACER_HAVE_IFMA_CODE)
  using F = typename Group::Field;
  if constexpr (requires { typename F::Base; }) return (F::Base::N == 4 || F::Base::N == 6) && (F::Base::P[F::Base::N - 1] >> 62) == 0;
  else return (F::N == 4 || F::N == 6) && (F::P[F::N - 1] >> 62) == 0;
#endif
  return false;
}

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
// b·2^s, s = 52L - 64N (4 for BN254, 32 for BLS12-381).
template <size_t N>
PACER_IFMA_INLINE Lanes<kLimbs52<N>> mul(const Lanes<kLimbs52<N>>& a, const Lanes<kLimbs52<N>>& b,
                                         const Constants<kLimbs52<N>>& c) {
  constexpr size_t L = kLimbs52<N>;
  constexpr unsigned s = unsigned(52 * L - 64 * N);
  static_assert(s > 0 && s < 52);
  __m512i bs[L];
  bs[0] = _mm512_and_si512(shl(b.l[0], s), c.mask);
  for (size_t i = 1; i < L; ++i) bs[i] = _mm512_and_si512(_mm512_or_si512(shl(b.l[i], s), shr(b.l[i - 1], 52 - s)), c.mask);
  const __m512i zero = _mm512_setzero_si512();
  __m512i t[2 * L];
  for (auto& x : t) x = zero;
  // Every column collects at most 4L 52-bit halves plus carries: far below 2^64.
  for (size_t i = 0; i < L; ++i)
    for (size_t j = 0; j < L; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[j], bs[i]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[j], bs[i]);
    }
  for (size_t i = 0; i < L; ++i) {
    const __m512i m = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[i], c.pinv), c.mask);
    for (size_t j = 0; j < L; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, c.p[j]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, c.p[j]);
    }
    t[i + 1] = _mm512_add_epi64(t[i + 1], shr(t[i], 52));  // low 52 bits are zero now
  }
  Lanes<L> r;
  for (size_t i = 0; i < L; ++i) r.l[i] = t[L + i];
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
PACER_IFMA_INLINE Lanes2<L> sub(const Lanes2<L>& a, const Lanes2<L>& b, const Constants<L>& c) {
  return {sub(a.c0, b.c0, c), sub(a.c1, b.c1, c)};
}
template <size_t L>
PACER_IFMA_INLINE Lanes2<L> canonical(const Lanes2<L>& a, const Constants<L>& c) {
  return {canonical(a.c0, c), canonical(a.c1, c)};
}
// Schoolbook, four products: Karatsuba's sums would leave the [0, 2p) bound of mul's factors.
template <size_t N>
PACER_IFMA_INLINE Lanes2<kLimbs52<N>> mul(const Lanes2<kLimbs52<N>>& a, const Lanes2<kLimbs52<N>>& b,
                                          const Constants<kLimbs52<N>>& c) {
  return {sub(mul<N>(a.c0, b.c0, c), mul<N>(a.c1, b.c1, c), c), add(mul<N>(a.c0, b.c1, c), mul<N>(a.c1, b.c0, c), c)};
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

// The coordinate at byte `offset` of the eight points at byte offsets `at` from `base`.
template <size_t N>
PACER_IFMA_INLINE void gather(const std::byte* base, __m512i at, __mmask8 lanes, size_t offset,
                              const Constants<kLimbs52<N>>& c, Lanes<kLimbs52<N>>& out) {
  __m512i v[N];
  for (size_t k = 0; k < N; ++k)
    v[k] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, at, base + offset + 8 * k, 1);
  out = from_64<N>(v, c.mask);
}
template <size_t N>
PACER_IFMA_INLINE void gather(const std::byte* base, __m512i at, __mmask8 lanes, size_t offset,
                              const Constants<kLimbs52<N>>& c, Lanes2<kLimbs52<N>>& out) {
  gather<N>(base, at, lanes, offset, c, out.c0);
  gather<N>(base, at, lanes, offset + 8 * N, c, out.c1);
}

template <size_t N>
PACER_IFMA_INLINE void scatter(std::byte* base, __m512i at, __mmask8 lanes, size_t offset, const Lanes<kLimbs52<N>>& a) {
  __m512i v[N];
  to_64<N>(a, v);
  for (size_t k = 0; k < N; ++k) _mm512_mask_i64scatter_epi64(base + offset + 8 * k, lanes, at, v[k], 1);
}
template <size_t N>
PACER_IFMA_INLINE void scatter(std::byte* base, __m512i at, __mmask8 lanes, size_t offset, const Lanes2<kLimbs52<N>>& a) {
  scatter<N>(base, at, lanes, offset, a.c0);
  scatter<N>(base, at, lanes, offset + 8 * N, a.c1);
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

// The lanes of group g that hold one of the n additions.
inline __mmask8 group_lanes(size_t g, size_t n) { return 8 * g + 8 <= n ? 0xff : __mmask8((1u << (n - 8 * g)) - 1); }

// Byte offsets of group g's buckets; unused lanes point at bucket 0 and are masked off.
template <size_t kPointBytes>
PACER_IFMA_INLINE __m512i bucket_offsets(const uint32_t* bucket_of, size_t g, size_t n) {
  alignas(64) uint64_t at[8] = {};
  for (size_t j = 0, e = std::min<size_t>(8, n - 8 * g); j < e; ++j) at[j] = uint64_t(bucket_of[8 * g + j]) * kPointBytes;
  return _mm512_load_si512(at);
}

// Fq itself, or the Fq under Fq2.
template <class F>
struct BaseField {
  using type = F;
};
template <class F>
  requires requires { typename F::Base; }
struct BaseField<F> {
  using type = typename F::Base;
};

template <class Group>
using BaseOf = typename BaseField<typename Group::Field>::type;
template <class Group>
inline constexpr bool kExtension = !std::is_same_v<BaseOf<Group>, typename Group::Field>;
template <class Group>
using LanesOf = std::conditional_t<kExtension<Group>, Lanes2<kLimbs52<BaseOf<Group>::N>>, Lanes<kLimbs52<BaseOf<Group>::N>>>;

// Scratch words per group of eight: the prefix product and the denominator.
template <class Group>
constexpr size_t scratch_words() { return 2 * 8 * kLimbs52<BaseOf<Group>::N> * (kExtension<Group> ? 2 : 1); }

// bucket[bucket_of[k]] += point[k] for k < n, buckets distinct, as the scalar flush does it:
// prefix products of the denominators (one chain per lane), one inversion for all eight chains,
// then the additions backwards. A zero denominator (equal x: doubling or cancellation) is left out
// of the chain and its index returned in `equal_x` for the scalar code; returns how many.
// `scratch` holds scratch_words<Group>() words per group of eight.
template <class Group>
[[gnu::target("avx512f,avx512ifma")]] size_t add_batch(Affine<Group>* buckets, const uint32_t* bucket_of,
                                                     const Affine<Group>* points, size_t n, uint64_t* scratch,
                                                     uint32_t* equal_x) {
  using F = typename Group::Field;
  using V = LanesOf<Group>;
  using Base = BaseOf<Group>;
  constexpr size_t N = Base::N;
  constexpr size_t kCoord = sizeof(F), kPoint = sizeof(Affine<Group>), kWords = scratch_words<Group>();
  static_assert(kPoint == 2 * kCoord && sizeof(Base) == 8 * N, "affine points are two packed coordinates");
  const auto c = make_constants<Base>();
  const size_t groups = (n + 7) / 8;
  const __m512i point_step = _mm512_setr_epi64(0, kPoint, 2 * kPoint, 3 * kPoint, 4 * kPoint, 5 * kPoint, 6 * kPoint, 7 * kPoint);
  const auto* bucket_bytes = reinterpret_cast<const std::byte*>(buckets);
  const auto* point_bytes = reinterpret_cast<const std::byte*>(points);

  size_t equal = 0;
  V acc, den, bx, px;
  set_one(acc, 0xff, c);
  for (size_t g = 0; g < groups; ++g) {
    const __mmask8 lanes = group_lanes(g, n);
    const __m512i b_at = bucket_offsets<kPoint>(bucket_of, g, n);
    gather<N>(bucket_bytes, b_at, lanes, 0, c, bx);
    gather<N>(point_bytes + 8 * kPoint * g, point_step, lanes, 0, c, px);
    den = sub(px, bx, c);  // canonical inputs: zero exactly when the x are equal
    const __mmask8 zero = zero_lanes(den) & lanes;
    set_one(den, __mmask8(zero | ~lanes), c);  // out of the chain: multiplies by one instead
    for (unsigned j = 0; j < 8; ++j)
      if (zero >> j & 1) equal_x[equal++] = uint32_t(8 * g + j);
    store(scratch + kWords * g, acc);
    store(scratch + kWords * g + kWords / 2, den);
    acc = mul<N>(acc, den, c);
  }

  // One inversion for the eight lane products, then each lane's own inverse.
  F lane[8], prefix[8];
  to_scalars(canonical(acc, c), lane);
  F total = F::one();
  for (size_t j = 0; j < 8; ++j) {
    prefix[j] = total;
    total = total * lane[j];
  }
  F inv = total.inv();
  for (size_t j = 8; j-- > 0;) {
    const F lane_inv = inv * prefix[j];
    inv = inv * lane[j];
    lane[j] = lane_inv;
  }
  V inv_lanes, saved, by, py;
  from_scalars(lane, c, inv_lanes);

  size_t unwritten = equal;  // equal_x is ascending: walk it down with g
  auto* out = reinterpret_cast<std::byte*>(buckets);
  for (size_t g = groups; g-- > 0;) {
    const __mmask8 lanes = group_lanes(g, n);
    load(scratch + kWords * g, saved);
    const V den_inv = mul<N>(inv_lanes, saved, c);
    load(scratch + kWords * g + kWords / 2, saved);
    inv_lanes = mul<N>(inv_lanes, saved, c);
    const __m512i b_at = bucket_offsets<kPoint>(bucket_of, g, n);
    gather<N>(bucket_bytes, b_at, lanes, 0, c, bx);
    gather<N>(bucket_bytes, b_at, lanes, kCoord, c, by);
    gather<N>(point_bytes + 8 * kPoint * g, point_step, lanes, 0, c, px);
    gather<N>(point_bytes + 8 * kPoint * g, point_step, lanes, kCoord, c, py);
    const V lambda = mul<N>(sub(py, by, c), den_inv, c);
    const V x3 = canonical(sub(sub(mul<N>(lambda, lambda, c), bx, c), px, c), c);
    const V y3 = canonical(sub(mul<N>(lambda, sub(bx, x3, c), c), by, c), c);
    __mmask8 write = lanes;
    for (; unwritten > 0 && equal_x[unwritten - 1] >= 8 * g; --unwritten)
      write &= __mmask8(~(1u << (equal_x[unwritten - 1] - 8 * g)));
    scatter<N>(out, b_at, write, 0, x3);
    scatter<N>(out, b_at, write, kCoord, y3);
  }
  return equal;
}

#undef PACER_IFMA_INLINE

#endif  // PACER_HAVE_IFMA_CODE

}  // namespace ifma
}  // namespace pacer::math

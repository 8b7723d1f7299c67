#pragma once
// The MSM's batch of affine bucket additions on AVX-512 IFMA: eight additions side by side, one
// per 64-bit lane, field elements as five 52-bit limbs. The scalar Montgomery product is bound by
// the carry-flag chain (~68 adc/adox per product, about one per cycle on Zen 4); vpmadd52 has no
// flags, and eight lanes of it cost ~4.4 ns per product against ~20 ns on the same core.
//
// Values stay the integers the scalar code uses (Montgomery form with R = 2^256, below 2p inside,
// below p when stored), so nothing is converted but the limb layout: a 5-limb Montgomery product
// divides by 2^260, so one factor enters shifted left by 4 bits, and a·16b < 64p^2 < p·2^260 keeps
// the product below 2p while p < 2^254 (BN254's Fq; BLS12-381's 6-limb Fq stays scalar for now).
//
// Chosen at run time (cpu_has_ifma()); the scalar flush stays the fallback and the oracle: the MSM
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

// Groups whose batched additions have an IFMA path: coordinates in a 4-limb Fq below 2^254 or
// in Fq2 over one (G1 and G2 of BN254).
template <class Group>
constexpr bool supported() {
#if defined(PACER_HAVE_IFMA_CODE)
  using F = typename Group::Field;
  if constexpr (requires { typename F::Base; }) return F::Base::N == 4 && (F::Base::P[3] >> 62) == 0;
  else return F::N == 4 && (F::P[3] >> 62) == 0;
#endif
  return false;
}

#if defined(PACER_HAVE_IFMA_CODE)

#define PACER_IFMA_INLINE [[gnu::target("avx512f,avx512ifma"), gnu::always_inline]] inline

// Eight field elements, limb-major: l[i] holds limb i (52 bits) of every lane.
struct Lanes {
  __m512i l[5];
};

struct Constants {
  __m512i p[5], two_p[5], one[5], pinv, mask;
};

// Shifts through the zero-masked forms: GCC 12's plain ones start from _mm512_undefined_epi32(),
// which -Wuninitialized flags once inlined.
PACER_IFMA_INLINE __m512i shl(__m512i a, unsigned n) { return _mm512_maskz_slli_epi64(0xff, a, n); }
PACER_IFMA_INLINE __m512i shr(__m512i a, unsigned n) { return _mm512_maskz_srli_epi64(0xff, a, n); }
PACER_IFMA_INLINE __m512i sar(__m512i a, unsigned n) { return _mm512_maskz_srai_epi64(0xff, a, n); }

PACER_IFMA_INLINE __m512i broadcast(uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }

// 4 x 64-bit limbs (v[k] holds limb k of every lane) into 5 x 52-bit limbs, and back.
PACER_IFMA_INLINE Lanes from_64(const __m512i v[4], __m512i mask) {
  Lanes r;
  r.l[0] = _mm512_and_si512(v[0], mask);
  r.l[1] = _mm512_and_si512(_mm512_or_si512(shr(v[0], 52), shl(v[1], 12)), mask);
  r.l[2] = _mm512_and_si512(_mm512_or_si512(shr(v[1], 40), shl(v[2], 24)), mask);
  r.l[3] = _mm512_and_si512(_mm512_or_si512(shr(v[2], 28), shl(v[3], 36)), mask);
  r.l[4] = shr(v[3], 16);
  return r;
}

PACER_IFMA_INLINE void to_64(const Lanes& a, __m512i v[4]) {
  v[0] = _mm512_or_si512(a.l[0], shl(a.l[1], 52));
  v[1] = _mm512_or_si512(shr(a.l[1], 12), shl(a.l[2], 40));
  v[2] = _mm512_or_si512(shr(a.l[2], 24), shl(a.l[3], 28));
  v[3] = _mm512_or_si512(shr(a.l[3], 36), shl(a.l[4], 16));
}

template <class F>
[[gnu::target("avx512f,avx512ifma")]] inline Constants make_constants() {
  Constants c;
  c.mask = broadcast((uint64_t(1) << 52) - 1);
  __m512i p64[4], two_p64[4], one64[4];
  Limbs<4> two_p = F::P;
  limbs_add(two_p, F::P);  // < 2^255: no carry out
  for (size_t k = 0; k < 4; ++k) {
    p64[k] = broadcast(F::P[k]);
    two_p64[k] = broadcast(two_p[k]);
    one64[k] = broadcast(F::R1[k]);
  }
  const Lanes p = from_64(p64, c.mask), tp = from_64(two_p64, c.mask), one = from_64(one64, c.mask);
  for (size_t i = 0; i < 5; ++i) c.p[i] = p.l[i], c.two_p[i] = tp.l[i], c.one[i] = one.l[i];
  c.pinv = broadcast(F::INV & ((uint64_t(1) << 52) - 1));  // -p^-1 mod 2^52
  return c;
}

// Carries signed limbs (each |limb| < 2^63) into 52-bit ones; the top limb keeps the sign.
PACER_IFMA_INLINE void normalize(Lanes& a, __m512i mask) {
  for (size_t i = 0; i < 4; ++i) {
    a.l[i + 1] = _mm512_add_epi64(a.l[i + 1], sar(a.l[i], 52));
    a.l[i] = _mm512_and_si512(a.l[i], mask);
  }
}

// a - b, plus 2p where negative: [0, 2p) for a, b < 2p.
PACER_IFMA_INLINE Lanes sub(const Lanes& a, const Lanes& b, const Constants& c) {
  Lanes d;
  for (size_t i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(a.l[i], b.l[i]);
  normalize(d, c.mask);
  const __mmask8 negative = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
  for (size_t i = 0; i < 5; ++i) d.l[i] = _mm512_mask_add_epi64(d.l[i], negative, d.l[i], c.two_p[i]);
  normalize(d, c.mask);
  return d;
}

// a - m where that is not negative, else a: [0, 2p) to [0, p) with m = p.
PACER_IFMA_INLINE Lanes subtract_if_at_least(const Lanes& a, const __m512i m[5], __m512i mask) {
  Lanes d;
  for (size_t i = 0; i < 5; ++i) d.l[i] = _mm512_sub_epi64(a.l[i], m[i]);
  normalize(d, mask);
  const __mmask8 keep = _mm512_cmplt_epi64_mask(d.l[4], _mm512_setzero_si512());
  for (size_t i = 0; i < 5; ++i) d.l[i] = _mm512_mask_mov_epi64(d.l[i], keep, a.l[i]);
  return d;
}

PACER_IFMA_INLINE Lanes canonical(const Lanes& a, const Constants& c) { return subtract_if_at_least(a, c.p, c.mask); }

// a·b·2^-256 mod p, in [0, 2p), for a, b < 2p: the 2^-260 Montgomery product of a and 16b.
PACER_IFMA_INLINE Lanes mul(const Lanes& a, const Lanes& b, const Constants& c) {
  __m512i b16[5];
  b16[0] = _mm512_and_si512(shl(b.l[0], 4), c.mask);
  for (size_t i = 1; i < 5; ++i)
    b16[i] = _mm512_and_si512(_mm512_or_si512(shl(b.l[i], 4), shr(b.l[i - 1], 48)), c.mask);
  const __m512i zero = _mm512_setzero_si512();
  __m512i t[10];
  for (auto& x : t) x = zero;
  // Every column collects at most ten 52-bit halves plus carries: far below 2^64.
  for (size_t i = 0; i < 5; ++i)
    for (size_t j = 0; j < 5; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[j], b16[i]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[j], b16[i]);
    }
  for (size_t i = 0; i < 5; ++i) {
    const __m512i m = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[i], c.pinv), c.mask);
    for (size_t j = 0; j < 5; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, c.p[j]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, c.p[j]);
    }
    t[i + 1] = _mm512_add_epi64(t[i + 1], shr(t[i], 52));  // low 52 bits are zero now
  }
  Lanes r;
  for (size_t i = 0; i < 5; ++i) r.l[i] = t[5 + i];
  for (size_t i = 0; i < 4; ++i) {
    r.l[i + 1] = _mm512_add_epi64(r.l[i + 1], shr(r.l[i], 52));
    r.l[i] = _mm512_and_si512(r.l[i], c.mask);
  }
  return r;
}

// Eight Fq2 elements c0 + c1·u (u^2 = -1).
struct Lanes2 {
  Lanes c0, c1;
};

// a + b, less 2p where that is at least 2p: [0, 2p) for a, b < 2p.
PACER_IFMA_INLINE Lanes add(const Lanes& a, const Lanes& b, const Constants& c) {
  Lanes s;
  for (size_t i = 0; i < 5; ++i) s.l[i] = _mm512_add_epi64(a.l[i], b.l[i]);
  normalize(s, c.mask);
  return subtract_if_at_least(s, c.two_p, c.mask);
}

PACER_IFMA_INLINE Lanes2 sub(const Lanes2& a, const Lanes2& b, const Constants& c) {
  return {sub(a.c0, b.c0, c), sub(a.c1, b.c1, c)};
}
PACER_IFMA_INLINE Lanes2 canonical(const Lanes2& a, const Constants& c) { return {canonical(a.c0, c), canonical(a.c1, c)}; }
// Schoolbook, four products: Karatsuba's sums would leave the [0, 2p) bound of mul's factors.
PACER_IFMA_INLINE Lanes2 mul(const Lanes2& a, const Lanes2& b, const Constants& c) {
  return {sub(mul(a.c0, b.c0, c), mul(a.c1, b.c1, c), c), add(mul(a.c0, b.c1, c), mul(a.c1, b.c0, c), c)};
}

PACER_IFMA_INLINE __mmask8 zero_lanes(const Lanes& a) {
  __mmask8 zero = 0xff;
  for (size_t i = 0; i < 5; ++i) zero &= _mm512_cmpeq_epi64_mask(a.l[i], _mm512_setzero_si512());
  return zero;
}
PACER_IFMA_INLINE __mmask8 zero_lanes(const Lanes2& a) { return zero_lanes(a.c0) & zero_lanes(a.c1); }

// Lanes in `m` become the field's one (R mod p; for Fq2, 1 + 0·u).
PACER_IFMA_INLINE void set_one(Lanes& a, __mmask8 m, const Constants& c) {
  for (size_t i = 0; i < 5; ++i) a.l[i] = _mm512_mask_mov_epi64(a.l[i], m, c.one[i]);
}
PACER_IFMA_INLINE void set_one(Lanes2& a, __mmask8 m, const Constants& c) {
  set_one(a.c0, m, c);
  for (size_t i = 0; i < 5; ++i) a.c1.l[i] = _mm512_mask_mov_epi64(a.c1.l[i], m, _mm512_setzero_si512());
}

// The coordinate at byte `offset` of the eight points at byte offsets `at` from `base`.
PACER_IFMA_INLINE void gather(const std::byte* base, __m512i at, __mmask8 lanes, size_t offset, const Constants& c,
                              Lanes& out) {
  __m512i v[4];
  for (size_t k = 0; k < 4; ++k)
    v[k] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, at, base + offset + 8 * k, 1);
  out = from_64(v, c.mask);
}
PACER_IFMA_INLINE void gather(const std::byte* base, __m512i at, __mmask8 lanes, size_t offset, const Constants& c,
                              Lanes2& out) {
  gather(base, at, lanes, offset, c, out.c0);
  gather(base, at, lanes, offset + 32, c, out.c1);
}

PACER_IFMA_INLINE void scatter(std::byte* base, __m512i at, __mmask8 lanes, size_t offset, const Lanes& a) {
  __m512i v[4];
  to_64(a, v);
  for (size_t k = 0; k < 4; ++k) _mm512_mask_i64scatter_epi64(base + offset + 8 * k, lanes, at, v[k], 1);
}
PACER_IFMA_INLINE void scatter(std::byte* base, __m512i at, __mmask8 lanes, size_t offset, const Lanes2& a) {
  scatter(base, at, lanes, offset, a.c0);
  scatter(base, at, lanes, offset + 32, a.c1);
}

// Scratch: 40 words per Lanes.
PACER_IFMA_INLINE void store(uint64_t* out, const Lanes& a) {
  for (size_t i = 0; i < 5; ++i) _mm512_storeu_si512(out + 8 * i, a.l[i]);
}
PACER_IFMA_INLINE void store(uint64_t* out, const Lanes2& a) {
  store(out, a.c0);
  store(out + 40, a.c1);
}
PACER_IFMA_INLINE void load(const uint64_t* in, Lanes& a) {
  for (size_t i = 0; i < 5; ++i) a.l[i] = _mm512_loadu_si512(in + 8 * i);
}
PACER_IFMA_INLINE void load(const uint64_t* in, Lanes2& a) {
  load(in, a.c0);
  load(in + 40, a.c1);
}

// Canonical lanes to and from eight scalar field elements.
template <class F>
PACER_IFMA_INLINE void to_scalars(const Lanes& a, F* out) {
  __m512i v[4];
  to_64(a, v);
  alignas(64) uint64_t limbs[4][8];
  for (size_t k = 0; k < 4; ++k) _mm512_store_si512(limbs[k], v[k]);
  for (size_t j = 0; j < 8; ++j)
    for (size_t k = 0; k < 4; ++k) out[j].v[k] = limbs[k][j];
}
template <class F>
PACER_IFMA_INLINE void to_scalars(const Lanes2& a, F* out) {
  typename F::Base c0[8], c1[8];
  to_scalars(a.c0, c0);
  to_scalars(a.c1, c1);
  for (size_t j = 0; j < 8; ++j) out[j] = F(c0[j], c1[j]);
}
template <class F>
PACER_IFMA_INLINE void from_scalars(const F* in, const Constants& c, Lanes& a) {
  alignas(64) uint64_t limbs[4][8];
  for (size_t j = 0; j < 8; ++j)
    for (size_t k = 0; k < 4; ++k) limbs[k][j] = in[j].v[k];
  __m512i v[4];
  for (size_t k = 0; k < 4; ++k) v[k] = _mm512_load_si512(limbs[k]);
  a = from_64(v, c.mask);
}
template <class F>
PACER_IFMA_INLINE void from_scalars(const F* in, const Constants& c, Lanes2& a) {
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
  alignas(32) uint32_t idx[8] = {};
  std::memcpy(idx, bucket_of + 8 * g, sizeof(uint32_t) * std::min<size_t>(8, n - 8 * g));
  const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(idx));
  static_assert(std::has_single_bit(kPointBytes));
  return shl(_mm512_maskz_cvtepu32_epi64(0xff, v), unsigned(std::countr_zero(kPointBytes)));
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
using LanesOf = std::conditional_t<requires { typename Group::Field::Base; }, Lanes2, Lanes>;

template <class Group>
constexpr size_t scratch_words() { return std::is_same_v<LanesOf<Group>, Lanes2> ? 160 : 80; }

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
  using Base = typename BaseField<F>::type;
  constexpr size_t kCoord = sizeof(F), kPoint = sizeof(Affine<Group>), kWords = scratch_words<Group>();
  static_assert(kPoint == 2 * kCoord && sizeof(Base) == 32, "affine points are two coordinates of 4-limb parts");
  const Constants c = make_constants<Base>();
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
    gather(bucket_bytes, b_at, lanes, 0, c, bx);
    gather(point_bytes + 8 * kPoint * g, point_step, lanes, 0, c, px);
    den = sub(px, bx, c);  // canonical inputs: zero exactly when the x are equal
    const __mmask8 zero = zero_lanes(den) & lanes;
    set_one(den, __mmask8(zero | ~lanes), c);  // out of the chain: multiplies by one instead
    for (unsigned j = 0; j < 8; ++j)
      if (zero >> j & 1) equal_x[equal++] = uint32_t(8 * g + j);
    store(scratch + kWords * g, acc);
    store(scratch + kWords * g + kWords / 2, den);
    acc = mul(acc, den, c);
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
    const V den_inv = mul(inv_lanes, saved, c);
    load(scratch + kWords * g + kWords / 2, saved);
    inv_lanes = mul(inv_lanes, saved, c);
    const __m512i b_at = bucket_offsets<kPoint>(bucket_of, g, n);
    gather(bucket_bytes, b_at, lanes, 0, c, bx);
    gather(bucket_bytes, b_at, lanes, kCoord, c, by);
    gather(point_bytes + 8 * kPoint * g, point_step, lanes, 0, c, px);
    gather(point_bytes + 8 * kPoint * g, point_step, lanes, kCoord, c, py);
    const V lambda = mul(sub(py, by, c), den_inv, c);
    const V x3 = canonical(sub(sub(mul(lambda, lambda, c), bx, c), px, c), c);
    const V y3 = canonical(sub(mul(lambda, sub(bx, x3, c), c), by, c), c);
    __mmask8 write = lanes;
    for (; unwritten > 0 && equal_x[unwritten - 1] >= 8 * g; --unwritten)
      write &= __mmask8(~(1u << (equal_x[unwritten - 1] - 8 * g)));
    scatter(out, b_at, write, 0, x3);
    scatter(out, b_at, write, kCoord, y3);
  }
  return equal;
}

#undef PACER_IFMA_INLINE

#endif  // PACER_HAVE_IFMA_CODE

}  // namespace ifma
}  // namespace pacer::math

#pragma once
// The MSM's batch of affine bucket additions on AVX-512 IFMA (field lanes: ifma_field.hpp): eight
// additions side by side, one per lane. Coordinates are below p when stored and below 2p inside,
// so the product bound needs p < 2^(64N-2) (true of both curves' Fq).
//
// Chosen at run time (g_use_ifma_msm); the scalar flush stays the fallback and the oracle: the MSM
// tests run both.
#include "pacer/math/ec.hpp"
#include "pacer/math/ifma_field.hpp"

namespace pacer::math {

// The IFMA point code (bucket additions, the key-point check); tests switch it off to run the
// scalar code.
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

// Bit j (j < count <= 8): points[j] is the identity or on the curve (y^2 = x^3 + b). Only
// meaningful for canonical coordinates (a lane with others gives some bit: callers reject it anyway).
template <class Group>
[[gnu::target("avx512f,avx512ifma")]] __mmask8 on_curve_lanes(const Affine<Group>* points, size_t count) {
  using F = typename Group::Field;
  using V = LanesOf<Group>;
  constexpr size_t N = BaseOf<Group>::N, kPoint = sizeof(Affine<Group>);
  const auto c = make_constants<BaseOf<Group>>();
  const __mmask8 lanes = group_lanes(0, count);
  const __m512i step = _mm512_setr_epi64(0, kPoint, 2 * kPoint, 3 * kPoint, 4 * kPoint, 5 * kPoint, 6 * kPoint, 7 * kPoint);
  const auto* bytes = reinterpret_cast<const std::byte*>(points);
  V x, y, b;
  gather<N>(bytes, step, lanes, 0, c, x);
  gather<N>(bytes, step, lanes, sizeof(F), c, y);
  F b8[8];
  for (auto& e : b8) e = Group::b();
  from_scalars(b8, c, b);
  const V rhs = add(mul<N>(mul<N>(x, x, c), x, c), b, c);
  const __mmask8 on = zero_lanes(canonical(sub(mul<N>(y, y, c), rhs, c), c));
  const __mmask8 identity = zero_lanes(x) & zero_lanes(y);
  return __mmask8((on | identity) & lanes);
}

#endif  // PACER_HAVE_IFMA_CODE

}  // namespace ifma
}  // namespace pacer::math

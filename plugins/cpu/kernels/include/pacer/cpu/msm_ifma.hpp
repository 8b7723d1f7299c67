#pragma once
// The MSM's batch of affine bucket additions on AVX-512 IFMA (field lanes: ifma_field.hpp): eight
// additions side by side, one per lane. Coordinates are below p when stored and below 2p inside,
// so the product bound needs p < 2^(64N-2) (true of both curves' Fq).
//
// Chosen per call (CpuKernels::ifma); the scalar flush stays the fallback and the oracle: the MSM
// tests run both.
#include "pacer/cpu/ifma_field.hpp"
#include "pacer/math/ec.hpp"

namespace pacer::math {

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

// The lanes of group g that hold one of the n additions.
inline __mmask8 group_lanes(size_t g, size_t n) { return 8 * g + 8 <= n ? 0xff : __mmask8((1u << (n - 8 * g)) - 1); }

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

// What the lanes' inversion chain runs over, as InverseChain does for the scalar batch: the
// denominator itself, or over Fq2 its norm d0^2 + d1^2 in Fq (1/d = conj(d) / N(d); the norm is zero
// only for d = 0, -1 not being a square in Fq). The chain and its inverses then cost one base
// product per step instead of three.
template <size_t N>
PACER_IFMA_INLINE Lanes<kLimbs52<N>> chain_link(const Lanes<kLimbs52<N>>& d, const Constants<kLimbs52<N>>&) {
  return d;
}
template <size_t N>
PACER_IFMA_INLINE Lanes<kLimbs52<N>> chain_link(const Lanes2<kLimbs52<N>>& d, const Constants<kLimbs52<N>>& c) {
  return add(mul<N>(d.c0, d.c0, c), mul<N>(d.c1, d.c1, c), c);
}
// 1/d from the inverse of its chain link.
template <size_t N>
PACER_IFMA_INLINE Lanes<kLimbs52<N>> inverse_from_link(const Lanes<kLimbs52<N>>&, const Lanes<kLimbs52<N>>& link_inv,
                                                       const Constants<kLimbs52<N>>&) {
  return link_inv;
}
template <size_t N>
PACER_IFMA_INLINE Lanes2<kLimbs52<N>> inverse_from_link(const Lanes2<kLimbs52<N>>& d,
                                                        const Lanes<kLimbs52<N>>& norm_inv,
                                                        const Constants<kLimbs52<N>>& c) {
  return {mul<N>(d.c0, norm_inv, c), neg(mul<N>(d.c1, norm_inv, c), c)};
}

// 64-bit words per Lanes/Lanes2 of the group's field and per Lanes of its base field, and scratch
// words per group of eight: the prefix product and the chain link (base field), the denominator
// where it is not its own link (Fq2), and both points' coordinates (pass 2 reads them back instead
// of loading and converting the points again).
template <class Group>
constexpr size_t lane_words() { return 8 * kLimbs52<BaseOf<Group>::N> * (kExtension<Group> ? 2 : 1); }
template <class Group>
constexpr size_t chain_words() { return 8 * kLimbs52<BaseOf<Group>::N>; }
template <class Group>
constexpr size_t scratch_words() { return 2 * chain_words<Group>() + (kExtension<Group> ? 5 : 4) * lane_words<Group>(); }

// Words [0, W) of eight points (at[j]; lanes outside `lanes` read nothing and hold zeros),
// word-major: v[w] lane j is word w of point j. Rows of eight words, transposed: cheaper than
// gathers, and they take whole points (both coordinates) from the lines they share.
template <size_t W>
PACER_IFMA_INLINE void load_words(const std::byte* const at[8], __mmask8 lanes, __m512i v[W]) {
  for (size_t k = 0; k < W; k += 8) {
    const __mmask8 words = W - k >= 8 ? 0xff : __mmask8((1u << (W - k)) - 1);
    __m512i r[8];
    for (size_t j = 0; j < 8; ++j) r[j] = _mm512_maskz_loadu_epi64((lanes >> j & 1) ? words : 0, at[j] + 8 * k);
    transpose8(r);
    for (size_t w = 0; w < 8 && k + w < W; ++w) v[k + w] = r[w];
  }
}
template <size_t W>
PACER_IFMA_INLINE void store_words(std::byte* const at[8], __mmask8 lanes, const __m512i v[W]) {
  for (size_t k = 0; k < W; k += 8) {
    const __mmask8 words = W - k >= 8 ? 0xff : __mmask8((1u << (W - k)) - 1);
    __m512i r[8];
    for (size_t w = 0; w < 8; ++w) r[w] = k + w < W ? v[k + w] : _mm512_setzero_si512();
    transpose8(r);
    for (size_t j = 0; j < 8; ++j) _mm512_mask_storeu_epi64(at[j] + 8 * k, (lanes >> j & 1) ? words : 0, r[j]);
  }
}

// A coordinate's 64-bit words (word-major) to lanes, and back.
template <size_t N>
PACER_IFMA_INLINE void from_words(const __m512i* v, const Constants<kLimbs52<N>>& c, Lanes<kLimbs52<N>>& out) {
  out = from_64<N>(v, c.mask);
}
template <size_t N>
PACER_IFMA_INLINE void from_words(const __m512i* v, const Constants<kLimbs52<N>>& c, Lanes2<kLimbs52<N>>& out) {
  out.c0 = from_64<N>(v, c.mask);
  out.c1 = from_64<N>(v + N, c.mask);
}
template <size_t N>
PACER_IFMA_INLINE void to_words(const Lanes<kLimbs52<N>>& a, __m512i* v) { to_64<N>(a, v); }
template <size_t N>
PACER_IFMA_INLINE void to_words(const Lanes2<kLimbs52<N>>& a, __m512i* v) {
  to_64<N>(a.c0, v);
  to_64<N>(a.c1, v + N);
}

// Lanes in m become -a (a canonical: p - a, and 0 stays 0).
template <size_t L>
PACER_IFMA_INLINE void negate_lanes(Lanes<L>& a, __mmask8 m, const Constants<L>& c) {
  const Lanes<L> minus = canonical(neg(a, c), c);
  for (size_t i = 0; i < L; ++i) a.l[i] = _mm512_mask_mov_epi64(a.l[i], m, minus.l[i]);
}
template <size_t L>
PACER_IFMA_INLINE void negate_lanes(Lanes2<L>& a, __mmask8 m, const Constants<L>& c) {
  negate_lanes(a.c0, m, c);
  negate_lanes(a.c1, m, c);
}

// bucket[bucket_of[k]] += ±*points[k] for k < n (minus where negate[k]), buckets distinct, as the
// scalar flush does it:
// prefix products of the denominators' chain links (one chain per lane), one inversion for all
// eight chains, then the additions backwards. A zero denominator (equal x: doubling or
// cancellation) is left out of the chain and its index returned in `equal_x` for the scalar code;
// returns how many. `scratch` holds scratch_words<Group>() words per group of eight.
template <class Group>
[[gnu::target("avx512f,avx512ifma")]] size_t add_batch(Affine<Group>* buckets, const uint32_t* bucket_of,
                                                     const Affine<Group>* const* points, const uint8_t* negate,
                                                     size_t n, uint64_t* scratch, uint32_t* equal_x) {
  using F = typename Group::Field;
  using V = LanesOf<Group>;
  using Base = BaseOf<Group>;
  using Chain = Lanes<kLimbs52<Base::N>>;
  constexpr size_t N = Base::N;
  constexpr size_t kPoint = sizeof(Affine<Group>), kWords = kPoint / 8, kCoordWords = kWords / 2;
  constexpr size_t kLane = lane_words<Group>(), kChain = chain_words<Group>(), kScratch = scratch_words<Group>();
  // Scratch of one group: prefix, link, [den,] bx, by, px, py.
  constexpr size_t kCoords = 2 * kChain + (kExtension<Group> ? kLane : 0);
  static_assert(kPoint == 2 * sizeof(F) && sizeof(Base) == 8 * N, "affine points are two packed coordinates");
  static_assert(kCoords + 4 * kLane == kScratch);
  const auto c = make_constants<Base>();
  const size_t groups = (n + 7) / 8;
  auto* bucket_bytes = reinterpret_cast<std::byte*>(buckets);
  // Lanes past n point at the group's first addition and are masked off.
  auto bucket_addresses = [&](size_t g, std::byte* at[8]) {
    for (size_t j = 0; j < 8; ++j) at[j] = bucket_bytes + size_t(bucket_of[8 * g + (8 * g + j < n ? j : 0)]) * kPoint;
  };

  size_t equal = 0;
  V den, bx, by, px, py;
  Chain acc, link;
  set_one(acc, 0xff, c);
  for (size_t g = 0; g < groups; ++g) {
    const __mmask8 lanes = group_lanes(g, n);
    std::byte* b_at[8];
    const std::byte* p_at[8];
    bucket_addresses(g, b_at);
    __mmask8 minus = 0;
    for (size_t j = 0; j < 8; ++j) {
      const size_t k = 8 * g + (8 * g + j < n ? j : 0);
      p_at[j] = reinterpret_cast<const std::byte*>(points[k]);
      minus |= __mmask8((negate[k] & 1) << j);
    }
    __m512i w[kWords];
    load_words<kWords>(b_at, lanes, w);
    from_words<N>(w, c, bx);
    from_words<N>(w + kCoordWords, c, by);
    load_words<kWords>(p_at, lanes, w);
    from_words<N>(w, c, px);
    from_words<N>(w + kCoordWords, c, py);
    negate_lanes(py, minus, c);
    den = sub(px, bx, c);  // canonical inputs: zero exactly when the x are equal
    const __mmask8 zero = zero_lanes(den) & lanes;
    set_one(den, __mmask8(zero | ~lanes), c);  // out of the chain: multiplies by one instead
    for (unsigned j = 0; j < 8; ++j)
      if (zero >> j & 1) equal_x[equal++] = uint32_t(8 * g + j);
    link = chain_link<N>(den, c);
    uint64_t* s = scratch + kScratch * g;
    store(s, acc);
    store(s + kChain, link);
    if constexpr (kExtension<Group>) store(s + 2 * kChain, den);
    store(s + kCoords, bx);
    store(s + kCoords + kLane, by);
    store(s + kCoords + 2 * kLane, px);
    store(s + kCoords + 3 * kLane, py);
    acc = mul<N>(acc, link, c);
  }

  // One inversion for the eight lane products, then each lane's own inverse.
  Base lane[8], prefix[8];
  to_scalars(canonical(acc, c), lane);
  Base total = Base::one();
  for (size_t j = 0; j < 8; ++j) {
    prefix[j] = total;
    total = total * lane[j];
  }
  Base inv = total.inv();
  for (size_t j = 8; j-- > 0;) {
    const Base lane_inv = inv * prefix[j];
    inv = inv * lane[j];
    lane[j] = lane_inv;
  }
  Chain inv_lanes, saved;
  from_scalars(lane, c, inv_lanes);

  size_t unwritten = equal;  // equal_x is ascending: walk it down with g
  for (size_t g = groups; g-- > 0;) {
    const __mmask8 lanes = group_lanes(g, n);
    const uint64_t* s = scratch + kScratch * g;
    load(s, saved);
    const Chain link_inv = mul<N>(inv_lanes, saved, c);
    load(s + kChain, saved);
    inv_lanes = mul<N>(inv_lanes, saved, c);
    if constexpr (kExtension<Group>) load(s + 2 * kChain, den);
    load(s + kCoords, bx);
    load(s + kCoords + kLane, by);
    load(s + kCoords + 2 * kLane, px);
    load(s + kCoords + 3 * kLane, py);
    const V den_inv = inverse_from_link<N>(den, link_inv, c);
    const V lambda = mul<N>(sub(py, by, c), den_inv, c);
    const V x3 = canonical(sub(sub(sqr<N>(lambda, c), bx, c), px, c), c);
    const V y3 = canonical(sub(mul<N>(lambda, sub(bx, x3, c), c), by, c), c);
    __mmask8 write = lanes;
    for (; unwritten > 0 && equal_x[unwritten - 1] >= 8 * g; --unwritten)
      write &= __mmask8(~(1u << (equal_x[unwritten - 1] - 8 * g)));
    std::byte* b_at[8];
    bucket_addresses(g, b_at);
    __m512i w[kWords];
    to_words<N>(x3, w);
    to_words<N>(y3, w + kCoordWords);
    store_words<kWords>(b_at, write, w);
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
  constexpr size_t kWords = kPoint / 8;
  const __mmask8 lanes = group_lanes(0, count);
  const std::byte* at[8];
  for (size_t j = 0; j < 8; ++j) at[j] = reinterpret_cast<const std::byte*>(points + (j < count ? j : 0));
  __m512i w[kWords];
  load_words<kWords>(at, lanes, w);
  V x, y, b;
  from_words<N>(w, c, x);
  from_words<N>(w + kWords / 2, c, y);
  F b8[8];
  std::fill(b8, b8 + 8, Group::b());
  from_scalars(b8, c, b);
  const V rhs = add(mul<N>(mul<N>(x, x, c), x, c), b, c);
  const __mmask8 on = zero_lanes(canonical(sub(mul<N>(y, y, c), rhs, c), c));
  const __mmask8 identity = zero_lanes(x) & zero_lanes(y);
  return __mmask8((on | identity) & lanes);
}

#endif  // PACER_HAVE_IFMA_CODE

}  // namespace ifma
}  // namespace pacer::math

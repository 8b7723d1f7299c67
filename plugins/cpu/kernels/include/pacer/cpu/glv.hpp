#pragma once
// GLV: both curves have j-invariant 0, so φ(x, y) = (β·x, y), β a cube root of unity in Fq, maps
// the prime-order subgroups of G1 and G2 to themselves as multiplication by a cube root of unity λ
// mod r. A scalar k splits into k1 + k2·λ with |k1|, |k2| < 2^128, so k·P = k1·P + k2·φ(P): an MSM
// of n 254-bit scalars becomes one of 2n 128-bit scalars, half the windows and so half the bucket
// sums for the same per-point work. Constants (curves.hpp): scripts/glv_constants.py; tests/unit/test_glv.cpp checks
// φ = λ on both groups and the split against GMP.
#include <concepts>
#include <cstdint>

#include "pacer/math/curves.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/math/field.hpp"
#include "pacer/types.hpp"

namespace pacer::math {

// |k1| and |k2|, standard form, with their signs.
struct GlvSplit {
  Fr256 k1, k2;
  bool k1_negative, k2_negative;
};

// Bits of |k1| and |k2| for every k < r on both curves (the basis vectors are below 2^127.5).
inline constexpr size_t kGlvBits = 128;

namespace detail {

// ⌊k·g / 2^256⌋ for g < 2^192: the product's limbs 4..6, of which 4 and 5 can be non-zero.
inline Limbs<2> glv_round(const Fr256& k, const Fr256& g) {
  uint64_t prod[7] = {};
  for (size_t i = 0; i < 4; ++i) {
    unsigned __int128 carry = 0;
    for (size_t j = 0; j < 3; ++j) {
      carry += static_cast<unsigned __int128>(k[i]) * g[j] + prod[i + j];
      prod[i + j] = uint64_t(carry);
      carry >>= 64;
    }
    prod[i + 3] = uint64_t(carry);
  }
  return {prod[4], prod[5]};
}

// a - c·x mod 2^256 (x in two's complement, c < 2^128).
inline Fr256 glv_sub_product(Fr256 a, const Limbs<2>& c, const Fr256& x) {
  Fr256 prod = {};
  for (size_t i = 0; i < 2; ++i) {
    unsigned __int128 carry = 0;
    for (size_t j = 0; i + j < 4; ++j) {
      carry += static_cast<unsigned __int128>(c[i]) * x[j] + prod[i + j];
      prod[i + j] = uint64_t(carry);
      carry >>= 64;
    }
  }
  limbs_sub(a, prod);
  return a;
}

// Magnitude of a 256-bit two's complement value; true when it was negative.
inline bool glv_abs(Fr256& v) {
  if (!(v[3] >> 63)) return false;
  Fr256 zero = {};
  limbs_sub(zero, v);
  v = zero;
  return true;
}

}  // namespace detail

// k (standard form, below r) = k1 + k2·λ mod r.
inline GlvSplit glv_split(const Fr256& k, const GlvBasis& basis) {
  const Limbs<2> c1 = detail::glv_round(k, basis.g1), c2 = detail::glv_round(k, basis.g2);
  GlvSplit s;
  s.k1 = detail::glv_sub_product(detail::glv_sub_product(k, c1, basis.a1), c2, basis.a2);
  s.k2 = detail::glv_sub_product(detail::glv_sub_product(Fr256{}, c1, basis.b1), c2, basis.b2);
  s.k1_negative = detail::glv_abs(s.k1);
  s.k2_negative = detail::glv_abs(s.k2);
  return s;
}

// φ(P) = (β·x, y) with β = Group::glv_beta(), which lies in Fq also for G2 (x in Fq2: both
// coordinates scale).
template <class Group, class Beta>
Affine<Group> glv_endomorphism(const Affine<Group>& p, const Beta& beta) {
  if constexpr (requires { typename Group::Field::Base; }) {
    return Affine<Group>::of(typename Group::Field(p.x.c0 * beta, p.x.c1 * beta), p.y);
  } else {
    return Affine<Group>::of(p.x * beta, p.y);
  }
}

// φ of a Jacobian point: x = X/Z² scales by β, so X does (Z = 0, the identity, stays itself).
template <class Group, class Beta>
Jacobian<Group> glv_endomorphism(const Jacobian<Group>& p, const Beta& beta) {
  Jacobian<Group> out = p;
  if constexpr (requires { typename Group::Field::Base; }) {
    out.X = typename Group::Field(p.X.c0 * beta, p.X.c1 * beta);
  } else {
    out.X = p.X * beta;
  }
  return out;
}

// Groups that declare `glv_beta()` and `glv_basis()` take the GLV path in msm().
template <class Group>
concept HasGlv = requires {
  Group::glv_beta();
  { Group::glv_basis() } -> std::convertible_to<const GlvBasis&>;
};

}  // namespace pacer::math

#pragma once
// Membership of the prime-order subgroups G1 and G2 through an endomorphism with a known
// eigenvalue on the subgroup, instead of [r]P = O (a 255-bit scalar multiplication):
//   BN254 G1:      cofactor 1, every point of the curve is in G1.
//   BLS12-381 G1:  φ(x, y) = (βx, y) acts on G1 as [-z²]   (two 64-bit multiplications)
//   BN254 G2:      [z+1]Q + ψ([z]Q) + ψ²([z]Q) = ψ³([2z]Q), ψ (twist_frobenius) acting on G2 as
//                  [q]: El Housni, Guillevic, Piellard, "Co-factor clearing and subgroup membership
//                  testing on pairing-friendly curves" (one 63-bit multiplication)
//   BLS12-381 G2:  ψ acts on G2 as [q] = [z]                (q ≡ z mod r; one 64-bit one)
// Why a match means membership (cf. Scott, "A note on group membership tests for G1, G2 and GT
// on BLS pairing-friendly curves"): each test checks g(E)·P = O for a polynomial g in an
// endomorphism E with E² - tE + q = 0 (ψ; for φ: φ² + φ + 1) that vanishes on the subgroup.
// Reduced modulo that quadratic, g(E) = a + bE, and (a + bE)(a + b(t - E)) = a² + abt + b²q =: N,
// so g(E)·P = O gives N·P = O; N is prime to the cofactor on each curve (checked for these four
// cases when this was written: gcd = 1), so the cofactor part of P is O and P is in the subgroup. The unit tests check both directions
// against [r]P = O on points inside and outside the subgroups.
#include "pacer/math/curves.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/math/pairing.hpp"

namespace pacer::math {

// [z]P for the curve's signed parameter z.
template <class Curve, class Group>
Jacobian<Group> times_z(const Jacobian<Group>& p) {
  const Jacobian<Group> r = p.mul(Limbs<1>{Curve::Pairing::z_abs});
  return Curve::Pairing::z_negative ? -r : r;
}

// p must be on the curve (Affine::on_curve); the identity is a member.
template <class Curve>
bool in_g1(const Affine<typename Curve::G1>& p) {
  using G1 = typename Curve::G1;
  if constexpr (Curve::Pairing::family == PairingFamily::bn) {
    return true;  // #E(Fq) = r
  } else {
    if (p.is_identity()) return true;
    const Jacobian<G1> jp = Jacobian<G1>::from(p);
    const auto phi = Affine<G1>::of(p.x * G1::glv_beta(), p.y);
    return Jacobian<G1>::from(phi) == -times_z<Curve>(times_z<Curve>(jp));
  }
}

template <class Curve>
bool in_g2(const Affine<typename Curve::G2>& p) {
  using G2 = typename Curve::G2;
  if (p.is_identity()) return true;
  const Jacobian<G2> jp = Jacobian<G2>::from(p);
  if constexpr (Curve::Pairing::family == PairingFamily::bn) {
    // ψ on Jacobian coordinates: no inversion (two of them cost as much as the [z]Q).
    const Jacobian<G2> zq = times_z<Curve>(jp);
    const Jacobian<G2> lhs = zq + jp + twist_frobenius<Curve>(zq, 1) + twist_frobenius<Curve>(zq, 2);
    return lhs == twist_frobenius<Curve>(zq.dbl(), 3);
  } else {
    return Jacobian<G2>::from(twist_frobenius<Curve>(p, 1)) == times_z<Curve>(jp);
  }
}

// The group's check, for code templated over the group.
template <class Curve, class Group>
bool in_prime_subgroup(const Affine<Group>& p) {
  if constexpr (std::is_same_v<Group, typename Curve::G1>) return in_g1<Curve>(p);
  else return in_g2<Curve>(p);
}

}  // namespace pacer::math

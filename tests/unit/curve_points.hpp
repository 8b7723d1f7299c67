#pragma once
// Points of the curves outside their prime-order subgroups, for the subgroup-check tests: from a
// random x, y = sqrt(x³ + b) (both curves have q ≡ 3 mod 4), and members plus a point of the
// smallest order outside the subgroup (the hardest case for a batched check).
#include <catch2/catch.hpp>
#include <random>

#include "gmp_oracle.hpp"
#include "pacer/key_check.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/math/tower.hpp"

namespace pacer::test {
using namespace pacer::math;

// (q + 1)/4 and (q - 3)/4, (q - 1)/2: square roots in Fq and Fq2 for q ≡ 3 mod 4 (both curves).
template <class Fq>
Limbs<Fq::N> q_plus(int add, unsigned shift) {
  auto e = Fq::P;
  if (add >= 0) {
    Limbs<Fq::N> a{};
    a[0] = uint64_t(add);
    limbs_add(e, a);
  } else {
    Limbs<Fq::N> a{};
    a[0] = uint64_t(-add);
    limbs_sub(e, a);
  }
  return limbs_shr(e, shift);
}

template <class Fq>
bool sqrt_fq(const Fq& a, Fq& out) {
  out = a.pow(q_plus<Fq>(1, 2));
  return out.sqr() == a;
}

// Adj and Rodríguez-Henríquez, "Square root computation over even extension fields", alg. 9.
template <class Fq>
bool sqrt_fq2(const Fp2<Fq>& a, Fp2<Fq>& out) {
  using F2 = Fp2<Fq>;
  const F2 a1 = pow_limbs(a, q_plus<Fq>(-3, 2));
  const F2 alpha = a1 * a1 * a;
  const F2 x0 = a1 * a;
  if (alpha == -F2::one()) out = F2(-x0.c1, x0.c0);  // u·x0
  else out = pow_limbs(F2::one() + alpha, q_plus<Fq>(-1, 1)) * x0;
  return out.sqr() == a;
}

// Points of the curve y² = x³ + b from random x: almost never in the prime-order subgroup when
// the curve has a cofactor.
template <class Group, class Fq>
Affine<Group> random_curve_point(std::mt19937_64& rng) {
  using F = typename Group::Field;
  for (;;) {
    F x;
    if constexpr (std::is_same_v<F, Fq>) x = Fq::from_std(test::random_below_p<Fq>(rng));
    else x = F(Fq::from_std(test::random_below_p<Fq>(rng)), Fq::from_std(test::random_below_p<Fq>(rng)));
    const F rhs = x.sqr() * x + Group::b();
    F y;
    bool ok;
    if constexpr (std::is_same_v<F, Fq>) ok = sqrt_fq(rhs, y);
    else ok = sqrt_fq2(rhs, y);
    if (ok) return Affine<Group>::of(x, y);
  }
}

// The cofactor h of G1 or G2 from the curve's defining parameters (independent of the code):
// BN254 #E'(Fq2) = r·(2p - r); BLS12-381 h1 = (x - 1)²/3,
// h2 = (x⁸ - 4x⁷ + 5x⁶ - 4x⁴ + 6x³ - 4x² - 4x + 13)/9.
inline Mpz cofactor(CurveId curve, bool g2) {
  Mpz h;
  if (curve == CurveId::bn254) {
    REQUIRE(g2);
    const Mpz p("21888242871839275222246405745257275088696311157297823662689037894645226208583");
    const Mpz r("21888242871839275222246405745257275088548364400416034343698204186575808495617");
    mpz_mul_ui(h.z, p.z, 2);
    mpz_sub(h.z, h.z, r.z);
    return h;
  }
  Mpz x;
  mpz_set_str(x.z, "-d201000000010000", 16);
  if (!g2) {
    mpz_sub_ui(h.z, x.z, 1);
    mpz_mul(h.z, h.z, h.z);
    mpz_divexact_ui(h.z, h.z, 3);
    return h;
  }
  const long coefficients[] = {13, -4, -4, 6, -4, 0, 5, -4, 1};  // of x^0 .. x^8
  Mpz power, term;
  mpz_set_ui(power.z, 1);
  for (long c : coefficients) {
    mpz_mul_si(term.z, power.z, c);
    mpz_add(h.z, h.z, term.z);
    mpz_mul(power.z, power.z, x.z);
  }
  mpz_divexact_ui(h.z, h.z, 9);
  return h;
}

// A point of the curve with a component of order q (the cofactor's smallest prime) and nothing
// else outside the subgroup: the hardest case for a random combination to catch.
template <class Curve, class Group>
Affine<Group> point_with_small_order_part(const Affine<Group>& member, std::mt19937_64& rng) {
  const bool g2 = std::is_same_v<Group, typename Curve::G2>;
  const uint64_t q = smallest_cofactor_prime(Curve::id, g2);
  // n = r·h without its factors q: [n]R keeps only R's q-power part (the q-part of the group may
  // be Z_q × Z_q, as on BLS12-381 G2, so dividing by q once is not enough).
  Mpz n = to_mpz(Curve::Fr::P);
  const Mpz h = cofactor(Curve::id, g2);
  mpz_mul(n.z, n.z, h.z);
  while (mpz_divisible_ui_p(n.z, q)) mpz_divexact_ui(n.z, n.z, q);
  const auto scalar = from_mpz<16>(n);
  for (;;) {
    auto t = Jacobian<Group>::from(random_curve_point<Group, typename Curve::Fq>(rng)).mul(scalar);
    if (t.is_identity()) continue;
    for (int k = 0; k < 8 && !t.mul(Limbs<1>{q}).is_identity(); ++k) t = t.mul(Limbs<1>{q});
    REQUIRE(t.mul(Limbs<1>{q}).is_identity());  // order exactly q
    return (t + Jacobian<Group>::from(member)).to_affine();
  }
}

}  // namespace pacer::test

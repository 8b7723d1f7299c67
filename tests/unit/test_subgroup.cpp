// The endomorphism-based subgroup checks (subgroup.hpp) against the definition [r]P = O, on
// points of the subgroups and on points of the curves outside them.
#include <catch2/catch.hpp>

#include <random>

#include "gmp_oracle.hpp"
#include "pacer/math/subgroup.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

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

template <class Curve, class Group>
bool by_definition(const Affine<Group>& p) {
  return Jacobian<Group>::from(p).mul(Curve::Fr::P).is_identity();
}

template <class Curve, class Group>
void check_group(const Affine<Group>& generator) {
  using Fq = typename Curve::Fq;
  std::mt19937_64 rng(9);
  REQUIRE(in_prime_subgroup<Curve>(generator));
  REQUIRE(in_prime_subgroup<Curve>(Affine<Group>::identity()));
  for (int i = 0; i < 4; ++i) {
    const auto member = Jacobian<Group>::from(generator).mul(test::random_below_p<typename Curve::Fr>(rng)).to_affine();
    REQUIRE(in_prime_subgroup<Curve>(member));
    const auto other = random_curve_point<Group, Fq>(rng);
    REQUIRE(other.on_curve());
    REQUIRE(in_prime_subgroup<Curve>(other) == by_definition<Curve>(other));
  }
}

}  // namespace

TEST_CASE("G1 subgroup checks agree with [r]P = O inside and outside the subgroup on both curves", "[subgroup]") {
  check_group<Bn254, Bn254::G1>(Bn254::g1_generator());
  check_group<Bls12_381, Bls12_381::G1>(Bls12_381::g1_generator());
}

TEST_CASE("G2 subgroup checks agree with [r]P = O inside and outside the subgroup on both curves", "[subgroup]") {
  check_group<Bn254, Bn254::G2>(Bn254::g2_generator());
  check_group<Bls12_381, Bls12_381::G2>(Bls12_381::g2_generator());
}

TEST_CASE("points of the curve outside the subgroup are refused on the curves with a cofactor", "[subgroup]") {
  std::mt19937_64 rng(3);
  REQUIRE_FALSE(in_g1<Bls12_381>(random_curve_point<Bls12_381::G1, Bls12_381::Fq>(rng)));
  REQUIRE_FALSE(in_g2<Bls12_381>(random_curve_point<Bls12_381::G2, Bls12_381::Fq>(rng)));
  REQUIRE_FALSE(in_g2<Bn254>(random_curve_point<Bn254::G2, Bn254::Fq>(rng)));
}

// The endomorphism-based subgroup checks (subgroup.hpp) against the definition [r]P = O, on
// points of the subgroups and on points of the curves outside them.
#include <catch2/catch.hpp>

#include <random>

#include "curve_points.hpp"
#include "gmp_oracle.hpp"
#include "pacer/math/subgroup.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

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
    const auto other = test::random_curve_point<Group, Fq>(rng);
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
  REQUIRE_FALSE(in_g1<Bls12_381>(test::random_curve_point<Bls12_381::G1, Bls12_381::Fq>(rng)));
  REQUIRE_FALSE(in_g2<Bls12_381>(test::random_curve_point<Bls12_381::G2, Bls12_381::Fq>(rng)));
  REQUIRE_FALSE(in_g2<Bn254>(test::random_curve_point<Bn254::G2, Bn254::Fq>(rng)));
}

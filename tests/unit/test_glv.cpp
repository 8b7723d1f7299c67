// GLV: the endomorphism constants and the scalar split, with λ found independently of the
// constants under test (a cube root of unity mod r from GMP) and the split checked with GMP.
#include <catch2/catch.hpp>

#include <random>

#include "generators.hpp"
#include "gmp_oracle.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/cpu/glv.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

// The cube root of unity mod r by which φ acts on `gen`'s group (the other one fails).
template <class Curve, class Group>
test::Mpz eigenvalue(const Affine<Group>& gen) {
  test::Mpz r = test::to_mpz(Curve::Fr::P), e, root;
  mpz_sub_ui(e.z, r.z, 1);
  mpz_divexact_ui(e.z, e.z, 3);
  for (unsigned long g = 2;; ++g) {
    test::Mpz base;
    mpz_set_ui(base.z, g);
    mpz_powm(root.z, base.z, e.z, r.z);
    if (mpz_cmp_ui(root.z, 1) != 0) break;
  }
  const auto image = Jacobian<Group>::from(glv_endomorphism(gen, Group::glv_beta()));
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (Jacobian<Group>::from(gen).mul(test::from_mpz<4>(root)) == image) return root;
    mpz_mul(root.z, root.z, root.z);
    mpz_mod(root.z, root.z, r.z);
  }
  FAIL("φ is not multiplication by a cube root of unity");
  return root;
}

}  // namespace

TEMPLATE_TEST_CASE("GLV: φ acts as the same λ on G1 and G2, and k1 + k2·λ = k", "[glv]", Bn254, Bls12_381) {
  using G1 = typename TestType::G1;
  const test::Mpz lambda = eigenvalue<TestType>(TestType::g1_generator());
  REQUIRE(mpz_cmp(lambda.z, eigenvalue<TestType>(test::g2_generator<TestType>()).z) == 0);

  // Also on a point other than the generator.
  const auto p = Jacobian<G1>::from(TestType::g1_generator()).mul(Limbs<1>{0x9e3779b97f4a7c15}).to_affine();
  REQUIRE(Jacobian<G1>::from(glv_endomorphism(p, G1::glv_beta())) ==
          Jacobian<G1>::from(p).mul(test::from_mpz<4>(lambda)));

  const test::Mpz r = test::to_mpz(TestType::Fr::P);
  std::mt19937_64 rng(7);
  std::vector<Fr256> ks = {Fr256{}, Fr256{1, 0, 0, 0}, test::from_mpz<4>(lambda), Fr256{0, 0, 1, 0},
                           Fr256{~0ull, ~0ull, 0, 0}};
  Fr256 r_minus_1 = TestType::Fr::P;
  r_minus_1[0] -= 1;
  ks.push_back(r_minus_1);
  for (int i = 0; i < 2000; ++i) ks.push_back(test::random_below_p<typename TestType::Fr>(rng));
  for (const Fr256& k : ks) {
    const GlvSplit s = glv_split(k, G1::glv_basis());
    INFO("k = " << test::to_mpz(k).str());
    REQUIRE(s.k1[2] == 0);
    REQUIRE(s.k1[3] == 0);
    REQUIRE(s.k2[2] == 0);
    REQUIRE(s.k2[3] == 0);
    test::Mpz k1 = test::to_mpz(s.k1), k2 = test::to_mpz(s.k2), sum;
    if (s.k1_negative) mpz_neg(k1.z, k1.z);
    if (s.k2_negative) mpz_neg(k2.z, k2.z);
    mpz_mul(sum.z, k2.z, lambda.z);
    mpz_add(sum.z, sum.z, k1.z);
    mpz_sub(sum.z, sum.z, test::to_mpz(k).z);
    REQUIRE(mpz_divisible_p(sum.z, r.z));
  }
  // A scalar below 2^128 stays itself: small witnesses keep their small digits.
  const GlvSplit small = glv_split(Fr256{12345, 0, 0, 0}, G1::glv_basis());
  CHECK(small.k1 == Fr256{12345, 0, 0, 0});
  CHECK(small.k2 == Fr256{});
}

// Group laws and on-curve checks for G1 and G2 of both curves.
#include <catch2/catch.hpp>

#include <random>

#include "generators.hpp"
#include "gmp_oracle.hpp"
#include "ifma_paths.hpp"
#include "pacer/cpu/key_points.hpp"
#include "pacer/math/curves.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

template <class Group, class Fr>
void check_group_laws(const Affine<Group>& gen) {
  using J = Jacobian<Group>;
  REQUIRE(gen.on_curve());
  REQUIRE_FALSE(gen.is_identity());
  const J g = J::from(gen);
  // The generator has order r.
  REQUIRE(g.mul(Fr::P).is_identity());
  auto r_minus_1 = Fr::P;
  r_minus_1[0] -= 1;
  REQUIRE(g.mul(r_minus_1) == -g);

  std::mt19937_64 rng(7);
  for (int i = 0; i < 8; ++i) {
    auto ka = test::random_below_p<Fr>(rng), kb = test::random_below_p<Fr>(rng);
    J a = g.mul(ka), b = g.mul(kb);
    REQUIRE(a.to_affine().on_curve());
    // (ka + kb)·G = ka·G + kb·G, with the scalar sum reduced through Fr.
    auto sum = (Fr::from_std(ka) + Fr::from_std(kb)).to_std();
    REQUIRE(g.mul(sum) == a + b);
    REQUIRE(a + b == b + a);
    REQUIRE((a + b) + g == a + (b + g));
    REQUIRE(a + a == a.dbl());
    REQUIRE(a + (-a) == J::identity());
    REQUIRE(a + J::identity() == a);
    REQUIRE(J::identity() + a == a);
    // Mixed addition agrees with full addition, including doubling and cancellation.
    auto aff = b.to_affine();
    REQUIRE(a.add_affine(aff) == a + b);
    REQUIRE(b.add_affine(aff) == b.dbl());
    REQUIRE((-b).add_affine(aff).is_identity());
    REQUIRE(J::identity().add_affine(aff) == b);
    REQUIRE(a.add_affine(Affine<Group>::identity()) == a);
    // Affine round trip.
    REQUIRE(J::from(aff) == b);
  }
  // A point off the curve is detected.
  Affine<Group> bad = gen;
  bad.y = bad.y + Group::Field::one();
  REQUIRE_FALSE(bad.on_curve());
}

}  // namespace

TEMPLATE_TEST_CASE("G1 group law", "[curve]", Bn254, Bls12_381) {
  check_group_laws<typename TestType::G1, typename TestType::Fr>(TestType::g1_generator());
}

TEMPLATE_TEST_CASE("G2 group law", "[curve]", Bn254, Bls12_381) {
  check_group_laws<typename TestType::G2, typename TestType::Fr>(test::g2_generator<TestType>());
}

TEMPLATE_TEST_CASE("point encoding round trip", "[curve]", Bn254, Bls12_381) {
  using G1 = typename TestType::G1;
  std::array<std::byte, 192> buf{};
  auto p = Jacobian<G1>::from(TestType::g1_generator()).dbl().to_affine();
  encode_point(p, buf.data());
  REQUIRE(decode_point<G1>(buf.data()) == p);
  encode_point(Affine<G1>::identity(), buf.data());
  for (size_t i = 0; i < point_bytes<G1>(); ++i) REQUIRE(buf[i] == std::byte{0});
  REQUIRE(decode_point<G1>(buf.data()).is_identity());
}

namespace {

// first_invalid_key_point, scalar and IFMA, against is_valid_key_point one by one: valid points,
// the identity, and one damaged point (off the curve, or a coordinate at or above p) at each
// position of a run that spans full and partial groups of eight.
template <class Group>
void check_key_point_scan(const Affine<Group>& gen) {
  using J = Jacobian<Group>;
  using F = typename Group::Field;
  std::vector<Affine<Group>> points;
  J acc = J::from(gen);
  for (size_t i = 0; i < 21; ++i, acc = acc.add_affine(gen)) points.push_back(i % 7 == 3 ? Affine<Group>() : acc.to_affine());
  auto damage = [](Affine<Group> p, int how) {
    if (how == 0) p.y = p.y + F::one();  // off the curve
    if (how == 1) {                      // x's first limb array set to p: a residue, but not canonical
      if constexpr (requires { typename F::Base; }) p.x.c0.v = F::Base::P;
      else p.x.v = F::P;
    }
    return p;
  };
  test::for_each_ifma_setting("key-point scan", [&](const CpuKernels& kernels) {
    REQUIRE(first_invalid_key_point<Group>(points, kernels) == points.size());
    for (int how : {0, 1})
      for (size_t at = 0; at < points.size(); ++at) {
        auto bad = points;
        bad[at] = damage(bad[at], how);
        REQUIRE_FALSE(is_valid_key_point(bad[at]));
        INFO("damage " << how << " at " << at);
        REQUIRE(first_invalid_key_point<Group>(bad, kernels) == at);
      }
  });
}

}  // namespace

TEMPLATE_TEST_CASE("key-point scan finds the first invalid point", "[curve]", Bn254, Bls12_381) {
  check_key_point_scan<typename TestType::G1>(TestType::g1_generator());
  check_key_point_scan<typename TestType::G2>(TestType::g2_generator());
}

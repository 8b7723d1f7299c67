// check_key_subgroups (key_check.hpp): every section point's subgroup checked at load.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <vector>

#include "curve_points.hpp"
#include "gmp_oracle.hpp"
#include "pacer/error.hpp"
#include "pacer/key_check.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/thread_pool.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

enum class Bad { random_point, small_order_part };

// Encoded points: `count` multiples of the generator, with one point outside the subgroup at `bad`.
template <class Curve, class Group>
std::vector<std::byte> section_with_bad_point(const Affine<Group>& generator, size_t count, size_t bad,
                                              Bad kind = Bad::random_point) {
  std::mt19937_64 rng(5);
  constexpr size_t stride = point_bytes<Group>();
  std::vector<std::byte> bytes(count * stride);
  Jacobian<Group> p = Jacobian<Group>::from(generator);
  for (size_t i = 0; i < count; ++i, p = p + Jacobian<Group>::from(generator)) {
    auto point = p.to_affine();
    if (i == bad)
      point = kind == Bad::random_point ? test::random_curve_point<Group, typename Curve::Fq>(rng)
                                        : test::point_with_small_order_part<Curve>(point, rng);
    encode_point(point, bytes.data() + i * stride);
  }
  return bytes;
}

template <class Curve>
void check_refusal(std::span<const std::byte> ProvingKey::*section, const char* where, bool g2,
                   Bad kind = Bad::random_point, KeyCheckTuning tuning = {}) {
  ThreadPool pool(2);
  ProvingKey key;
  key.path = "test.zkey";
  key.curve = Curve::id;
  const auto bytes = g2 ? section_with_bad_point<Curve>(Curve::g2_generator(), 1500, 1234, kind)
                        : section_with_bad_point<Curve>(Curve::g1_generator(), 1500, 1234, kind);
  key.*section = bytes;
  try {
    check_key_subgroups(key, pool, tuning);
    FAIL("accepted a point outside the subgroup");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(std::string("test.zkey: ") + where + ", point 1234 is not in the curve's prime-order subgroup"));
  }
}

}  // namespace

TEST_CASE("every shipped key passes the subgroup checks of its points", "[key_check]") {
  ThreadPool pool(2);
  const auto circuits = std::filesystem::path(PACER_SOURCE_DIR) / "examples" / "circuits";
  for (const auto& circuit : std::filesystem::directory_iterator(circuits))
    for (const char* curve : {"bn128", "bls12381"}) {
      const auto path = circuit.path() / curve / "circuit.zkey";
      if (!std::filesystem::exists(path)) continue;
      INFO(path.string());
      CHECK_NOTHROW(check_key_subgroups(*read_zkey(path.string()), pool));
    }
}

TEST_CASE("a G2 key point outside the subgroup is refused with its section and index on both curves", "[key_check]") {
  check_refusal<Bn254>(&ProvingKey::b2, "section 7 (B2)", true);
  check_refusal<Bls12_381>(&ProvingKey::b2, "section 7 (B2)", true);
}

TEST_CASE("a BLS12-381 G1 key point outside the subgroup is refused with its section and index", "[key_check]") {
  check_refusal<Bls12_381>(&ProvingKey::a, "section 5 (A)", false);
  check_refusal<Bls12_381>(&ProvingKey::h, "section 9 (H)", false);
}

TEST_CASE("the cofactor primes that size the batched checks are the smallest factors of the cofactors (GMP)",
          "[key_check]") {
  CHECK(smallest_cofactor_prime(CurveId::bn254, false) == 0);  // #E(Fq) = r
  for (const auto& [curve, g2] : {std::pair{CurveId::bn254, true}, std::pair{CurveId::bls12_381, false},
                                  std::pair{CurveId::bls12_381, true}}) {
    const uint64_t q = smallest_cofactor_prime(curve, g2);
    const test::Mpz h = test::cofactor(curve, g2);
    INFO(curve_json_name(curve) << (g2 ? " G2" : " G1") << " h = " << h.str() << ", q = " << q);
    CHECK(mpz_divisible_ui_p(h.z, q));
    for (unsigned long d = 2; d < q; ++d) REQUIRE_FALSE(mpz_divisible_ui_p(h.z, d));
  }
}

TEST_CASE("checked in batches, a key point outside the subgroup is refused with its section and index, even one "
          "off by a smallest-order component",
          "[key_check]") {
  const KeyCheckTuning batched{256};  // 1500 points: two batches of 750
  for (Bad kind : {Bad::random_point, Bad::small_order_part}) {
    INFO((kind == Bad::random_point ? "a random point of the curve" : "a member plus a point of order q"));
    check_refusal<Bn254>(&ProvingKey::b2, "section 7 (B2)", true, kind, batched);
    check_refusal<Bls12_381>(&ProvingKey::b2, "section 7 (B2)", true, kind, batched);
    check_refusal<Bls12_381>(&ProvingKey::a, "section 5 (A)", false, kind, batched);
  }
}

TEST_CASE("checked in batches, sections whose points are all in the subgroup pass", "[key_check]") {
  ThreadPool pool(2);
  ProvingKey key;
  key.path = "good.zkey";
  key.curve = CurveId::bls12_381;
  const auto g1 = section_with_bad_point<Bls12_381>(Bls12_381::g1_generator(), 3000, SIZE_MAX);
  const auto g2 = section_with_bad_point<Bls12_381>(Bls12_381::g2_generator(), 1000, SIZE_MAX);
  key.a = key.h = g1;
  key.b2 = g2;
  CHECK_NOTHROW(check_key_subgroups(key, pool, KeyCheckTuning{256}));
  key.curve = CurveId::bn254;
  const auto bn_g2 = section_with_bad_point<Bn254>(Bn254::g2_generator(), 2000, SIZE_MAX);
  key.a = key.h = {};
  key.b2 = bn_g2;
  CHECK_NOTHROW(check_key_subgroups(key, pool, KeyCheckTuning{256}));
}

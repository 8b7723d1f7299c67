// check_key_subgroups (key_check.hpp): every section point's subgroup checked at load.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <vector>

#include "curve_points.hpp"
#include "pacer/error.hpp"
#include "pacer/key_check.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/thread_pool.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

// Encoded points: `count` multiples of the generator, with one point outside the subgroup at `bad`.
template <class Curve, class Group>
std::vector<std::byte> section_with_bad_point(const Affine<Group>& generator, size_t count, size_t bad) {
  std::mt19937_64 rng(5);
  constexpr size_t stride = point_bytes<Group>();
  std::vector<std::byte> bytes(count * stride);
  Jacobian<Group> p = Jacobian<Group>::from(generator);
  for (size_t i = 0; i < count; ++i, p = p + Jacobian<Group>::from(generator)) {
    const auto point = i == bad ? test::random_curve_point<Group, typename Curve::Fq>(rng) : p.to_affine();
    encode_point(point, bytes.data() + i * stride);
  }
  return bytes;
}

template <class Curve>
void check_refusal(std::span<const std::byte> ProvingKey::*section, const char* where, bool g2) {
  ThreadPool pool(2);
  ProvingKey key;
  key.path = "test.zkey";
  key.curve = Curve::id;
  const auto bytes = g2 ? section_with_bad_point<Curve>(Curve::g2_generator(), 1500, 1234)
                        : section_with_bad_point<Curve>(Curve::g1_generator(), 1500, 1234);
  key.*section = bytes;
  try {
    check_key_subgroups(key, pool);
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

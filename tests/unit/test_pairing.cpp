// The optimal ate pairing of both curves (pairing.hpp) and its tower (tower.hpp), against
// independent values: the vk_alphabeta_12 = e(alpha1, beta2) that snarkjs computed for every
// shipped fixture, and the pairing's defining properties (bilinearity, non-degeneracy, order r).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "gmp_oracle.hpp"
#include "pacer/math/pairing.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

template <class Curve>
typename Curve::Fq random_fq(std::mt19937_64& rng) {
  return Curve::Fq::from_std(test::random_below_p<typename Curve::Fq>(rng));
}

template <class Curve>
Fp12<Curve> random_fq12(std::mt19937_64& rng) {
  std::array<typename Curve::Fq2, 6> a;
  for (auto& c : a) c = typename Curve::Fq2(random_fq<Curve>(rng), random_fq<Curve>(rng));
  return Fp12<Curve>::from_coefficients(a);
}

template <class Curve>
Fr256 random_scalar(std::mt19937_64& rng) {
  return test::random_below_p<typename Curve::Fr>(rng);
}

template <class Curve>
Affine<typename Curve::G1> g1_times(const Fr256& k) {
  return Jacobian<typename Curve::G1>::from(Curve::g1_generator()).mul(k).to_affine();
}

template <class Curve>
Affine<typename Curve::G2> g2_times(const Fr256& k) {
  return Jacobian<typename Curve::G2>::from(Curve::g2_generator()).mul(k).to_affine();
}

template <class Curve>
Fr256 scalar_product(const Fr256& a, const Fr256& b) {
  using Fr = typename Curve::Fr;
  return (Fr::from_std(a) * Fr::from_std(b)).to_std();
}

// Every fixture's verification key as snarkjs wrote it: alpha, beta and snarkjs's e(alpha, beta).
template <class Curve>
void check_fixture_alphabeta(const std::filesystem::path& vkey_path) {
  using Fq = typename Curve::Fq;
  using Fq2 = typename Curve::Fq2;
  INFO(vkey_path.string());
  const auto vk = nlohmann::json::parse(std::ifstream(vkey_path));
  const auto fq = [](const nlohmann::json& j) { return Fq::from_decimal(j.get<std::string>()); };
  const auto fq2 = [&](const nlohmann::json& j) { return Fq2(fq(j[0]), fq(j[1])); };
  const auto alpha = Affine<typename Curve::G1>::of(fq(vk["vk_alpha_1"][0]), fq(vk["vk_alpha_1"][1]));
  const auto beta = Affine<typename Curve::G2>::of(fq2(vk["vk_beta_2"][0]), fq2(vk["vk_beta_2"][1]));
  const auto& ab = vk["vk_alphabeta_12"];
  const Fp12<Curve> expected{{fq2(ab[0][0]), fq2(ab[0][1]), fq2(ab[0][2])},
                             {fq2(ab[1][0]), fq2(ab[1][1]), fq2(ab[1][2])}};
  REQUIRE(pairing<Curve>(alpha, beta) == expected);
}

template <class Curve>
void check_all_fixtures() {
  const std::filesystem::path circuits = std::filesystem::path(PACER_SOURCE_DIR) / "examples" / "circuits";
  int checked = 0;
  for (const auto& circuit : std::filesystem::directory_iterator(circuits)) {
    const auto vkey = circuit.path() / std::string(Curve::json_name) / "verification_key.json";
    if (!std::filesystem::exists(vkey)) continue;
    check_fixture_alphabeta<Curve>(vkey);
    ++checked;
  }
  REQUIRE(checked >= 3);  // mul3, chain, poseidon3 on both curves (and nopub on bn128)
}

template <class Curve>
void check_tower() {
  using F12 = Fp12<Curve>;
  std::mt19937_64 rng(12);
  auto q2 = Limbs<2 * Curve::Fq::N>{};
  {
    // q² as a double-width integer, for the Frobenius check x^(q²).
    const auto& q = Curve::Fq::P;
    for (size_t i = 0; i < q.size(); ++i) {
      u128 carry = 0;
      for (size_t j = 0; j < q.size(); ++j) {
        const u128 cur = u128(q[i]) * q[j] + q2[i + j] + carry;
        q2[i + j] = uint64_t(cur);
        carry = cur >> 64;
      }
      q2[i + q.size()] = uint64_t(carry);
    }
  }
  for (int i = 0; i < 3; ++i) {
    const F12 x = random_fq12<Curve>(rng), y = random_fq12<Curve>(rng);
    REQUIRE(x * x.inv() == F12::one());
    REQUIRE(x.sqr() == x * x);
    REQUIRE(x * y == y * x);
    REQUIRE(x.c0 * x.c0.inv() == Fp6<Curve>::one());
    REQUIRE(x.frobenius(1) == pow_limbs(x, Curve::Fq::P));
    REQUIRE(x.frobenius(2) == pow_limbs(x, q2));
    REQUIRE(x.frobenius(3) == x.frobenius(1).frobenius(2));
    REQUIRE(x.frobenius(3).frobenius(3) == x.conjugate());  // q^6
  }
}

template <class Curve>
void check_bilinear() {
  std::mt19937_64 rng(2026);
  const auto g1 = Curve::g1_generator();
  const auto g2 = Curve::g2_generator();
  const auto base = pairing<Curve>(g1, g2);
  for (int i = 0; i < 2; ++i) {
    const Fr256 a = random_scalar<Curve>(rng), b = random_scalar<Curve>(rng);
    const auto lhs = pairing<Curve>(g1_times<Curve>(a), g2_times<Curve>(b));
    REQUIRE(lhs == pow_limbs(base, scalar_product<Curve>(a, b)));
    // Linear in each argument separately: e(aP, Q) = e(P, aQ).
    REQUIRE(pairing<Curve>(g1_times<Curve>(a), g2) == pairing<Curve>(g1, g2_times<Curve>(a)));
  }
}

template <class Curve>
void check_non_degenerate() {
  const auto e = pairing<Curve>(Curve::g1_generator(), Curve::g2_generator());
  REQUIRE_FALSE(e.is_one());
  REQUIRE(pow_limbs(e, Curve::Fr::P).is_one());
  REQUIRE(pairing<Curve>(Affine<typename Curve::G1>::identity(), Curve::g2_generator()).is_one());
  REQUIRE(pairing<Curve>(Curve::g1_generator(), Affine<typename Curve::G2>::identity()).is_one());
}

template <class Curve>
void check_product() {
  std::mt19937_64 rng(99);
  const Fr256 a = random_scalar<Curve>(rng), b = random_scalar<Curve>(rng);
  const auto p = g1_times<Curve>(a), q = g2_times<Curve>(b);
  // e(P, Q) · e(-P, Q) = 1, and e(aG, bH) · e(-abG, H) = 1, through one shared Miller loop.
  const PairingInput<Curve> cancel[] = {{p, q}, {-p, q}};
  REQUIRE(pairing_product_is_one<Curve>(cancel));
  const PairingInput<Curve> moved[] = {{p, q}, {-g1_times<Curve>(scalar_product<Curve>(a, b)), Curve::g2_generator()}};
  REQUIRE(pairing_product_is_one<Curve>(moved));
  const PairingInput<Curve> wrong[] = {{p, q}, {-p, Curve::g2_generator()}};
  REQUIRE_FALSE(pairing_product_is_one<Curve>(wrong));
  REQUIRE(final_exponentiation<Curve>(miller_loop<Curve>(std::span(wrong, 2))) ==
          pairing<Curve>(p, q) * pairing<Curve>(-p, Curve::g2_generator()));
}

}  // namespace

TEST_CASE("Fq12 products, inverses and Frobenius maps agree with their definitions on both curves", "[pairing]") {
  check_tower<Bn254>();
  check_tower<Bls12_381>();
}

TEST_CASE("e(alpha1, beta2) equals the vk_alphabeta_12 snarkjs wrote for every shipped BN254 fixture", "[pairing]") {
  check_all_fixtures<Bn254>();
}

TEST_CASE("e(alpha1, beta2) equals the vk_alphabeta_12 snarkjs wrote for every shipped BLS12-381 fixture",
          "[pairing]") {
  check_all_fixtures<Bls12_381>();
}

TEST_CASE("the pairing is bilinear: e(aP, bQ) = e(P, Q)^(ab) on both curves", "[pairing]") {
  check_bilinear<Bn254>();
  check_bilinear<Bls12_381>();
}

TEST_CASE("the pairing of the generators is not one and has order r; the identity pairs to one", "[pairing]") {
  check_non_degenerate<Bn254>();
  check_non_degenerate<Bls12_381>();
}

TEST_CASE("a shared Miller loop gives the product of the pairings", "[pairing]") {
  check_product<Bn254>();
  check_product<Bls12_381>();
}

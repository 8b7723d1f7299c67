// NTT against a naive DFT, snarkjs's roots of unity, and the odd-coset evaluation.
#include <catch2/catch.hpp>

#include <random>

#include "gmp_oracle.hpp"
#include "ifma_paths.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/cpu/ntt.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

template <class Fr>
std::vector<Fr> naive_eval(const std::vector<Fr>& coeffs, const Fr& point_base, const Fr& shift) {
  // y_i = Σ_j c_j (shift·base^i)^j
  size_t n = coeffs.size();
  std::vector<Fr> y(n);
  Fr x = shift;
  for (size_t i = 0; i < n; ++i) {
    Fr acc, pw = Fr::one();
    for (size_t j = 0; j < n; ++j) {
      acc += coeffs[j] * pw;
      pw *= x;
    }
    y[i] = acc;
    x *= point_base;
  }
  return y;
}

template <class Curve>
void check_ntt(ThreadPool* pool, const CpuKernels& kernels) {
  using Fr = typename Curve::Fr;
  std::mt19937_64 rng(11);
  for (size_t n : {1u, 2u, 4u, 8u, 64u, 256u, 1024u}) {
    Radix2Domain<Fr> d(n);
    std::vector<Fr> c(n);
    for (auto& x : c) x = Fr::from_std(test::random_below_p<Fr>(rng));
    auto want = naive_eval(c, d.omega(), Fr::one());
    auto got = c;
    d.ntt(got, pool);
    REQUIRE(got == want);
    d.intt(got, pool);
    REQUIRE(got == c);
    // Odd coset: evaluations on the domain -> evaluations at g·ω^i.
    auto evals = want;
    d.to_odd_coset(evals, pool, kernels);
    REQUIRE(evals == naive_eval(c, d.omega(), d.coset_generator()));
    // g is ω_2n: g^2 = ω_n, g^n = -1.
    if (n > 1) {
      REQUIRE(d.coset_generator().sqr() == d.omega());
      REQUIRE(d.coset_generator().pow(Limbs<1>{n}) == -Fr::one());
    }
  }
}

// The IFMA odd coset against the scalar one (itself checked against the naive DFT above), with
// cache blocks small enough that the out-of-block stages run at these sizes too.
template <class Curve>
void check_ifma_coset_against_scalar(ThreadPool* pool) {
  using Fr = typename Curve::Fr;
  static_assert(ifma::ntt_supported<Fr>());
  std::mt19937_64 rng(12);
  for (size_t n : {64u, 128u, 1024u, 8192u}) {
    Radix2Domain<Fr> d(n);
    std::vector<Fr> in(n);
    for (auto& x : in) x = Fr::from_std(test::random_below_p<Fr>(rng));
    in[0] = Fr();  // zero and p-1 are edge values of the lazy reduction
    in[1] = -Fr::one();
    auto want = in;
    d.to_odd_coset(want, pool, CpuKernels{false, 0});
    for (size_t blocks : {size_t(1), size_t(2), size_t(8), ifma::kLocalBlocks}) {
      INFO("n = " << n << ", cache block " << blocks << " blocks");
      auto got = in;
      ifma::odd_coset<Fr>(got, d.coset_tables(), pool, blocks);
      REQUIRE(got == want);
    }
  }
}

}  // namespace

TEST_CASE("NTT matches naive DFT (BN254)", "[ntt]") {
  ThreadPool pool(2);
  test::for_each_ifma_setting("odd coset", [&](const CpuKernels& kernels) {
    check_ntt<Bn254>(nullptr, kernels);
    check_ntt<Bn254>(&pool, kernels);
  });
}

TEST_CASE("NTT matches naive DFT (BLS12-381)", "[ntt]") {
  ThreadPool pool(2);
  test::for_each_ifma_setting("odd coset", [&](const CpuKernels& kernels) { check_ntt<Bls12_381>(&pool, kernels); });
}

TEMPLATE_TEST_CASE("IFMA odd coset matches the scalar one", "[ntt]", Bn254, Bls12_381) {
  if (!cpu_has_ifma()) {
    WARN("no AVX-512 IFMA on this CPU: IFMA odd coset not tested");
    return;
  }
  ThreadPool pool(2);
  check_ifma_coset_against_scalar<TestType>(nullptr);
  check_ifma_coset_against_scalar<TestType>(&pool);
}

TEST_CASE("roots of unity are snarkjs's (5^((r-1)/n))", "[ntt]") {
  // docs/formats.md §1.1: w[3], w[4], w[8].
  REQUIRE(Radix2Domain<Bn254::Fr>(8).omega().to_decimal() ==
          "19540430494807482326159819597004422086093766032135589407132600596362845576832");
  REQUIRE(Radix2Domain<Bn254::Fr>(16).omega().to_decimal() ==
          "14940766826517323942636479241147756311199852622225275649687664389641784935947");
  REQUIRE(Radix2Domain<Bn254::Fr>(256).omega().to_decimal() ==
          "3478517300119284901893091970156912948790432420133812234316178878452092729974");
  REQUIRE(Radix2Domain<Bls12_381::Fr>(8).omega().to_decimal() ==
          "28761180743467419819834788392525162889723178799021384024940474588120723734663");
  REQUIRE(Radix2Domain<Bls12_381::Fr>(16).omega().to_decimal() ==
          "35811073542294463015946892559272836998938171743018714161809767624935956676211");
  REQUIRE(Radix2Domain<Bls12_381::Fr>(256).omega().to_decimal() ==
          "21071158244812412064791010377580296085971058123779034548857891862303448703672");
  REQUIRE_THROWS(Radix2Domain<Bn254::Fr>(12));
}

TEST_CASE("two-adicity, largest root and coset generator are those of docs/formats.md for both fields", "[ntt]") {
  // r - 1 = 2^s·t, t odd: s = 28 on BN254 and 32 on BLS12-381 (formats.md §1.1).
  STATIC_REQUIRE(two_adicity_of<Bn254::Fr>() == 28);
  STATIC_REQUIRE(two_adicity_of<Bls12_381::Fr>() == 32);
  // The largest root is primitive: ω^(2^(s-1)) = -1.
  const auto minus_one_power = [](auto omega, unsigned s) {
    for (unsigned i = 0; i + 1 < s; ++i) omega = omega.sqr();
    return omega;
  };
  CHECK(minus_one_power(root_of_unity<Bn254::Fr>(28), 28) == -Bn254::Fr::one());
  CHECK(minus_one_power(root_of_unity<Bls12_381::Fr>(32), 32) == -Bls12_381::Fr::one());
  // Below the largest domain the coset generator is ω_2n; at it, snarkjs's 25 (§6.4).
  CHECK(coset_generator<Bn254::Fr>(10).sqr() == root_of_unity<Bn254::Fr>(10));
  CHECK(coset_generator<Bn254::Fr>(28) == Bn254::Fr::from_u64(25));
  CHECK(coset_generator<Bls12_381::Fr>(32) == Bls12_381::Fr::from_u64(25));
}

// Field arithmetic of all four fields against GMP on random and edge values.
#include <catch2/catch.hpp>

#include "gmp_oracle.hpp"
#include "pacer/cpu/kernels.hpp"
#include "pacer/math/curves.hpp"

using namespace pacer;
using namespace pacer::math;
using pacer::test::Mpz;

namespace {

template <class F>
std::vector<Limbs<F::N>> edge_values() {
  std::vector<Limbs<F::N>> v;
  Limbs<F::N> x{};
  v.push_back(x);  // 0
  x[0] = 1;
  v.push_back(x);  // 1
  x[0] = 2;
  v.push_back(x);
  auto pm1 = F::P;
  pm1[0] -= 1;
  v.push_back(pm1);  // p - 1
  auto pm2 = F::P;
  pm2[0] -= 2;
  v.push_back(pm2);
  auto half = limbs_shr(F::P, 1);
  v.push_back(half);
  for (size_t limb = 0; limb < F::N; ++limb) {  // 2^(64*limb) and all-ones limbs
    Limbs<F::N> p{};
    p[limb] = 1;
    if (!limbs_geq(p, F::P)) v.push_back(p);
    Limbs<F::N> ones{};
    for (size_t i = 0; i <= limb; ++i) ones[i] = ~uint64_t(0);
    if (!limbs_geq(ones, F::P)) v.push_back(ones);
  }
  v.push_back(F::R1);
  v.push_back(F::R2);
  return v;
}

template <class F>
void check_field_against_gmp() {
  std::mt19937_64 rng(0xF1E1D ^ F::P[0]);
  Mpz p = test::to_mpz(F::P);
  auto values = edge_values<F>();
  for (int i = 0; i < 200; ++i) values.push_back(test::random_below_p<F>(rng));

  for (size_t i = 0; i < values.size(); ++i) {
    const auto& xa = values[i];
    const auto& xb = values[(i * 7 + 3) % values.size()];
    F a = F::from_std(xa), b = F::from_std(xb);
    Mpz ma = test::to_mpz(xa), mb = test::to_mpz(xb), want;
    REQUIRE(a.to_std() == xa);  // round trip through Montgomery form

    mpz_add(want.z, ma.z, mb.z);
    mpz_mod(want.z, want.z, p.z);
    REQUIRE(test::to_mpz((a + b).to_std()).str() == want.str());
    mpz_sub(want.z, ma.z, mb.z);
    mpz_mod(want.z, want.z, p.z);
    REQUIRE(test::to_mpz((a - b).to_std()).str() == want.str());
    mpz_mul(want.z, ma.z, mb.z);
    mpz_mod(want.z, want.z, p.z);
    REQUIRE(test::to_mpz((a * b).to_std()).str() == want.str());
    mpz_mul(want.z, ma.z, ma.z);
    mpz_mod(want.z, want.z, p.z);
    REQUIRE(test::to_mpz(a.sqr().to_std()).str() == want.str());
    mpz_neg(want.z, ma.z);
    mpz_mod(want.z, want.z, p.z);
    REQUIRE(test::to_mpz((-a).to_std()).str() == want.str());
    if (!a.is_zero()) {
      mpz_invert(want.z, ma.z, p.z);
      REQUIRE(test::to_mpz(a.inv().to_std()).str() == want.str());
      REQUIRE(a * a.inv() == F::one());
    }
    // Decimal conversion both ways.
    REQUIRE(a.to_decimal() == ma.str());
    REQUIRE(F::from_decimal(ma.str()) == a);
  }
  // Montgomery constants agree with GMP's R mod p and R^2 mod p.
  Mpz R, want;
  mpz_ui_pow_ui(R.z, 2, 64 * F::N);
  mpz_mod(want.z, R.z, p.z);
  REQUIRE(test::to_mpz(F::R1).str() == want.str());
  mpz_mul(want.z, want.z, want.z);
  mpz_mod(want.z, want.z, p.z);
  REQUIRE(test::to_mpz(F::R2).str() == want.str());
}

}  // namespace

// Both products: the portable C++ of the framework's curves, and the cpu kernels' mulx/adx
// assembly (where the CPU and the build have it; its portable fallback elsewhere).
template <class F, class CpuF>
void check_both_paths() {
  SECTION("portable C++") { check_field_against_gmp<F>(); }
  SECTION("cpu kernels' mulx/adcx/adox where available") {
    if (!kCpuHasAdx) WARN("this CPU has no ADX/BMI2: the kernels' product is the portable one");
    check_field_against_gmp<CpuF>();
  }
}

TEST_CASE("BN254 Fq matches GMP", "[field]") { check_both_paths<Bn254::Fq, CpuBn254::Fq>(); }
TEST_CASE("BN254 Fr matches GMP", "[field]") { check_both_paths<Bn254::Fr, CpuBn254::Fr>(); }
TEST_CASE("BLS12-381 Fq matches GMP", "[field]") { check_both_paths<Bls12_381::Fq, CpuBls12_381::Fq>(); }
TEST_CASE("BLS12-381 Fr matches GMP", "[field]") { check_both_paths<Bls12_381::Fr, CpuBls12_381::Fr>(); }

TEST_CASE("Fr Montgomery constants match the spec table", "[field]") {
  // docs/formats.md §1: R mod r for both curves.
  CHECK(Bn254::Fr::R1 == limbs_from_hex<4>("0e0a77c19a07df2f666ea36f7879462e36fc76959f60cd29ac96341c4ffffffb"));
  CHECK(Bls12_381::Fr::R1 == limbs_from_hex<4>("1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe"));
  CHECK(Bn254::Fr::R2 == limbs_from_hex<4>("0216d0b17f4e44a58c49833d53bb808553fe3ab1e35c59e31bb8e645ae216da7"));
  CHECK(Bls12_381::Fr::R2 == limbs_from_hex<4>("0748d9d99f59ff1105d314967254398f2b6cedcb87925c23c999e990f3f29c6d"));
}

TEMPLATE_TEST_CASE("Fq2 multiplication and inverse", "[field]", Bn254, Bls12_381) {
  using Fq = typename TestType::Fq;
  using Fq2 = typename TestType::Fq2;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 50; ++i) {
    Fq2 a(Fq::from_std(test::random_below_p<Fq>(rng)), Fq::from_std(test::random_below_p<Fq>(rng)));
    Fq2 b(Fq::from_std(test::random_below_p<Fq>(rng)), Fq::from_std(test::random_below_p<Fq>(rng)));
    // Schoolbook product with u^2 = -1 as the oracle for Karatsuba.
    Fq2 want(a.c0 * b.c0 - a.c1 * b.c1, a.c0 * b.c1 + a.c1 * b.c0);
    REQUIRE(a * b == want);
    REQUIRE(a.sqr() == a * a);
    REQUIRE(a * a.inv() == Fq2::one());
  }
}

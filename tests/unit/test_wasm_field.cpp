// The native field arithmetic that wasm-translated witness generators use in place of circom's
// Fr_F1m_mul / Fr_F1m_mReduct (framework/src/witness/native/wasm_field.h), against GMP.
#include <catch2/catch.hpp>

#include <random>

#include "gmp_oracle.hpp"

extern "C" {
#include "witness/native/wasm_field.h"
}

namespace {

using pacer::math::Limbs;
using pacer::test::from_mpz;
using pacer::test::Mpz;
using pacer::test::to_mpz;

void check_prime(const char* decimal) {
  const Mpz q(decimal);
  uint32_t prime[8] = {};
  size_t count = 0;
  mpz_export(prime, &count, -1, sizeof(uint32_t), 0, 0, q.z);
  pacer_field f;
  pacer_field_setup(&f, prime, 8);
  REQUIRE(f.state == 1);
  Mpz r_inv, two_256;
  mpz_setbit(two_256.z, 256);
  mpz_invert(r_inv.z, two_256.z, q.z);

  gmp_randstate_t rng;
  gmp_randinit_default(rng);
  gmp_randseed_ui(rng, 7);
  for (int i = 0; i < 4000; ++i) {
    Mpz a, b, hi, lo, want, got;
    if (i < 4) {  // the largest operands: the final subtraction and the top carry
      mpz_sub_ui(a.z, q.z, 1 + i);
      mpz_sub_ui(b.z, q.z, 1);
    } else {
      mpz_urandomm(a.z, rng, q.z);
      mpz_urandomm(b.z, rng, q.z);
    }
    const Limbs<4> wa = from_mpz<4>(a), wb = from_mpz<4>(b);
    Limbs<4> out;
    CHECK(pacer_field_below_q(&f, wa.data()));
    pacer_field_mul(&f, out.data(), wa.data(), wb.data());
    mpz_mul(want.z, a.z, b.z);
    mpz_mul(want.z, want.z, r_inv.z);
    mpz_mod(want.z, want.z, q.z);
    got = to_mpz(out);
    REQUIRE(got.str() == want.str());

    // A 512-bit t with its high half below q (what the glue hands to the native reduction).
    mpz_urandomm(hi.z, rng, q.z);
    mpz_urandomb(lo.z, rng, 256);
    if (i < 2) mpz_sub_ui(hi.z, q.z, 1), mpz_sub_ui(lo.z, two_256.z, 1);
    Mpz t;
    mpz_mul_2exp(t.z, hi.z, 256);
    mpz_add(t.z, t.z, lo.z);
    const Limbs<8> wide = from_mpz<8>(t);
    pacer_field_reduce(&f, out.data(), wide.data());
    mpz_mul(want.z, t.z, r_inv.z);
    mpz_mod(want.z, want.z, q.z);
    got = to_mpz(out);
    REQUIRE(got.str() == want.str());
  }
  gmp_randclear(rng);
  CHECK_FALSE(pacer_field_below_q(&f, from_mpz<4>(q).data()));
}

}  // namespace

TEST_CASE("wasm generators' native Montgomery product and reduction equal GMP's for both curves' scalar fields and a 256-bit prime",
          "[witness][field]") {
  check_prime("21888242871839275222246405745257275088548364400416034343698204186575808495617");   // bn128 r
  check_prime("52435875175126190479447740508185965837690552500527637822603658699938581184513");   // bls12-381 r
  check_prime("115792089237316195423570985008687907853269984665640564039457584007908834671663");  // secp256k1 p
}

TEST_CASE("wasm generators keep circom's own field code for a field that is not 256 bits wide or an even modulus",
          "[witness][field]") {
  pacer_field f;
  const uint32_t wide[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  pacer_field_setup(&f, wide, 12);
  CHECK(f.state == 0);
  const uint32_t even[8] = {2, 0, 0, 0, 0, 0, 0, 1};
  pacer_field_setup(&f, even, 8);
  CHECK(f.state == 0);
}

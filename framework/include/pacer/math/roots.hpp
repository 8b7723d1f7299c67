#pragma once
// The roots of unity of a scalar field as snarkjs chooses them (docs/formats.md §1.1, §6.3-6.4):
// ω_{2^k} = 5^((r-1)/2^k), 5 being a quadratic non-residue of both scalar fields, and the coset
// generator of compute_h. The NTT domains and the insecure setup take them from here, so the
// setup's Lagrange points and the prover's transforms agree on every root.
#include <bit>
#include <cstdint>

#include "pacer/math/field.hpp"

namespace pacer::math {

// The largest s with 2^s | r-1 (28 for BN254, 32 for BLS12-381).
template <class Fr>
constexpr uint32_t two_adicity_of() {
  auto r_minus_1 = Fr::P;
  r_minus_1[0] -= 1;  // r is odd
  uint32_t s = 0;
  for (const uint64_t limb : r_minus_1) {
    if (limb) return s + uint32_t(std::countr_zero(limb));
    s += 64;
  }
  return s;
}

// ω_n for n = 2^log_n (log_n <= two_adicity_of<Fr>()).
template <class Fr>
Fr root_of_unity(unsigned log_n) {
  auto r_minus_1 = Fr::P;
  r_minus_1[0] -= 1;
  return Fr::from_u64(5).pow(limbs_shr(r_minus_1, log_n));
}

// compute_h evaluates on the coset g·⟨ω_n⟩ with g = ω_2n; where 2n exceeds the 2-adicity, snarkjs
// takes g = 5² = 25 instead (§6.4).
template <class Fr>
Fr coset_generator(unsigned log_n) {
  return log_n < two_adicity_of<Fr>() ? root_of_unity<Fr>(log_n + 1) : Fr::from_u64(25);
}

}  // namespace pacer::math

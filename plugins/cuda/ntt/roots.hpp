#pragma once
// Roots of unity of the scalar fields as snarkjs defines them (docs/formats.md §1.1, §6.3-6.4),
// computed on the host with fp_t (plain C++: the self-test checks them against the framework).
#include <cstdint>

#include "ff/fp.hpp"

namespace pacer::cuda::ntt {

// r-1 = 2^s·t with t odd: s is the two-adicity (28 for BN254, 32 for BLS12-381).
template <class F>
uint32_t two_adicity() {
  uint32_t s = 0;
  for (int i = 0; i < F::n; ++i) {
    const uint32_t w = i == 0 ? F::mod(0) - 1 : F::mod(i);  // r is odd: r-1 changes word 0 only
    if (w) return s + uint32_t(__builtin_ctz(w));
    s += 32;
  }
  return s;
}

// 5^((r-1) / 2^k): the primitive 2^k-th root of unity snarkjs uses (5 is a non-residue of both).
template <class F>
F root_of_unity(uint32_t k) {
  uint32_t e[F::n];
  for (int i = 0; i < F::n; ++i) e[i] = F::mod(i);
  e[0] -= 1;
  for (uint32_t step = 0; step < k; ++step)
    for (int i = 0; i < F::n; ++i) e[i] = (e[i] >> 1) | (i + 1 < F::n ? e[i + 1] << 31 : 0);
  return F::from_u32(5).pow(e, F::n);
}

// The coset generator of a 2^L domain: ω_{2n}, or 25 when 2n exceeds the 2-adicity (§6.4).
template <class F>
F coset_generator(uint32_t L) {
  return L < two_adicity<F>() ? root_of_unity<F>(L + 1) : F::from_u32(25);
}

template <class F>
F inverse_of_pow2(uint32_t L) {
  const F half = F::from_u32(2).inverse();
  F r = F::one();
  for (uint32_t i = 0; i < L; ++i) r = r * half;
  return r;
}

}  // namespace pacer::cuda::ntt

#pragma once
// The moduli of the supported curves' fields, little-endian 64-bit words: the one source of these
// numbers for the host fields (curves.hpp) and the CUDA kernels (plugins/cuda/ff/fp.hpp). No
// standard-library types, and functions rather than arrays: a namespace-scope array would be host
// memory to device code, a function's constant result is not.
#include <cstdint>

#if defined(__CUDACC__)
#define PACER_PRIME_FN __host__ __device__ constexpr
#else
#define PACER_PRIME_FN constexpr
#endif

namespace pacer::math::primes {

template <int kWords>
struct Words {
  uint64_t w[kWords];
};

// BN254 (circom's bn128)
PACER_PRIME_FN Words<4> bn254_fq() {
  return {{0x3c208c16d87cfd47ull, 0x97816a916871ca8dull, 0xb85045b68181585dull, 0x30644e72e131a029ull}};
}
PACER_PRIME_FN Words<4> bn254_fr() {
  return {{0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull, 0x30644e72e131a029ull}};
}
// BLS12-381
PACER_PRIME_FN Words<6> bls12_381_fq() {
  return {{0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull, 0x64774b84f38512bfull,
           0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull}};
}
PACER_PRIME_FN Words<4> bls12_381_fr() {
  return {{0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull}};
}

}  // namespace pacer::math::primes

#undef PACER_PRIME_FN

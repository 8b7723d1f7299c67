#pragma once
// The four groups the MSM serves, as (coordinate field, scalar bits) traits. The scalar field of
// both curves is 4×64 bits; scalar_bits bounds the MSM's windows (r < 2^scalar_bits).
#include "ec/xyzz.hpp"
#include "ff/fp.hpp"
#include "ff/fp2.hpp"

namespace pacer::cuda::ec {

struct Bn254G1 {
  using F = ff::bn254_fq;
  static constexpr int scalar_bits = 254;
  static constexpr bool g2 = false;
};
struct Bn254G2 {
  using F = ff::fp2_t<ff::bn254_fq>;
  static constexpr int scalar_bits = 254;
  static constexpr bool g2 = true;
};
struct Bls12_381G1 {
  using F = ff::bls12_381_fq;
  static constexpr int scalar_bits = 255;
  static constexpr bool g2 = false;
};
struct Bls12_381G2 {
  using F = ff::fp2_t<ff::bls12_381_fq>;
  static constexpr int scalar_bits = 255;
  static constexpr bool g2 = true;
};

}  // namespace pacer::cuda::ec

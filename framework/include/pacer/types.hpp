#pragma once
// Small vocabulary types shared by formats, backends and the engine.
#include <array>
#include <cstddef>
#include <cstdint>

namespace pacer {

enum class CurveId : uint8_t { bn254, bls12_381 };

// A scalar-field element as 4 little-endian 64-bit limbs (Fr is 256-bit wide on both curves).
// Whether it is in standard or Montgomery form is stated at each use.
using Fr256 = std::array<uint64_t, 4>;

// The c-bit window of a standard-form scalar starting at bit pos (c <= 32; bits past 255 are 0):
// the digit that windowed scalar multiplications (MSM, fixed-base tables) look up.
inline uint32_t fr256_window(const Fr256& k, size_t pos, unsigned c) {
  const size_t limb = pos / 64, off = pos % 64;
  if (limb >= 4) return 0;
  uint64_t v = k[limb] >> off;
  if (off + c > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
  return uint32_t(v & ((uint64_t(1) << c) - 1));
}

}  // namespace pacer

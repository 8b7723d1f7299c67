#pragma once
// Small vocabulary types shared by formats, backends and the engine.
#include <array>
#include <cstdint>

namespace pacer {

enum class CurveId : uint8_t { bn254, bls12_381 };

// A scalar-field element as 4 little-endian 64-bit limbs (Fr is 256-bit wide on both curves).
// Whether it is in standard or Montgomery form is stated at each use.
using Fr256 = std::array<uint64_t, 4>;

}  // namespace pacer

#pragma once
// The cpu plugin's kernels, for the cpu backend and for other backends that run part of a proof
// on the CPU (the cuda backend's G2 MSM): Pippenger MSM, the odd-coset NTT, key residency, all on
// the curves of pacer/math with the x86-64 mulx/adx field product (portable elsewhere).
#include "pacer/cpu/field_adx.hpp"
#include "pacer/cpu/kernel_config.hpp"
#include "pacer/cpu/key_points.hpp"
#include "pacer/cpu/msm.hpp"
#include "pacer/cpu/ntt.hpp"
#include "pacer/cpu/synthesis.hpp"
#include "pacer/math/curves.hpp"

namespace pacer::math {

// The curves as the CPU kernels compute on them: same layout as Bn254 / Bls12_381, faster product.
using CpuBn254 = Bn254Curve<AdxMul>;
using CpuBls12_381 = Bls12_381Curve<AdxMul>;

// Runs f(Curve{}) with the kernels' curve type that id names.
template <class Fn>
decltype(auto) with_cpu_curve(CurveId id, Fn&& f) {
  return with_curve<AdxMul>(id, std::forward<Fn>(f));
}

}  // namespace pacer::math

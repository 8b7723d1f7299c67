#pragma once
// The framework's own curve arithmetic (key checks, verification, setup, witness evaluation):
// field.hpp's portable product with x86-64 adc/sbb carry chains (x86_carry_chain.hpp): EC sums and
// subgroup checks are mostly such chains.
#include <utility>

#include "pacer/math/curves.hpp"
#include "pacer/math/x86_carry_chain.hpp"

namespace pacer::math {

struct HostMul : X86CarryChain {
  template <class F>
  static PACER_HOT constexpr typename F::limbs_t mul(const typename F::limbs_t& a, const typename F::limbs_t& b) {
    return F::mont_mul(a, b);
  }
};

using HostBn254 = Bn254Curve<HostMul>;
using HostBls12_381 = Bls12_381Curve<HostMul>;

// with_curve with the host arithmetic.
template <class Fn>
decltype(auto) with_host_curve(CurveId id, Fn&& f) {
  return with_curve<HostMul>(id, std::forward<Fn>(f));
}

}  // namespace pacer::math

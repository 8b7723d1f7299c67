#pragma once
// The framework's own curve arithmetic (key checks, verification, setup, witness evaluation):
// field.hpp's portable product with x86-64 adc/sbb carry chains. The chains stay out of the public
// headers, which must compile on any target; GCC 12 turns the portable chain into stack round trips
// (3-5x the instructions), and EC sums and subgroup checks are mostly such chains.
#include <cstdint>
#include <utility>

#if defined(__x86_64__)
#include <x86intrin.h>  // plain x86-64: no target flags
#endif

#include "pacer/math/curves.hpp"

namespace pacer::math {

struct HostMul {
  template <class F>
  static PACER_HOT constexpr typename F::limbs_t mul(const typename F::limbs_t& a, const typename F::limbs_t& b) {
    return F::mont_mul(a, b);
  }
#if defined(__x86_64__)
  template <bool kSubtract, size_t N>
  static PACER_HOT uint64_t carry_chain(Limbs<N>& a, const Limbs<N>& b) {
    unsigned char carry = 0;
    for (size_t i = 0; i < N; ++i) {
      unsigned long long r;
      carry = kSubtract ? _subborrow_u64(carry, a[i], b[i], &r) : _addcarry_u64(carry, a[i], b[i], &r);
      a[i] = r;
    }
    return carry;
  }
#endif
};

using HostBn254 = Bn254Curve<HostMul>;
using HostBls12_381 = Bls12_381Curve<HostMul>;

// with_curve with the host arithmetic.
template <class Fn>
decltype(auto) with_host_curve(CurveId id, Fn&& f) {
  return with_curve<HostMul>(id, std::forward<Fn>(f));
}

}  // namespace pacer::math

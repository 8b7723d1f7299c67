#pragma once
// Fp's sums, differences and reductions as one x86-64 adc/sbb chain, for the Mul policies that
// want it (field.hpp calls Mul::carry_chain where a policy has one): GCC 12 turns field.hpp's
// portable chain into stack round trips, 3-5x the instructions. Plain x86-64, no target flags;
// elsewhere the policies inherit nothing and the portable chain stays.
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "pacer/math/field.hpp"

namespace pacer::math {

struct X86CarryChain {
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

}  // namespace pacer::math

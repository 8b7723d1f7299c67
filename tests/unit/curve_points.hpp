#pragma once
// Points of the curves outside their prime-order subgroups, for the subgroup-check tests: from a
// random x, y = sqrt(x³ + b) (both curves have q ≡ 3 mod 4).
#include <random>

#include "gmp_oracle.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/math/tower.hpp"

namespace pacer::test {
using namespace pacer::math;

// (q + 1)/4 and (q - 3)/4, (q - 1)/2: square roots in Fq and Fq2 for q ≡ 3 mod 4 (both curves).
template <class Fq>
Limbs<Fq::N> q_plus(int add, unsigned shift) {
  auto e = Fq::P;
  if (add >= 0) {
    Limbs<Fq::N> a{};
    a[0] = uint64_t(add);
    limbs_add(e, a);
  } else {
    Limbs<Fq::N> a{};
    a[0] = uint64_t(-add);
    limbs_sub(e, a);
  }
  return limbs_shr(e, shift);
}

template <class Fq>
bool sqrt_fq(const Fq& a, Fq& out) {
  out = a.pow(q_plus<Fq>(1, 2));
  return out.sqr() == a;
}

// Adj and Rodríguez-Henríquez, "Square root computation over even extension fields", alg. 9.
template <class Fq>
bool sqrt_fq2(const Fp2<Fq>& a, Fp2<Fq>& out) {
  using F2 = Fp2<Fq>;
  const F2 a1 = pow_limbs(a, q_plus<Fq>(-3, 2));
  const F2 alpha = a1 * a1 * a;
  const F2 x0 = a1 * a;
  if (alpha == -F2::one()) out = F2(-x0.c1, x0.c0);  // u·x0
  else out = pow_limbs(F2::one() + alpha, q_plus<Fq>(-1, 1)) * x0;
  return out.sqr() == a;
}

// Points of the curve y² = x³ + b from random x: almost never in the prime-order subgroup when
// the curve has a cofactor.
template <class Group, class Fq>
Affine<Group> random_curve_point(std::mt19937_64& rng) {
  using F = typename Group::Field;
  for (;;) {
    F x;
    if constexpr (std::is_same_v<F, Fq>) x = Fq::from_std(test::random_below_p<Fq>(rng));
    else x = F(Fq::from_std(test::random_below_p<Fq>(rng)), Fq::from_std(test::random_below_p<Fq>(rng)));
    const F rhs = x.sqr() * x + Group::b();
    F y;
    bool ok;
    if constexpr (std::is_same_v<F, Fq>) ok = sqrt_fq(rhs, y);
    else ok = sqrt_fq2(rhs, y);
    if (ok) return Affine<Group>::of(x, y);
  }
}

}  // namespace pacer::test

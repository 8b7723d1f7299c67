#pragma once
// Quadratic extension Fq2 = Fq[u]/(u^2 + 1), the G2 coordinate field of both supported curves.
#include "pacer/math/field.hpp"

namespace pacer::math {

template <class F>
struct Fp2 {
  using Base = F;
  F c0, c1;  // c0 + c1*u, written c0 then c1 in every file format

  constexpr Fp2() = default;
  constexpr Fp2(const F& a, const F& b) : c0(a), c1(b) {}
  static constexpr Fp2 zero() { return Fp2(); }
  static constexpr Fp2 one() { return Fp2(F::one(), F::zero()); }
  PACER_HOT constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend constexpr bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }
  friend PACER_HOT constexpr Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend PACER_HOT constexpr Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  PACER_HOT constexpr Fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: three base multiplications instead of four.
  friend PACER_HOT constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
    F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 - t1, F::sum_as_factor(a.c0, a.c1) * F::sum_as_factor(b.c0, b.c1) - t0 - t1};
  }
  PACER_HOT Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  PACER_HOT Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  PACER_HOT Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  PACER_HOT constexpr Fp2 dbl() const { return *this + *this; }
  PACER_HOT constexpr Fp2 sqr() const {  // (a+b)(a-b), 2ab
    F ab = c0 * c1;
    return {F::sum_as_factor(c0, c1) * (c0 - c1), ab + ab};
  }
  constexpr Fp2 inv() const {  // conj / norm
    F n = (c0.sqr() + c1.sqr()).inv();
    return {c0 * n, -(c1 * n)};
  }
};

}  // namespace pacer::math

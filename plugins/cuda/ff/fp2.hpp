#pragma once
// Fq2 = Fq[u]/(u^2 + 1) for both curves: c0 + c1·u, c0 first in memory (the zkey layout).
#include "ff/fp.hpp"

namespace pacer::cuda::ff {

template <class F>
struct fp2_t {
  using Base = F;
  F c0, c1;

  PACER_HD static fp2_t zero() { return {F::zero(), F::zero()}; }
  PACER_HD static fp2_t one() { return {F::one(), F::zero()}; }
  PACER_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  PACER_HD friend bool operator==(const fp2_t& a, const fp2_t& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  PACER_HD friend bool operator!=(const fp2_t& a, const fp2_t& b) { return !(a == b); }
  PACER_HD friend fp2_t operator+(const fp2_t& a, const fp2_t& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  PACER_HD friend fp2_t operator-(const fp2_t& a, const fp2_t& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  PACER_HD fp2_t operator-() const { return {-c0, -c1}; }
  PACER_HD fp2_t dbl() const { return *this + *this; }
  // Karatsuba: three base products instead of four. Out of line on the device (by value: the
  // arguments travel in registers), see PACER_HD_NOINLINE.
  PACER_HD_NOINLINE static fp2_t mul(const fp2_t a, const fp2_t b) {
    const F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    const F t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
  }
  // (a + b)(a - b) and 2ab: two base products.
  PACER_HD_NOINLINE static fp2_t square(const fp2_t a) {
    const F ab = a.c0 * a.c1;
    return {(a.c0 + a.c1) * (a.c0 - a.c1), ab + ab};
  }
  PACER_HD friend fp2_t operator*(const fp2_t& a, const fp2_t& b) { return mul(a, b); }
  PACER_HD fp2_t sqr() const { return square(*this); }
  PACER_HD fp2_t& operator+=(const fp2_t& b) { return *this = *this + b; }
  PACER_HD fp2_t& operator-=(const fp2_t& b) { return *this = *this - b; }
  PACER_HD fp2_t& operator*=(const fp2_t& b) { return *this = *this * b; }
};

}  // namespace pacer::cuda::ff

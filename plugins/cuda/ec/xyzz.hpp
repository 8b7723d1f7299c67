#pragma once
// Points of y^2 = x^3 + b (a = 0) over F (Fq for G1, Fq2 for G2). Input points are affine in the
// framework's layout (x then y, (0,0) = infinity). Buckets and sums are XYZZ (x = X/ZZ,
// y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 is infinity): a mixed addition costs 8M + 2S against 7M + 4S
// in Jacobian, and needs no doubling-specific scaling. Formulas: EFD shortw-xyzz
// (madd-2008-s, add-2008-s, dbl-2008-s-1), with the equal and opposite point cases handled.
#include "ff/fp.hpp"
#include "ff/fp2.hpp"

namespace pacer::cuda::ec {

template <class F>
struct affine_t {
  F x, y;
  PACER_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  PACER_HD affine_t neg() const { return {x, -y}; }
};

template <class F>
struct xyzz_t {
  F X, Y, ZZ, ZZZ;

  PACER_HD static xyzz_t inf() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  PACER_HD bool is_inf() const { return ZZ.is_zero(); }
  PACER_HD static xyzz_t from_affine(const affine_t<F>& a) {
    if (a.is_inf()) return inf();
    return {a.x, a.y, F::one(), F::one()};
  }
  PACER_HD xyzz_t neg() const { return {X, -Y, ZZ, ZZZ}; }

  // dbl-2008-s-1; a point with Y = 0 (2-torsion) comes out with ZZ = 0, i.e. infinity.
  PACER_HD void dbl() {
    if (is_inf()) return;
    const F U = Y.dbl();
    const F V = U.sqr();
    const F W = U * V;
    const F S = X * V;
    const F X2 = X.sqr();
    const F M = X2.dbl() + X2;
    const F X3 = M.sqr() - S.dbl();
    Y = M * (S - X3) - W * Y;
    X = X3;
    ZZ = V * ZZ;
    ZZZ = W * ZZZ;
  }

  // this += q (affine, not infinity: the caller skips those).
  PACER_HD void add_affine(const affine_t<F>& q) {
    if (is_inf()) {
      X = q.x;
      Y = q.y;
      ZZ = F::one();
      ZZZ = F::one();
      return;
    }
    const F U2 = q.x * ZZ;
    const F S2 = q.y * ZZZ;
    const F P = U2 - X;
    const F R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) dbl();  // q equals this point
      else *this = inf();      // q is its opposite
      return;
    }
    const F PP = P.sqr();
    const F PPP = P * PP;
    const F Q = X * PP;
    const F X3 = R.sqr() - PPP - Q.dbl();
    Y = R * (Q - X3) - Y * PPP;
    X = X3;
    ZZ = ZZ * PP;
    ZZZ = ZZZ * PPP;
  }

  // this += q (both XYZZ).
  PACER_HD void add(const xyzz_t& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    const F U1 = X * q.ZZ;
    const F U2 = q.X * ZZ;
    const F S1 = Y * q.ZZZ;
    const F S2 = q.Y * ZZZ;
    const F P = U2 - U1;
    const F R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero()) dbl();
      else *this = inf();
      return;
    }
    const F PP = P.sqr();
    const F PPP = P * PP;
    const F Q = U1 * PP;
    const F X3 = R.sqr() - PPP - Q.dbl();
    Y = R * (Q - X3) - S1 * PPP;
    X = X3;
    ZZ = ZZ * q.ZZ * PP;
    ZZZ = ZZZ * q.ZZZ * PPP;
  }

  // Jacobian (X', Y', Z') with Z' = ZZ·ZZZ: X' = X·ZZ·ZZZ^2, Y' = Y·ZZ^3·ZZZ^2 (no inversion).
  // Writes X', Y', Z' (Z' = 0 for infinity, with X' = Y' = one as the framework's identity).
  PACER_HD void to_jacobian(F& Xj, F& Yj, F& Zj) const {
    if (is_inf()) {
      Xj = F::one();
      Yj = F::one();
      Zj = F::zero();
      return;
    }
    const F zzz2 = ZZZ.sqr();
    Zj = ZZ * ZZZ;
    Xj = X * ZZ * zzz2;
    Yj = Y * ZZ.sqr() * ZZ * zzz2;
  }
};

}  // namespace pacer::cuda::ec

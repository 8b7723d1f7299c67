#pragma once
// Short-Weierstrass curves y^2 = x^3 + b (a = 0) over F (Fq for G1, Fq2 for G2): one template
// for every group. Jacobian coordinates; Z = 0 is the point at infinity.
#include <cstddef>

#include "pacer/math/field.hpp"

namespace pacer::math {

// Group: `using Field = ...; static Field b();`
template <class Group>
struct Affine {
  using F = typename Group::Field;
  // (0, 0) is the point at infinity: never on a curve with b != 0, and no flag keeps a G1 point
  // at exactly one cache line (64 bytes on BN254), which the MSM's random bucket access wants.
  F x, y;

  static Affine identity() { return Affine(); }
  static Affine of(const F& x, const F& y) {
    Affine a;
    a.x = x;
    a.y = y;
    return a;
  }
  bool is_identity() const { return x.is_zero() && y.is_zero(); }
  bool on_curve() const { return is_identity() || y.sqr() == x.sqr() * x + Group::b(); }
  Affine operator-() const { return of(x, -y); }  // -(0, 0) = (0, 0): infinity stays itself
  friend bool operator==(const Affine& a, const Affine& b) { return a.x == b.x && a.y == b.y; }
};

template <class Group>
struct Jacobian {
  using F = typename Group::Field;
  F X = F::one(), Y = F::one(), Z = F::zero();

  static Jacobian identity() { return Jacobian(); }
  static Jacobian from(const Affine<Group>& a) {
    Jacobian j;
    if (!a.is_identity()) {
      j.X = a.x;
      j.Y = a.y;
      j.Z = F::one();
    }
    return j;
  }
  bool is_identity() const { return Z.is_zero(); }

  // dbl-2009-l
  Jacobian dbl() const {
    if (is_identity()) return *this;
    F A = X.sqr(), B = Y.sqr(), C = B.sqr();
    F D = ((X + B).sqr() - A - C).dbl();
    F E = A.dbl() + A;
    F Fv = E.sqr();
    Jacobian r;
    r.X = Fv - D.dbl();
    r.Y = E * (D - r.X) - C.dbl().dbl().dbl();
    r.Z = (Y * Z).dbl();
    return r;
  }

  // add-2007-bl, with the equal-points and opposite-points cases handled.
  friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    F Z1Z1 = p.Z.sqr(), Z2Z2 = q.Z.sqr();
    F U1 = p.X * Z2Z2, U2 = q.X * Z1Z1;
    F S1 = p.Y * q.Z * Z2Z2, S2 = q.Y * p.Z * Z1Z1;
    F H = U2 - U1;
    F rr = (S2 - S1).dbl();
    if (H.is_zero()) return rr.is_zero() ? p.dbl() : identity();
    F I = H.dbl().sqr(), J = H * I, V = U1 * I;
    Jacobian r;
    r.X = rr.sqr() - J - V.dbl();
    r.Y = rr * (V - r.X) - (S1 * J).dbl();
    r.Z = ((p.Z + q.Z).sqr() - Z1Z1 - Z2Z2) * H;
    return r;
  }

  // Mixed addition with an affine point (madd-2007-bl): the MSM's inner operation.
  Jacobian add_affine(const Affine<Group>& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) return from(q);
    F Z1Z1 = Z.sqr();
    F U2 = q.x * Z1Z1, S2 = q.y * Z * Z1Z1;
    F H = U2 - X;
    F rr = (S2 - Y).dbl();
    if (H.is_zero()) return rr.is_zero() ? dbl() : identity();
    F HH = H.sqr(), I = HH.dbl().dbl(), J = H * I, V = X * I;
    Jacobian r;
    r.X = rr.sqr() - J - V.dbl();
    r.Y = rr * (V - r.X) - (Y * J).dbl();
    r.Z = (Z + H).sqr() - Z1Z1 - HH;
    return r;
  }

  Jacobian operator-() const {
    Jacobian r = *this;
    r.Y = -r.Y;
    return r;
  }
  friend Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }
  Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }

  Affine<Group> to_affine() const {
    if (is_identity()) return Affine<Group>::identity();
    F zi = Z.inv(), zi2 = zi.sqr();
    return Affine<Group>::of(X * zi2, Y * zi2 * zi);
  }
  friend bool operator==(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity() || q.is_identity()) return p.is_identity() && q.is_identity();
    F Z1Z1 = p.Z.sqr(), Z2Z2 = q.Z.sqr();
    return p.X * Z2Z2 == q.X * Z1Z1 && p.Y * q.Z * Z2Z2 == q.Y * p.Z * Z1Z1;
  }

  // k*P for a standard-form scalar (double-and-add; for assembly and tests, not for MSMs).
  template <size_t M>
  Jacobian mul(const Limbs<M>& k) const {
    Jacobian acc;
    for (size_t i = limbs_bit_length(k); i-- > 0;) {
      acc = acc.dbl();
      if (limbs_bit(k, i)) acc += *this;
    }
    return acc;
  }
};

}  // namespace pacer::math

#pragma once
// The optimal ate pairing e: G1 × G2 → Fq12 of BN254 and BLS12-381, one template over the
// curve's Pairing traits (curves.hpp): a Miller loop over the family's loop count (6z + 2 and two
// Frobenius lines for BN, |z| for BLS12), then the final exponentiation (q^12 - 1)/r split into
// its easy part (q^6 - 1)(q^2 + 1) and a hard part through powers of z.
//
// The hard parts compute the same multiple of (q^4 - q^2 + 1)/r as snarkjs (ffjavascript),
// gnark and arkworks do: 2z(6z² + 3z + 1) on BN254 and 3 on BLS12-381, both prime to r. So
// e(α, β) here is bit for bit the vk_alphabeta_12 that snarkjs writes, and any pairing product
// equals 1 exactly when it does for the textbook exponent.
//
// Points are affine and lines are evaluated with one Fq2 inversion per step: a verification runs
// four pairings, where clarity is worth more than the ~2x of projective formulas.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "pacer/math/curves.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/math/tower.hpp"

namespace pacer::math {

template <class Curve>
using Gt = Fp12<Curve>;

template <class Curve>
struct PairingInput {
  Affine<typename Curve::G1> p;
  Affine<typename Curve::G2> q;
};

// ψ^n(Q) for n = 1, 2, 3: the q^n-power Frobenius of the untwisted point, twisted back; an
// endomorphism of the twist with ψ² - tψ + q = 0 (t the trace of G1's curve). With
// w^(q^n) = w·γn,1 and γn,k = ξ^(k(q^n - 1)/6): D-type (x w², y w³) ↦ (x^(q^n) γn,2 w², y^(q^n) γn,3 w³);
// M-type (x/w², y/w³) ↦ (x^(q^n)/γn,2 / w², y^(q^n)/γn,3 / w³). x^q on Fq2 is the conjugate.
template <class Curve>
const std::array<std::array<typename Curve::Fq2, 2>, 3>& twist_frobenius_factors() {
  using Fq2 = typename Curve::Fq2;
  static const auto factors = [] {
    std::array<std::array<Fq2, 2>, 3> f{};
    const auto& gamma = Fp12<Curve>::frobenius_coefficients();
    for (unsigned i = 0; i < 3; ++i) {
      const bool d_type = Curve::Pairing::twist == TwistType::d_type;
      f[i][0] = d_type ? gamma[i][2] : gamma[i][2].inv();
      f[i][1] = d_type ? gamma[i][3] : gamma[i][3].inv();
    }
    return f;
  }();
  return factors;
}

template <class Curve>
Affine<typename Curve::G2> twist_frobenius(const Affine<typename Curve::G2>& q, unsigned n) {
  using Fq2 = typename Curve::Fq2;
  const auto& factors = twist_frobenius_factors<Curve>();
  if (q.is_identity()) return q;
  const Fq2 x = n % 2 ? fp2_conjugate(q.x) : q.x, y = n % 2 ? fp2_conjugate(q.y) : q.y;
  return Affine<typename Curve::G2>::of(x * factors[n - 1][0], y * factors[n - 1][1]);
}

// The same map on Jacobian coordinates, without an inversion: with x = X/Z², y = Y/Z³ and the
// Frobenius a field automorphism, (X:Y:Z) ↦ (X^(q^n)·f0 : Y^(q^n)·f1 : Z^(q^n)).
template <class Curve>
Jacobian<typename Curve::G2> twist_frobenius(const Jacobian<typename Curve::G2>& q, unsigned n) {
  const auto& factors = twist_frobenius_factors<Curve>();
  if (q.is_identity()) return q;
  Jacobian<typename Curve::G2> r;
  const bool odd = n % 2;
  r.X = (odd ? fp2_conjugate(q.X) : q.X) * factors[n - 1][0];
  r.Y = (odd ? fp2_conjugate(q.Y) : q.Y) * factors[n - 1][1];
  r.Z = odd ? fp2_conjugate(q.Z) : q.Z;
  return r;
}

namespace detail {

template <class Curve>
struct Pairings {
  using Fq = typename Curve::Fq;
  using Fq2 = typename Curve::Fq2;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  using P1 = Affine<G1>;
  using P2 = Affine<G2>;
  using F12 = Fp12<Curve>;
  using Traits = typename Curve::Pairing;

  // The line through T with slope λ (on the twist), evaluated at P after untwisting. D-type:
  // ψ(x, y) = (x w², y w³) gives yP - λ xP w + (λ xT - yT) w³; M-type: ψ(x, y) = (x/w², y/w³)
  // gives the same terms over w^-3, scaled here by w³ (an Fq4 factor, which the final
  // exponentiation removes) to λ xT - yT - λ xP w² + yP w³.
  static F12 line(const Fq2& lambda, const P2& t, const P1& p) {
    const Fq2 yp(p.y, Fq::zero());
    const Fq2 slope_at_p = -fp2_scale(lambda, p.x);
    const Fq2 constant = lambda * t.x - t.y;
    std::array<Fq2, 6> a{};
    if constexpr (Traits::twist == TwistType::d_type) {
      a[0] = yp, a[1] = slope_at_p, a[3] = constant;
    } else {
      a[0] = constant, a[2] = slope_at_p, a[3] = yp;
    }
    return F12::from_coefficients(a);
  }

  // T ← 2T; returns the tangent at T evaluated at P (1 when T is the identity: only vertical
  // lines meet it, and those vanish in the final exponentiation).
  static F12 double_step(P2& t, const P1& p) {
    if (t.is_identity() || t.y.is_zero()) {
      t = P2::identity();
      return F12::one();
    }
    const Fq2 x2 = t.x.sqr();
    const Fq2 lambda = (x2 + x2 + x2) * t.y.dbl().inv();
    const F12 l = line(lambda, t, p);
    const Fq2 x3 = lambda.sqr() - t.x.dbl();
    t = P2::of(x3, lambda * (t.x - x3) - t.y);
    return l;
  }

  // T ← T + Q; returns the chord through T and Q evaluated at P.
  static F12 add_step(P2& t, const P2& q, const P1& p) {
    if (q.is_identity()) return F12::one();
    if (t.is_identity()) {
      t = q;
      return F12::one();
    }
    if (t.x == q.x) {
      if (t.y == q.y) return double_step(t, p);
      t = P2::identity();  // T = -Q: a vertical line
      return F12::one();
    }
    const Fq2 lambda = (q.y - t.y) * (q.x - t.x).inv();
    const F12 l = line(lambda, t, p);
    const Fq2 x3 = lambda.sqr() - t.x - q.x;
    t = P2::of(x3, lambda * (t.x - x3) - t.y);
    return l;
  }

  static unsigned __int128 loop_count() {
    if constexpr (Traits::family == PairingFamily::bn) return 6 * (unsigned __int128)Traits::z_abs + 2;
    else return Traits::z_abs;
  }

  // Π f_i for every pair, with one shared squaring per step (a "multi-Miller loop").
  static F12 miller_loop(std::span<const PairingInput<Curve>> pairs) {
    static_assert(Traits::family == PairingFamily::bls12 || !Traits::z_negative,
                  "BN Miller loop written for z > 0 (BN254)");
    std::vector<PairingInput<Curve>> live;
    for (const auto& in : pairs)
      if (!in.p.is_identity() && !in.q.is_identity()) live.push_back(in);  // e(O, Q) = e(P, O) = 1
    std::vector<P2> t;
    for (const auto& in : live) t.push_back(in.q);
    const unsigned __int128 count = loop_count();
    int top = 127;
    while (!((count >> top) & 1)) --top;
    F12 f = F12::one();
    for (int bit = top - 1; bit >= 0; --bit) {
      f = f.sqr();
      for (size_t i = 0; i < live.size(); ++i) f *= double_step(t[i], live[i].p);
      if ((count >> bit) & 1)
        for (size_t i = 0; i < live.size(); ++i) f *= add_step(t[i], live[i].q, live[i].p);
    }
    if constexpr (Traits::family == PairingFamily::bn) {
      // The optimal ate pairing's two extra lines: through [6z+2]Q and π(Q), then through
      // that sum and -π²(Q).
      for (size_t i = 0; i < live.size(); ++i) {
        f *= add_step(t[i], twist_frobenius<Curve>(live[i].q, 1), live[i].p);
        f *= add_step(t[i], -twist_frobenius<Curve>(live[i].q, 2), live[i].p);
      }
    } else if constexpr (Traits::z_negative) {
      f = f.conjugate();  // f_{-|z|} = 1/f_{|z|} up to a vertical line; unitary after the easy part
    }
    return f;
  }

  // x^z in the cyclotomic subgroup (where the inverse is the conjugate).
  static F12 pow_z(const F12& x) {
    F12 r = pow_limbs(x, Limbs<1>{Traits::z_abs});
    return Traits::z_negative ? r.conjugate() : r;
  }

  static F12 final_exponentiation(const F12& f) {
    F12 e = f.conjugate() * f.inv();  // f^(q^6 - 1)
    e = e.frobenius(2) * e;           // ^(q^2 + 1): now in the cyclotomic subgroup
    if constexpr (Traits::family == PairingFamily::bn) {
      // e^λ, λ = λ0 + λ1 q + λ2 q² + λ3 q³ = 2z(6z² + 3z + 1)·(q^4 - q^2 + 1)/r with
      // λ3 = 12z³ + 6z² + 4z - 1, λ2 = 12z³ + 6z² + 6z, λ1 = 12z³ + 6z² + 4z, λ0 = 12z³ + 12z² + 6z + 1
      // (Fuentes-Castañeda, Knapp, Rodríguez-Henríquez, "Faster hashing to G2").
      const F12 ez = pow_z(e), ez2 = pow_z(ez), ez3 = pow_z(ez2);
      const F12 ez3_3 = ez3.sqr() * ez3, ez2_3 = ez2.sqr() * ez2;
      const F12 ez3_12 = ez3_3.sqr().sqr(), ez2_6 = ez2_3.sqr();
      const F12 a = ez3_12 * ez2_6;                     // e^(12z³ + 6z²)
      const F12 ez_2 = ez.sqr(), ez_4 = ez_2.sqr();
      const F12 ez_6 = ez_4 * ez_2;
      const F12 e1 = a * ez_4;                          // λ1
      const F12 e3 = e1 * e.conjugate();                // λ3
      const F12 e2 = a * ez_6;                          // λ2
      const F12 e0 = e2 * ez2_6 * e;                    // λ0
      return e0 * e1.frobenius(1) * e2.frobenius(2) * e3.frobenius(3);
    } else {
      // e^(3(q^4 - q^2 + 1)/r) with 3(q^4 - q^2 + 1)/r = (z - 1)²(z + q)(z² + q² - 1) + 3
      // (Hayashida, Hayasaka, Teruya, "Efficient final exponentiation via cyclotomic structure").
      F12 a = pow_z(e) * e.conjugate();                 // e^(z - 1)
      a = pow_z(a) * a.conjugate();                     // e^((z - 1)²)
      const F12 b = pow_z(a) * a.frobenius(1);          // a^(z + q)
      const F12 c = pow_z(pow_z(b)) * b.frobenius(2) * b.conjugate();  // b^(z² + q² - 1)
      return c * e.sqr() * e;
    }
  }
};

}  // namespace detail

template <class Curve>
Gt<Curve> miller_loop(std::span<const PairingInput<Curve>> pairs) {
  return detail::Pairings<Curve>::miller_loop(pairs);
}

template <class Curve>
Gt<Curve> final_exponentiation(const Gt<Curve>& f) {
  return detail::Pairings<Curve>::final_exponentiation(f);
}

template <class Curve>
Gt<Curve> pairing(const Affine<typename Curve::G1>& p, const Affine<typename Curve::G2>& q) {
  const PairingInput<Curve> in{p, q};
  return final_exponentiation<Curve>(miller_loop<Curve>(std::span(&in, 1)));
}

// Π e(p_i, q_i) == 1, with one shared Miller loop and one final exponentiation.
template <class Curve>
bool pairing_product_is_one(std::span<const PairingInput<Curve>> pairs) {
  return final_exponentiation<Curve>(miller_loop<Curve>(pairs)).is_one();
}

}  // namespace pacer::math

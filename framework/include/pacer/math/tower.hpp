#pragma once
// The extension tower above Fq2 that pairings land in, one template for both curves:
//   Fq6  = Fq2[v] / (v^3 - ξ)
//   Fq12 = Fq6[w] / (w^2 - v)      (so w^6 = ξ)
// with ξ = Curve::Pairing::nonresidue() (9 + u on BN254, 1 + u on BLS12-381), the tower snarkjs,
// gnark and arkworks use, so an Fq12 value is written the same way they write it
// (vk_alphabeta_12: [c0, c1], each [c0, c1, c2] of Fq2). Frobenius coefficients are derived
// from ξ and q at first use, not tabulated: the curve's constants stay its primes and ξ.
#include <array>
#include <cstdint>

#include "pacer/math/field.hpp"
#include "pacer/math/fp2.hpp"

namespace pacer::math {

// x^e over any type with one(), sqr() and *, for a standard-form exponent.
template <class T, size_t M>
T pow_limbs(const T& x, const Limbs<M>& e) {
  T r = T::one();
  for (size_t i = limbs_bit_length(e); i-- > 0;) {
    r = r.sqr();
    if (limbs_bit(e, i)) r = r * x;
  }
  return r;
}

template <class F>
constexpr Fp2<F> fp2_conjugate(const Fp2<F>& a) {  // the Frobenius map of Fq2 (u^q = -u, q ≡ 3 mod 4)
  return {a.c0, -a.c1};
}

template <class F>
constexpr Fp2<F> fp2_scale(const Fp2<F>& a, const F& s) {
  return {a.c0 * s, a.c1 * s};
}

template <class Curve>
struct Fp6 {
  using Fq = typename Curve::Fq;
  using Fq2 = typename Curve::Fq2;
  Fq2 c0, c1, c2;  // c0 + c1·v + c2·v²

  static Fq2 xi() { return Curve::Pairing::nonresidue(); }
  static Fp6 zero() { return {}; }
  static Fp6 one() { return {Fq2::one(), Fq2::zero(), Fq2::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  friend bool operator==(const Fp6& a, const Fp6& b) { return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2; }
  friend bool operator!=(const Fp6& a, const Fp6& b) { return !(a == b); }
  friend Fp6 operator+(const Fp6& a, const Fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend Fp6 operator-(const Fp6& a, const Fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  Fp6 operator-() const { return {-c0, -c1, -c2}; }

  // Karatsuba over the three coefficients: six Fq2 products instead of nine.
  friend Fp6 operator*(const Fp6& a, const Fp6& b) {
    const Fq2 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, t2 = a.c2 * b.c2;
    const Fq2 x = (a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2;  // c1c2' + c2c1'
    const Fq2 y = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1;  // c0c1' + c1c0'
    const Fq2 z = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2;  // c0c2' + c2c0'
    return {t0 + x * xi(), y + t2 * xi(), z + t1};
  }
  Fp6 sqr() const { return *this * *this; }
  // v·(c0 + c1 v + c2 v²) = ξ c2 + c0 v + c1 v²: the step from Fq6 to Fq12's w² = v.
  Fp6 mul_by_v() const { return {c2 * xi(), c0, c1}; }

  Fp6 inv() const {
    // The adjugate over the norm (cf. "Multiplication and Squaring on Pairing-Friendly Fields",
    // Devegili et al.): one Fq2 inversion.
    const Fq2 a = c0.sqr() - (c1 * c2) * xi();
    const Fq2 b = c2.sqr() * xi() - c0 * c1;
    const Fq2 c = c1.sqr() - c0 * c2;
    const Fq2 norm = c0 * a + (c2 * b + c1 * c) * xi();
    const Fq2 n = norm.inv();
    return {a * n, b * n, c * n};
  }
};

template <class Curve>
struct Fp12 {
  using Fq = typename Curve::Fq;
  using Fq2 = typename Curve::Fq2;
  using Fq6 = Fp6<Curve>;
  Fq6 c0, c1;  // c0 + c1·w

  static Fp12 one() { return {Fq6::one(), Fq6::zero()}; }
  bool is_one() const { return *this == one(); }
  friend bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const Fp12& a, const Fp12& b) { return !(a == b); }
  friend Fp12 operator*(const Fp12& a, const Fp12& b) {
    const Fq6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 + t1.mul_by_v(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  Fp12& operator*=(const Fp12& b) { return *this = *this * b; }
  Fp12 sqr() const {  // (c0 + c1 w)² = c0² + v c1² + 2 c0 c1 w, with two Fq6 products
    const Fq6 t = c0 * c1;
    return {(c0 + c1) * (c0 + c1.mul_by_v()) - t - t.mul_by_v(), t + t};
  }
  // The q^6-th power: w^(q^6) = -w. For elements of the cyclotomic subgroup (every value after
  // the final exponentiation's first part) it is the inverse, at no cost.
  Fp12 conjugate() const { return {c0, -c1}; }
  Fp12 inv() const {  // 1/(c0 + c1 w) = (c0 - c1 w) / (c0² - v c1²)
    const Fq6 n = (c0.sqr() - c1.sqr().mul_by_v()).inv();
    return {c0 * n, -(c1 * n)};
  }

  // The six Fq2 coefficients a_k of Σ a_k w^k (k = 0..5): c0 = a0 + a2 v + a4 v², c1 = a1 + a3 v + a5 v².
  std::array<Fq2, 6> coefficients() const { return {c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2}; }
  static Fp12 from_coefficients(const std::array<Fq2, 6>& a) { return {{a[0], a[2], a[4]}, {a[1], a[3], a[5]}}; }

  // x^(q^n) for n = 1, 2, 3: (a_k w^k)^(q^n) = conj^n(a_k) · w^k · ξ^(k (q^n - 1)/6).
  Fp12 frobenius(unsigned n) const {
    const auto& gamma = frobenius_coefficients();
    auto a = coefficients();
    for (size_t k = 0; k < 6; ++k) {
      if (n % 2 == 1) a[k] = fp2_conjugate(a[k]);
      a[k] = a[k] * gamma[n - 1][k];
    }
    return from_coefficients(a);
  }

  // gamma[n-1][k] = ξ^(k (q^n - 1)/6), for n = 1, 2, 3: from γ1 = ξ^((q-1)/6), because
  // (q^n - 1)/6 = (q - 1)/6 · (1 + q + ... + q^(n-1)) and x^q = conj(x) on Fq2.
  static const std::array<std::array<Fq2, 6>, 3>& frobenius_coefficients() {
    static const auto table = [] {
      auto e = Fq::P;
      e[0] -= 1;  // q - 1, divisible by 6 on both curves (q ≡ 1 mod 6: a cube root of unity exists)
      e = divide_small(e, 6);
      std::array<std::array<Fq2, 6>, 3> g{};
      const Fq2 g1 = pow_limbs(Fq6::xi(), e);
      Fq2 power = Fq2::one();
      for (size_t k = 0; k < 6; ++k, power = power * g1) g[0][k] = power;
      for (size_t k = 0; k < 6; ++k) {
        g[1][k] = g[0][k] * fp2_conjugate(g[0][k]);  // (1 + q)
        g[2][k] = g[1][k] * g[0][k];                    // (1 + q + q²): conj² is the identity
      }
      return g;
    }();
    return table;
  }

 private:
  template <size_t N>
  static Limbs<N> divide_small(const Limbs<N>& a, uint64_t d) {
    Limbs<N> out{};
    u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      const u128 cur = (rem << 64) | a[i];
      out[i] = uint64_t(cur / d);
      rem = cur % d;
    }
    return out;
  }
};

}  // namespace pacer::math

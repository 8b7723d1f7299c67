#pragma once
// The arithmetic oracles of the conformance kit, in GMP alone: the roots snarkjs uses
// (ω_n = 5^((r-1)/n), the odd coset's shift ω_2n), a naive O(n²) evaluation of compute_h, and
// A·w, B·w, a∘b over a key's records.
#include <cstring>
#include <span>
#include <vector>

#include "synthesis_oracle.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/types.hpp"

namespace pacer::conformance {

using test::Mpz;
using test::ScalarField;
using test::Synthesis;
using test::expected_synthesis;

// The values e_i at ω^i, interpolated and evaluated at g·ω^i (g = ω_2n), naively.
inline std::vector<Mpz> on_odd_coset(const ScalarField& f, const std::vector<Mpz>& e) {
  const size_t n = e.size();
  const Mpz w = f.root(n), g = f.root(2 * n);
  std::vector<Mpz> w_pow(n), coeff(n), out(n);
  mpz_set_ui(w_pow[0].z, 1);
  for (size_t k = 1; k < n; ++k) {
    mpz_mul(w_pow[k].z, w_pow[k - 1].z, w.z);
    mpz_mod(w_pow[k].z, w_pow[k].z, f.r.z);
  }
  Mpz n_inv, t, g_pow;
  mpz_set_ui(n_inv.z, n);
  mpz_invert(n_inv.z, n_inv.z, f.r.z);
  mpz_set_ui(g_pow.z, 1);
  for (size_t j = 0; j < n; ++j) {  // c_j = g^j / n · Σ_i e_i ω^(-ij): the coefficient already shifted
    Mpz& c = coeff[j];
    for (size_t i = 0; i < n; ++i) {
      mpz_mul(t.z, e[i].z, w_pow[(n - (i * j) % n) % n].z);
      mpz_add(c.z, c.z, t.z);
    }
    mpz_mod(c.z, c.z, f.r.z);
    mpz_mul(c.z, c.z, n_inv.z);
    mpz_mul(c.z, c.z, g_pow.z);
    mpz_mod(c.z, c.z, f.r.z);
    mpz_mul(g_pow.z, g_pow.z, g.z);
    mpz_mod(g_pow.z, g_pow.z, f.r.z);
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      mpz_mul(t.z, coeff[j].z, w_pow[(i * j) % n].z);
      mpz_add(out[i].z, out[i].z, t.z);
    }
    mpz_mod(out[i].z, out[i].z, f.r.z);
  }
  return out;
}

// What compute_h must leave: h_i = A(gω^i)·B(gω^i) - C(gω^i), from a, b, c in Montgomery form.
inline std::vector<Mpz> expected_h(const ScalarField& f, std::span<const Fr256> a, std::span<const Fr256> b,
                                   std::span<const Fr256> c) {
  auto values = [&](std::span<const Fr256> x) {
    std::vector<Mpz> v;
    for (const auto& e : x) v.push_back(f.from_montgomery(e));
    return on_odd_coset(f, v);
  };
  const auto A = values(a), B = values(b), C = values(c);
  std::vector<Mpz> h(A.size());
  for (size_t i = 0; i < h.size(); ++i) {
    mpz_mul(h[i].z, A[i].z, B[i].z);
    mpz_sub(h[i].z, h[i].z, C[i].z);
    mpz_mod(h[i].z, h[i].z, f.r.z);
  }
  return h;
}

}  // namespace pacer::conformance

#pragma once
// GMP oracles of the scalar field and of synthesis, for the unit tests and the backend conformance
// kit: a key's values from Montgomery form, and a = A·w, b = B·w, c = a∘b straight from a key's
// records.
#include <cstring>
#include <span>
#include <vector>

#include "gmp_oracle.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/types.hpp"

namespace pacer::test {

struct ScalarField {
  Mpz r, r_inv;  // the prime and 2^-256 mod r (Montgomery form -> value)
  explicit ScalarField(CurveId curve) : r(to_mpz(curve_scalar_prime(curve))) {
    Mpz two256;
    mpz_ui_pow_ui(two256.z, 2, 256);
    mpz_invert(r_inv.z, two256.z, r.z);
  }
  // 5^((r-1)/order) mod r: snarkjs's root of unity of that order.
  Mpz root(uint64_t order) const {
    Mpz e, five, out;
    mpz_sub_ui(e.z, r.z, 1);
    mpz_divexact_ui(e.z, e.z, order);
    mpz_set_ui(five.z, 5);
    mpz_powm(out.z, five.z, e.z, r.z);
    return out;
  }
  Mpz from_montgomery(const Fr256& x) const {
    Mpz v = to_mpz(x);
    mpz_mul(v.z, v.z, r_inv.z);
    mpz_mod(v.z, v.z, r.z);
    return v;
  }
  Mpz standard(const Fr256& x) const { return to_mpz(x); }
};

// a (matrix 0) and b (matrix 1) over the key's records, c = a·b, as integers mod r. Records hold
// v·R² (R = 2^256), the witness standard-form values.
struct Synthesis {
  std::vector<Mpz> a, b, c;
};
inline Synthesis expected_synthesis(const ScalarField& f, const ProvingKey& key, std::span<const Fr256> witness) {
  const size_t n = key.domain_size, record = 12 + key.n8r;
  Synthesis s{std::vector<Mpz>(n), std::vector<Mpz>(n), std::vector<Mpz>(n)};
  Mpz r_inv2, term;
  mpz_mul(r_inv2.z, f.r_inv.z, f.r_inv.z);
  for (uint32_t i = 0; i < key.n_coeffs; ++i) {
    const std::byte* rec = key.coeffs.data() + size_t(i) * record;
    uint32_t head[3];
    std::memcpy(head, rec, sizeof head);
    Fr256 stored;
    std::memcpy(stored.data(), rec + 12, sizeof stored);
    term = to_mpz(stored);
    mpz_mul(term.z, term.z, r_inv2.z);
    mpz_mul(term.z, term.z, to_mpz(witness[head[2]]).z);
    Mpz& sum = (head[0] == 0 ? s.a : s.b)[head[1]];
    mpz_add(sum.z, sum.z, term.z);
    mpz_mod(sum.z, sum.z, f.r.z);
  }
  for (size_t i = 0; i < n; ++i) {
    mpz_mul(s.c[i].z, s.a[i].z, s.b[i].z);
    mpz_mod(s.c[i].z, s.c[i].z, f.r.z);
  }
  return s;
}

}  // namespace pacer::test

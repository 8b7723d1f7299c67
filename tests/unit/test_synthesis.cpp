// Synthesis on the CPU (pacer/cpu/synthesis.hpp over pacer/formats/constraint_rows.hpp) against
// GMP: a_i = Σ v·w over the zkey's records for constraint i, straight from the file's bytes.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "gmp_oracle.hpp"
#include "ifma_paths.hpp"
#include "pacer/cpu/kernels.hpp"
#include "pacer/formats/constraint_rows.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/thread_pool.hpp"

namespace {

using pacer::Fr256;
using pacer::test::Mpz;

const std::string kCircuits = std::string(PACER_SOURCE_DIR) + "/examples/circuits/";

uint32_t u32_at(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// a (matrix 0) and b (matrix 1) as integers mod r, from the records in file order; c = a·b.
struct Expected {
  std::vector<Mpz> a, b, c;
};
Expected expected_by_gmp(const pacer::ProvingKey& key, const pacer::Witness& w) {
  const size_t n = key.domain_size, record = 12 + key.n8r;
  Expected e;
  e.a.resize(n);
  e.b.resize(n);
  e.c.resize(n);
  const Mpz r = pacer::test::to_mpz(pacer::curve_scalar_prime(key.curve));
  Mpz r_inv2, two256;  // coefficients are stored as v·R² with R = 2^256
  mpz_ui_pow_ui(two256.z, 2, 256);
  mpz_invert(r_inv2.z, two256.z, r.z);
  mpz_mul(r_inv2.z, r_inv2.z, r_inv2.z);
  mpz_mod(r_inv2.z, r_inv2.z, r.z);
  for (uint32_t i = 0; i < key.n_coeffs; ++i) {
    const std::byte* rec = key.coeffs.data() + size_t(i) * record;
    const uint32_t matrix = u32_at(rec), row = u32_at(rec + 4), wire = u32_at(rec + 8);
    Fr256 stored;
    std::memcpy(stored.data(), rec + 12, sizeof stored);
    Mpz term = pacer::test::to_mpz(stored);
    mpz_mul(term.z, term.z, r_inv2.z);
    mpz_mul(term.z, term.z, pacer::test::to_mpz(w.values[wire]).z);
    auto& sum = (matrix == 0 ? e.a : e.b)[row];
    mpz_add(sum.z, sum.z, term.z);
    mpz_mod(sum.z, sum.z, r.z);
  }
  for (size_t i = 0; i < n; ++i) {
    mpz_mul(e.c[i].z, e.a[i].z, e.b[i].z);
    mpz_mod(e.c[i].z, e.c[i].z, r.z);
  }
  return e;
}

// A Montgomery-form result as the integer it stands for.
Mpz from_montgomery(const Fr256& x, const Mpz& r) {
  Mpz v = pacer::test::to_mpz(x), two256, inv;
  mpz_ui_pow_ui(two256.z, 2, 256);
  mpz_invert(inv.z, two256.z, r.z);
  mpz_mul(v.z, v.z, inv.z);
  mpz_mod(v.z, v.z, r.z);
  return v;
}

}  // namespace

TEST_CASE("cpu synthesis equals A·w, B·w and their product computed by GMP from the zkey's records",
          "[synthesis]") {
  pacer::ThreadPool pool(3);
  for (const char* circuit : {"poseidon3/bn128", "poseidon3/bls12381", "chain/bn128", "mul3/bls12381"}) {
    INFO(circuit);
    const auto key = pacer::read_zkey(kCircuits + circuit + "/circuit.zkey");
    const pacer::Witness w = pacer::read_wtns(kCircuits + circuit + "/witness.wtns");
    const auto rows = pacer::build_constraint_rows(*key, &pool);
    CHECK(rows->terms() == key->n_coeffs);
    CHECK(rows->start.size() == 2 * size_t(key->domain_size) + 1);
    const size_t n = key->domain_size;
    const Expected e = expected_by_gmp(*key, w);
    const Mpz r = pacer::test::to_mpz(pacer::curve_scalar_prime(key->curve));
    pacer::test::for_each_ifma_setting("synthesis", [&](const pacer::math::CpuKernels& kernels) {
      std::vector<Fr256> a(n), b(n), c(n);
      pacer::math::with_cpu_curve(key->curve, [&](auto curve) {
        using Fr = typename decltype(curve)::Fr;
        pacer::math::synthesize_rows<Fr>(*rows, w.values, a, b, c, &pool, nullptr, kernels);
      });
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i)
        bad += mpz_cmp(from_montgomery(a[i], r).z, e.a[i].z) != 0 ||
               mpz_cmp(from_montgomery(b[i], r).z, e.b[i].z) != 0 || mpz_cmp(from_montgomery(c[i], r).z, e.c[i].z) != 0;
      CHECK(bad == 0);
    });
  }
}

TEST_CASE("constraint rows keep the key's order within a row and put every record in its row", "[synthesis]") {
  pacer::ThreadPool pool(3);
  const auto key = pacer::read_zkey(kCircuits + "poseidon3/bn128/circuit.zkey");
  const auto rows = pacer::build_constraint_rows(*key, &pool);
  const size_t n = key->domain_size, record = 12 + key->n8r;
  // Walk the records in file order; each must be the next unused term of its row.
  std::vector<uint32_t> next(rows->start.begin(), rows->start.end() - 1);
  size_t bad = 0;
  for (uint32_t i = 0; i < key->n_coeffs; ++i) {
    const std::byte* rec = key->coeffs.data() + size_t(i) * record;
    const size_t slot = size_t(u32_at(rec)) * n + u32_at(rec + 4);
    const uint32_t at = next[slot]++;
    bad += at >= rows->start[slot + 1] || rows->wire[at] != u32_at(rec + 8) ||
           std::memcmp(rows->coef[at].data(), rec + 12, sizeof(Fr256)) != 0;
  }
  CHECK(bad == 0);
  for (size_t s = 0; s < 2 * n; ++s) bad += next[s] != rows->start[s + 1];
  CHECK(bad == 0);
}

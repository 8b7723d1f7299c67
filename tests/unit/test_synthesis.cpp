// Synthesis on the CPU (pacer/cpu/synthesis.hpp over pacer/formats/constraint_rows.hpp) against
// GMP: a_i = Σ v·w over the zkey's records for constraint i, straight from the file's bytes.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "gmp_oracle.hpp"
#include "synthesis_oracle.hpp"
#include "ifma_paths.hpp"
#include "pacer/cpu/kernels.hpp"
#include "pacer/formats/constraint_rows.hpp"
#include "pacer/formats/wtns.hpp"
#include "pacer/formats/zkey.hpp"
#include "pacer/thread_pool.hpp"

namespace {

using pacer::Fr256;

const std::string kCircuits = std::string(PACER_SOURCE_DIR) + "/examples/circuits/";

uint32_t u32_at(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
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
    const pacer::test::ScalarField f(key->curve);
    const pacer::test::Synthesis e = pacer::test::expected_synthesis(f, *key, w.values.span());
    pacer::test::for_each_ifma_setting("synthesis", [&](const pacer::math::CpuKernels& kernels) {
      std::vector<Fr256> a(n), b(n), c(n);
      pacer::math::with_cpu_curve(key->curve, [&](auto curve) {
        using Fr = typename decltype(curve)::Fr;
        pacer::math::synthesize_rows<Fr>(*rows, w.values, a, b, c, &pool, nullptr, kernels);
      });
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i)
        bad += mpz_cmp(f.from_montgomery(a[i]).z, e.a[i].z) != 0 ||
               mpz_cmp(f.from_montgomery(b[i]).z, e.b[i].z) != 0 || mpz_cmp(f.from_montgomery(c[i]).z, e.c[i].z) != 0;
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

TEST_CASE("records out of row order give the rows, and the synthesis, of the same records in order", "[synthesis]") {
  pacer::ThreadPool pool(3);
  const auto key = pacer::read_zkey(kCircuits + "chain/bn128/circuit.zkey");
  const pacer::Witness w = pacer::read_wtns(kCircuits + "chain/bn128/witness.wtns");
  // The same records, reversed: every row's terms now come last to first, and row order is gone.
  const size_t record = 12 + key->n8r;
  std::vector<std::byte> reversed(key->coeffs.size());
  for (uint32_t i = 0; i < key->n_coeffs; ++i)
    std::memcpy(reversed.data() + size_t(key->n_coeffs - 1 - i) * record, key->coeffs.data() + size_t(i) * record,
                record);
  pacer::ProvingKey shuffled = *key;
  shuffled.coeffs = reversed;
  const auto in_order = pacer::build_constraint_rows(*key, &pool);
  const auto out_of_order = pacer::build_constraint_rows(shuffled, &pool);
  REQUIRE(out_of_order->start == in_order->start);
  // Within a row the terms come in file order, so the wires of each row are reversed.
  size_t bad = 0;
  for (size_t s = 0; s + 1 < in_order->start.size(); ++s)
    for (uint32_t k = in_order->start[s], e = in_order->start[s + 1]; k < e; ++k)
      bad += out_of_order->wire[e - 1 - (k - in_order->start[s])] != in_order->wire[k];
  CHECK(bad == 0);
  const size_t n = key->domain_size;
  std::vector<Fr256> a(n), b(n), c(n), a2(n), b2(n), c2(n);
  pacer::math::with_cpu_curve(key->curve, [&](auto curve) {
    using Fr = typename decltype(curve)::Fr;
    pacer::math::synthesize_rows<Fr>(*in_order, w.values, a, b, c, &pool, nullptr, pacer::math::CpuKernels{});
    pacer::math::synthesize_rows<Fr>(*out_of_order, w.values, a2, b2, c2, &pool, nullptr, pacer::math::CpuKernels{});
  });
  CHECK(a == a2);
  CHECK(b == b2);
  CHECK(c == c2);
}

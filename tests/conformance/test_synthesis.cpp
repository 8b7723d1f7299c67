// A proof's vectors through a backend: synthesis (a = A·w, b = B·w, c = a∘b) against GMP over the
// key's records, then compute_h and the H MSM over what synthesis left, and the A MSM over the
// witness, against the oracles. Wherever the backend keeps the vectors (host buffers, or its
// device: then only the MSMs show them). Two proofs on different lanes: nothing is left behind.
#include <catch2/catch.hpp>

#include <algorithm>

#include "oracle.hpp"
#include "subject.hpp"

using namespace pacer;
using namespace pacer::conformance;

namespace {

// Records as a key's section 4 stores them: 0 to 4 terms a row of A and of B (wires repeat within
// a row; some rows empty; coefficients 0, 1 and r - 1 among them), then every 7th record swapped
// with a later one, so that rows arrive out of order as they may in a file.
template <class Curve>
std::vector<std::byte> random_records(size_t rows, size_t wires, std::mt19937_64& rng) {
  constexpr size_t kRecord = 12 + 32;
  const auto edges = field_edges<Curve>();
  std::vector<std::array<std::byte, kRecord>> records;
  for (uint32_t matrix = 0; matrix < 2; ++matrix)
    for (uint32_t row = 0; row < rows; ++row) {
      const size_t terms = (row * 5 + matrix) % 9 == 4 ? 0 : rng() % 5;
      for (size_t t = 0; t < terms; ++t) {
        std::array<std::byte, kRecord> rec{};
        const uint32_t head[3] = {matrix, row, uint32_t(rng() % wires)};
        Fr256 value = test::random_below_p<typename Curve::Fr>(rng);
        if (t == 1) value = edges[row % 3];
        std::memcpy(rec.data(), head, sizeof head);
        std::memcpy(rec.data() + 12, value.data(), 32);
        records.push_back(rec);
      }
    }
  for (size_t i = 0; i + 1 < records.size(); i += 7) std::swap(records[i], records[i + 1 + rng() % (records.size() - i - 1)]);
  std::vector<std::byte> bytes(records.size() * kRecord);
  for (size_t i = 0; i < records.size(); ++i) std::memcpy(bytes.data() + i * kRecord, records[i].data(), kRecord);
  return bytes;
}

template <class Curve>
void check_proof_vectors(size_t domain, size_t wires) {
  Subject& s = subject();
  KeyMaterial m = msm_key<Curve>(wires, domain, s.pool);
  std::mt19937_64 rng(domain * 5 + wires + (Curve::id == CurveId::bn254 ? 0 : 1));
  m.records = random_records<Curve>(domain, wires, rng);
  m.key->coeffs = m.records;
  m.key->n_coeffs = uint32_t(m.records.size() / (12 + 32));
  auto resident = s.backend->load(m.key);
  const bool on_device = s.backend->vectors(*resident) == VectorHome::device;
  const ScalarField f(Curve::id);
  const unsigned lanes = s.backend->info().lanes;
  INFO(curve_json_name(Curve::id) << ", domain " << domain << ", " << wires << " wires, "
                                  << m.key->n_coeffs << " records, vectors on the "
                                  << (on_device ? "device" : "host"));
  for (const Lane lane : {Lane(0), Lane(lanes - 1)}) {
    INFO("lane " << lane);
    auto w = field_values<Curve>(wires, 1, 4, rng);
    w[0] = Fr256{1, 0, 0, 0};  // wire 0 is the constant 1
    const Synthesis want = expected_synthesis(f, *m.key, w);
    std::vector<Fr256> want_h_scalars;
    // h = A·B - C on the odd coset, from the oracle's a, b, c.
    const auto A = on_odd_coset(f, want.a), B = on_odd_coset(f, want.b), C = on_odd_coset(f, want.c);
    for (size_t i = 0; i < domain; ++i) {
      Mpz h;
      mpz_mul(h.z, A[i].z, B[i].z);
      mpz_sub(h.z, h.z, C[i].z);
      mpz_mod(h.z, h.z, f.r.z);
      want_h_scalars.push_back(test::from_mpz<4>(h));
    }
    const PointBytes want_h = expected_msm<Curve>(Curve::g1_generator(), want_h_scalars, m.logs);
    const PointBytes want_a = expected_msm<Curve>(Curve::g1_generator(), w, m.logs);
    PointBytes got_h, got_a;
    if (on_device) {
      s.backend->synthesize(*resident, lane, w, {}, {}, {}, {});
      got_a = s.backend->msm_g1(*resident, lane, Basis::A, w, {});
      s.backend->compute_h(*resident, lane, {}, {}, {}, {});
      got_h = s.backend->msm_g1(*resident, lane, Basis::H, {}, {});
    } else {
      std::vector<Fr256> a(domain), b(domain), c(domain);
      s.backend->synthesize(*resident, lane, w, a, b, c, {});
      size_t wrong = 0;
      for (size_t i = 0; i < domain; ++i)
        wrong += mpz_cmp(f.from_montgomery(a[i]).z, want.a[i].z) != 0 ||
                 mpz_cmp(f.from_montgomery(b[i]).z, want.b[i].z) != 0 ||
                 mpz_cmp(f.from_montgomery(c[i]).z, want.c[i].z) != 0;
      CHECK(wrong == 0);
      got_a = s.backend->msm_g1(*resident, lane, Basis::A, w, {});
      s.backend->compute_h(*resident, lane, a, b, c, {});
      size_t wrong_h = 0;
      for (size_t i = 0; i < domain; ++i) wrong_h += a[i] != want_h_scalars[i];
      CHECK(wrong_h == 0);
      got_h = s.backend->msm_g1(*resident, lane, Basis::H, a, {});
    }
    s.backend->end_proof(lane);
    CHECK(hex(got_a) == hex(want_a));
    CHECK(hex(got_h) == hex(want_h));
  }
}

}  // namespace

TEMPLATE_TEST_CASE("synthesis, compute_h and the H MSM over what synthesis left equal the oracles, on any lane",
                   "[conformance][synthesis]", math::Bn254, math::Bls12_381) {
  struct Size {
    size_t domain, wires;
  };
  for (const Size size : {Size{2, 2}, Size{8, 5}, Size{64, 64}, Size{256, 131}, Size{512, 700}})
    check_proof_vectors<TestType>(size.domain, size.wires);
}

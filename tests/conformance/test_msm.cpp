// MSMs of a backend against points of known discrete logarithm: every G1 basis of a key (A, B1,
// C, H) and the G2 MSM, sizes 1 to 2^max_log with non-powers of two, edge scalars (0, 1, r - 1),
// repeated points, a point and its negation, points at infinity, all-zero scalars, every lane.
#include <catch2/catch.hpp>

#include "subject.hpp"

using namespace pacer;
using namespace pacer::conformance;

namespace {

std::vector<size_t> msm_sizes() {
  std::vector<size_t> sizes = {1, 2, 3, 5, 8, 9, 31, 100, 257, 1000};
  for (size_t log = 10; log <= subject().max_log; log += 2) {
    sizes.push_back(size_t(1) << log);
    sizes.push_back((size_t(1) << log) + 3);
  }
  return sizes;
}

size_t next_power_of_two(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

template <class Curve>
void check_msms(size_t n) {
  Subject& s = subject();
  const size_t domain = next_power_of_two(n);
  KeyMaterial m = msm_key<Curve>(n, domain, s.pool);
  auto resident = s.backend->load(m.key);
  std::mt19937_64 rng(n * 2 + (Curve::id == CurveId::bn254 ? 0 : 1));
  const auto k = edge_scalars<Curve>(std::max(n, domain), rng);
  const unsigned lanes = s.backend->info().lanes;
  INFO(curve_json_name(Curve::id) << ", " << n << " points, domain " << domain);
  unsigned call = 0;
  auto lane = [&] { return Lane(call++ % lanes); };  // every lane in turn
  struct Case {
    Basis basis;
    const char* name;
    size_t count;
  };
  for (const Case c : {Case{Basis::A, "A", n}, Case{Basis::B1, "B1", n}, Case{Basis::C, "C", n - 1},
                       Case{Basis::H, "H", domain}}) {
    if (c.count == 0) continue;
    INFO("G1 MSM over " << c.name);
    const auto scalars = std::span<const Fr256>(k).first(c.count);
    const Lane l = lane();
    const PointBytes got = s.backend->msm_g1(*resident, l, c.basis, scalars, {});
    s.backend->end_proof(l);
    CHECK(hex(got) == hex(expected_msm<Curve>(Curve::g1_generator(), scalars, m.logs)));
  }
  {
    INFO("G2 MSM over B2");
    const auto scalars = std::span<const Fr256>(k).first(n);
    const Lane l = lane();
    const PointBytes got = s.backend->msm_g2(*resident, l, scalars, {});
    s.backend->end_proof(l);
    CHECK(hex(got) == hex(expected_msm<Curve>(Curve::g2_generator(), scalars, m.logs)));
  }
  {
    INFO("all-zero scalars give the point at infinity");
    const std::vector<Fr256> zeros(n);
    const Lane l = lane();
    const PointBytes g1 = s.backend->msm_g1(*resident, l, Basis::A, zeros, {});
    const PointBytes g2 = s.backend->msm_g2(*resident, l, zeros, {});
    s.backend->end_proof(l);
    CHECK(hex(g1) == std::string(2 * g1.size, '0'));
    CHECK(hex(g2) == std::string(2 * g2.size, '0'));
  }
}

}  // namespace

TEMPLATE_TEST_CASE("G1 and G2 MSMs equal the sum over points of known discrete log, at every size and edge scalar",
                   "[conformance][msm]", math::Bn254, math::Bls12_381) {
  for (const size_t n : msm_sizes()) check_msms<TestType>(n);
}

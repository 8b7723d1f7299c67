// compute_h of a backend against a naive DFT in GMP (the backend interface has no NTT call of its
// own: its forward and inverse NTTs and the odd-coset shift are all inside compute_h), domains of
// 1 to 2^10 with the edge values 0, 1 and r - 1 among the inputs, every lane.
#include <catch2/catch.hpp>

#include "oracle.hpp"
#include "subject.hpp"

using namespace pacer;
using namespace pacer::conformance;

namespace {

template <class Curve>
void check_compute_h(size_t n) {
  Subject& s = subject();
  KeyMaterial m = msm_key<Curve>(n, n, s.pool);
  auto resident = s.backend->load(m.key);
  INFO(curve_json_name(Curve::id) << ", domain " << n);
  if (s.backend->vectors(*resident) != VectorHome::host) {
    WARN("the vectors of a key without constraint rows stay on the device: compute_h is checked through the H "
         "MSM of the synthesis suite only");
    return;
  }
  const ScalarField f(Curve::id);
  std::mt19937_64 rng(n * 3 + (Curve::id == CurveId::bn254 ? 0 : 1));
  for (unsigned lane = 0; lane < s.backend->info().lanes; ++lane) {
    INFO("lane " << lane);
    auto a = field_values<Curve>(n, 0, 3, rng), b = field_values<Curve>(n, 1, 3, rng),
         c = field_values<Curve>(n, 2, 3, rng);
    const std::vector<Mpz> want = expected_h(f, a, b, c);
    s.backend->compute_h(*resident, lane, a, b, c, {});
    s.backend->end_proof(lane);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += mpz_cmp(f.standard(a[i]).z, want[i].z) != 0;
    CHECK(wrong == 0);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("compute_h equals A·B - C on the odd coset by a naive DFT, domains 1 to 2^10",
                   "[conformance][compute_h]", math::Bn254, math::Bls12_381) {
  for (const size_t n : {1, 2, 4, 8, 16, 64, 256, 1024}) check_compute_h<TestType>(n);
}

// The engine's own stage work: assembly (out of prover.cpp, which runs the stage graph).
// Curve-specific work is templated over the curve traits.
#include "proof_stages.hpp"

#include <cstring>

#include <nlohmann/json.hpp>

#include "math/host_curves.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/os_random.hpp"
#include "pacer/thread_pool.hpp"
#include "point_json.hpp"

namespace pacer {
namespace {

using namespace pacer::math;

// Uniform in [0, r) from the OS CSPRNG, by rejection.
template <class Fr>
Fr256 random_scalar() {
  const size_t bits = limbs_bit_length(Fr::P);
  for (;;) {
    auto k = os_random_value<Fr256>();
    k[3] &= (uint64_t(1) << (bits - 192)) - 1;
    if (!limbs_geq(k, Fr::P)) return k;
  }
}

template <class Curve>
ProofJson assemble_on(const ProvingKey& key, const ProofPoints& points, const Witness& w, bool zero_blinding,
                      ThreadPool* pool) {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  using J1 = Jacobian<G1>;
  using J2 = Jacobian<G2>;
  auto g1 = [](std::span<const std::byte> s) { return J1::from(decode_point<G1>(s.data())); };
  auto g2 = [](std::span<const std::byte> s) { return J2::from(decode_point<G2>(s.data())); };
  Fr256 r{}, s{};
  if (!zero_blinding) r = random_scalar<Fr>(), s = random_scalar<Fr>();
  const Fr256 rs = (Fr::from_std(r) * Fr::from_std(s)).to_std();
  const J1 delta1 = g1(key.delta1);
  // Spec §6.6. Six scalar multiplications, the proof's last step (1.5-2.3 ms of a 2^13 proof one
  // after another): the four by blinding alone side by side, then the two that need their results.
  J1 delta1_r, delta1_s, delta1_rs;
  J2 delta2_s;
  run_tasks(pool, 4, [&](size_t t) {
    if (t == 0) delta2_s = g2(key.delta2).mul(s);  // G2 first: the longest
    else if (t == 1) delta1_r = delta1.mul(r);
    else if (t == 2) delta1_s = delta1.mul(s);
    else delta1_rs = delta1.mul(rs);
  });
  const J1 pi_a = g1(key.alpha1) + g1(points.a.data) + delta1_r;
  const J2 pi_b = g2(key.beta2) + g2(points.b2.data) + delta2_s;
  const J1 b1 = g1(key.beta1) + g1(points.b1.data) + delta1_s;
  J1 pi_a_s, b1_r;
  run_tasks(pool, 2, [&](size_t t) {
    if (t == 0) pi_a_s = pi_a.mul(s);
    else b1_r = b1.mul(r);
  });
  const J1 pi_c = g1(points.c.data) + g1(points.h.data) + pi_a_s + b1_r - delta1_rs;

  nlohmann::ordered_json proof;
  proof["pi_a"] = pacer::detail::point_json(pi_a.to_affine());
  proof["pi_b"] = pacer::detail::point_json(pi_b.to_affine());
  proof["pi_c"] = pacer::detail::point_json(pi_c.to_affine());
  proof["protocol"] = "groth16";
  proof["curve"] = std::string(Curve::json_name);
  ProofJson out;
  out.proof = proof.dump(1);
  nlohmann::json pub = nlohmann::json::array();
  for (uint32_t i = 1; i <= key.n_public; ++i) pub.push_back(limbs_to_decimal(w.values[i]));
  out.public_signals = pub.dump(1);
  return out;
}

}  // namespace

ProofJson assemble(const ProvingKey& key, const ProofPoints& points, const Witness& w, bool zero_blinding,
                   ThreadPool* pool) {
  return with_host_curve(key.curve,
                         [&](auto curve) { return assemble_on<decltype(curve)>(key, points, w, zero_blinding, pool); });
}

}  // namespace pacer

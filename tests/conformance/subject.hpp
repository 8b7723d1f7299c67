#pragma once
// The backend under test and the independent oracles the conformance suites share.
//
// The subject is one backend plugin, created through the plugin registry exactly as the host
// creates it (`pacer_conformance --backend NAME --params 'TOML'`). The oracles never call a
// backend: MSMs are checked on points of known discrete logarithm (P_i = t_i·G, so Σ k_i·P_i =
// (Σ k_i·t_i mod r)·G, the sum taken by GMP), compute_h against a naive O(n²) DFT, synthesis
// against GMP over the key's own records.
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gmp_oracle.hpp"
#include "pacer/allocator.hpp"
#include "pacer/backend.hpp"
#include "pacer/host_services.hpp"
#include "pacer/math/batch_affine.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/plugin_loader.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer::conformance {

struct Subject {
  std::string name;
  ThreadPool pool{0};
  HostServices host;
  std::unique_ptr<PluginRegistry> registry;
  std::shared_ptr<Allocator> allocator;
  std::shared_ptr<Backend> backend;
  size_t max_log = 12;  // largest MSM size 2^max_log (PACER_CONFORMANCE_MAX_LOG)
};

// Made once by main() (it throws where the backend cannot start); the suites use it.
Subject& subject();
void make_subject(const std::string& backend, const std::string& params_toml);

// A key's points and the discrete logs the oracle knows them by. The spans of the ProvingKey point
// into the vectors here, so a KeyMaterial outlives every ResidentKey made from it.
struct KeyMaterial {
  std::vector<std::byte> g1, g2, records;
  std::vector<test::Mpz> logs;  // t_i of point i, for G1 and G2 alike
  std::shared_ptr<ProvingKey> key = std::make_shared<ProvingKey>();
};

// Points t_i·G with t_i = 1000003 + 7·i, then the edge cases written over some: infinity (t = 0)
// at 5 and every 997th, a repeat of point 0 at 3, the negation of point 0 at 7 (it cancels point 0
// under equal scalars). `logs` gets the t_i (it is shared by G1 and G2: both use the same t_i).
template <class Group>
std::vector<std::byte> known_points(const math::Affine<Group>& gen, size_t n, const test::Mpz& r,
                                    std::vector<test::Mpz>& logs, ThreadPool& pool) {
  using J = math::Jacobian<Group>;
  constexpr size_t kChunk = 1 << 12;
  const math::Affine<Group> step = J::from(gen).mul(math::Limbs<1>{7}).to_affine();
  std::vector<math::Affine<Group>> points(n);
  run_tasks(&pool, (n + kChunk - 1) / kChunk, [&](size_t c) {
    const size_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    std::vector<J> jac(end - begin);
    J acc = J::from(gen).mul(math::Limbs<1>{1000003 + 7 * begin});
    for (auto& p : jac) {
      p = acc;
      acc = acc.add_affine(step);
    }
    math::batch_to_affine<Group>(jac, std::span(points).subspan(begin, end - begin));
  });
  logs.resize(n);
  for (size_t i = 0; i < n; ++i) mpz_set_ui(logs[i].z, 1000003 + 7 * i);
  auto set = [&](size_t i, const math::Affine<Group>& p, const test::Mpz& t) {
    if (i >= n) return;
    points[i] = p;
    logs[i] = t;
  };
  const test::Mpz zero;
  for (size_t i = 997; i < n; i += 997) set(i, math::Affine<Group>::identity(), zero);
  if (n > 8) {
    test::Mpz minus_t0;
    mpz_sub(minus_t0.z, r.z, logs[0].z);
    set(3, points[0], logs[0]);
    set(5, math::Affine<Group>::identity(), zero);
    set(7, -points[0], minus_t0);
  }
  std::vector<std::byte> bytes(n * math::point_bytes<Group>());
  for (size_t i = 0; i < n; ++i) math::encode_point(points[i], bytes.data() + i * math::point_bytes<Group>());
  return bytes;
}

// A key for MSMs alone: n_vars points in A, B1 and B2, n_vars - 1 in C, domain_size in H (the
// first points of the same sequence), no constraint records.
template <class Curve>
KeyMaterial msm_key(size_t n_vars, size_t domain_size, ThreadPool& pool) {
  KeyMaterial m;
  const test::Mpz r = test::to_mpz(Curve::Fr::P);
  const size_t n = std::max(n_vars, domain_size);
  std::vector<test::Mpz> logs2;
  m.g1 = known_points<typename Curve::G1>(Curve::g1_generator(), n, r, m.logs, pool);
  m.g2 = known_points<typename Curve::G2>(Curve::g2_generator(), n_vars, r, logs2, pool);
  constexpr size_t p1 = math::point_bytes<typename Curve::G1>(), p2 = math::point_bytes<typename Curve::G2>();
  ProvingKey& k = *m.key;
  k.path = "conformance key, " + std::to_string(n_vars) + " wires, domain " + std::to_string(domain_size);
  k.curve = Curve::id;
  k.n8q = uint32_t(curve_n8q(Curve::id));
  k.n8r = 32;
  k.n_vars = uint32_t(n_vars);
  k.n_public = 0;
  k.domain_size = uint32_t(domain_size);
  k.a = k.b1 = std::span<const std::byte>(m.g1).first(n_vars * p1);
  k.c = std::span<const std::byte>(m.g1).first((n_vars - 1) * p1);
  k.h = std::span<const std::byte>(m.g1).first(domain_size * p1);
  k.b2 = std::span<const std::byte>(m.g2).first(n_vars * p2);
  return m;
}

// 0, 1 and r - 1: the values at the ends of the scalar field.
template <class Curve>
std::array<Fr256, 3> field_edges() {
  Fr256 r_minus_1 = Curve::Fr::P;
  r_minus_1[0] -= 1;
  return {Fr256{}, Fr256{1, 0, 0, 0}, r_minus_1};
}

// n values below r, every `stride`-th one an edge value (field_edges) in turn from `first`.
template <class Curve>
std::vector<Fr256> field_values(size_t n, size_t first, size_t stride, std::mt19937_64& rng) {
  std::vector<Fr256> v(n);
  for (auto& x : v) x = test::random_below_p<typename Curve::Fr>(rng);
  const auto edges = field_edges<Curve>();
  for (size_t i = first; i < n; i += stride) v[i] = edges[(i / stride) % 3];
  return v;
}

// Scalars below r with the edge values: 0 (every 5th), small bit-like values, 1, r - 1, r - 2,
// and equal scalars at 0 and 7 (where points 0 and 7 cancel).
template <class Curve>
std::vector<Fr256> edge_scalars(size_t n, std::mt19937_64& rng) {
  using Fr = typename Curve::Fr;
  std::vector<Fr256> s(n);
  for (auto& k : s) k = test::random_below_p<Fr>(rng);
  for (size_t i = 0; i < n; i += 5) s[i] = Fr256{};
  for (size_t i = 11; i < n; i += 13) s[i] = Fr256{rng() % 4, 0, 0, 0};
  auto put = [&](size_t i, Fr256 v) {
    if (i < n) s[i] = v;
  };
  Fr256 r_minus_2 = Fr::P;
  r_minus_2[0] -= 2;
  put(1, field_edges<Curve>()[2]);
  put(2, Fr256{1, 0, 0, 0});
  put(4, r_minus_2);
  if (n > 8) s[7] = s[0] = Fr256{12345, 0, 0, 0};
  return s;
}

// (Σ k_i·t_i mod r)·G of the group, encoded as a key encodes points (what a backend returns).
template <class Curve, class Group>
PointBytes expected_msm(const math::Affine<Group>& generator, std::span<const Fr256> scalars,
                        const std::vector<test::Mpz>& logs) {
  const test::Mpz r = test::to_mpz(Curve::Fr::P);
  test::Mpz sum, term;
  for (size_t i = 0; i < scalars.size(); ++i) {
    mpz_mul(term.z, test::to_mpz(scalars[i]).z, logs.at(i).z);
    mpz_add(sum.z, sum.z, term.z);
  }
  mpz_mod(sum.z, sum.z, r.z);
  const auto point = math::Jacobian<Group>::from(generator).mul(test::from_mpz<4>(sum)).to_affine();
  PointBytes out;
  out.size = math::point_bytes<Group>();
  math::encode_point(point, reinterpret_cast<std::byte*>(out.data.data()));
  return out;
}

// The bytes of a PointBytes, for REQUIRE(==) with a readable failure.
std::string hex(const PointBytes& p);

}  // namespace pacer::conformance

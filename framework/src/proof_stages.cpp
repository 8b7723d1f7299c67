// The engine's own stage work: row index, synthesis, assembly (moved out of prover.cpp, which
// now runs the stage graph). Curve-specific work is templated over the curve traits.
#include "proof_stages.hpp"

#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "pacer/math/curves.hpp"
#include "pacer/thread_pool.hpp"
#include "point_json.hpp"

namespace pacer {
namespace {

using namespace pacer::math;

uint32_t read_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// a = A·w, b = B·w over section 4, c = a∘b. Coefficients are stored as v·R² and the witness is
// standard, so one Montgomery product yields v·w in Montgomery form (docs/formats.md §5.3).
template <class Fr>
void synthesize_on(const ProvingKey& key, const RowIndex& index, const Witness& w, std::span<Fr256> a,
                std::span<Fr256> b, std::span<Fr256> c, ThreadPool& pool, const Checkpoint& checkpoint) {
  const size_t n = key.domain_size, record = 12 + key.n8r;
  auto* fa = reinterpret_cast<Fr*>(a.data());
  auto* fb = reinterpret_cast<Fr*>(b.data());
  auto* fc = reinterpret_cast<Fr*>(c.data());
  const std::byte* base = key.coeffs.data();
  constexpr size_t chunk = 1 << 13;  // rows per task
  constexpr uint32_t kAhead = 8;
  const size_t records = index.records.size();
  pool.parallel_for((n + chunk - 1) / chunk, [&](size_t ch) {
    if (checkpoint) checkpoint();
    for (size_t row = ch * chunk, end = std::min(n, row + chunk); row < end; ++row) {
      Fr sums[2];
      for (int m = 0; m < 2; ++m) {
        const size_t slot = m * n + row;
        for (uint32_t k = index.row_start[slot]; k < index.row_start[slot + 1]; ++k) {
          // The witness is read at random (tens of MB at 2^20): fetch a few coefficients ahead,
          // the record two steps before its witness value.
          if (k + 2 * kAhead < records) __builtin_prefetch(base + size_t(index.records[k + 2 * kAhead]) * record);
          if (k + kAhead < records)
            __builtin_prefetch(&w.values[read_u32(base + size_t(index.records[k + kAhead]) * record + 8)]);
          const std::byte* r = base + size_t(index.records[k]) * record;
          Fr coef;
          std::memcpy(coef.v.data(), r + 12, sizeof(Fr256));
          sums[m] += coef * Fr::from_mont(w.values[read_u32(r + 8)]);
        }
      }
      fa[row] = sums[0];
      fb[row] = sums[1];
      fc[row] = sums[0] * sums[1];
    }
  });
}

// Uniform in [0, r) from the OS CSPRNG (std::random_device reads getrandom/urandom on Linux).
template <class Fr>
Fr256 random_scalar() {
  std::random_device rd;
  const size_t bits = limbs_bit_length(Fr::P);
  for (;;) {
    Fr256 k;
    for (auto& l : k) l = (uint64_t(rd()) << 32) | rd();
    k[3] &= (uint64_t(1) << (bits - 192)) - 1;
    if (!limbs_geq(k, Fr::P)) return k;
  }
}

template <class Curve>
ProofJson assemble_on(const ProvingKey& key, const ProofPoints& points, const Witness& w, bool zero_blinding) {
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
  // Spec §6.6.
  J1 pi_a = g1(key.alpha1) + g1(points.a.data) + delta1.mul(r);
  J2 pi_b = g2(key.beta2) + g2(points.b2.data) + g2(key.delta2).mul(s);
  J1 b1 = g1(key.beta1) + g1(points.b1.data) + delta1.mul(s);
  J1 pi_c = g1(points.c.data) + g1(points.h.data) + pi_a.mul(s) + b1.mul(r) - delta1.mul(rs);

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

std::shared_ptr<RowIndex> build_row_index(const ProvingKey& key) {
  auto index = std::make_shared<RowIndex>();
  const size_t rows = 2 * size_t(key.domain_size), record = 12 + key.n8r;
  index->row_start.assign(rows + 1, 0);
  const std::byte* p = key.coeffs.data();
  auto slot = [&](uint32_t i) {
    const std::byte* r = p + size_t(i) * record;
    return size_t(read_u32(r)) * key.domain_size + read_u32(r + 4);
  };
  for (uint32_t i = 0; i < key.n_coeffs; ++i) ++index->row_start[slot(i) + 1];
  for (size_t r = 0; r < rows; ++r) index->row_start[r + 1] += index->row_start[r];
  index->records.resize(key.n_coeffs);
  std::vector<uint32_t> fill(index->row_start.begin(), index->row_start.end() - 1);
  for (uint32_t i = 0; i < key.n_coeffs; ++i) index->records[fill[slot(i)]++] = i;
  return index;
}

void synthesize(const ProvingKey& key, const RowIndex& index, const Witness& w, std::span<Fr256> a,
                std::span<Fr256> b, std::span<Fr256> c, ThreadPool& pool, const Checkpoint& checkpoint) {
  with_curve(key.curve, [&](auto curve) {
    synthesize_on<typename decltype(curve)::Fr>(key, index, w, a, b, c, pool, checkpoint);
  });
}

ProofJson assemble(const ProvingKey& key, const ProofPoints& points, const Witness& w, bool zero_blinding) {
  return with_curve(key.curve, [&](auto curve) { return assemble_on<decltype(curve)>(key, points, w, zero_blinding); });
}

}  // namespace pacer

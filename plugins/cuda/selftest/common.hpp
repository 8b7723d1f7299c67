#pragma once
// Self-test helpers (g++): random inputs and the framework's portable math as the CPU oracle.
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gpu_api.hpp"
#include "pacer/cpu/msm.hpp"
#include "pacer/cpu/ntt.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/thread_pool.hpp"

namespace selftest {

using pacer::Fr256;
namespace pm = pacer::math;

// The CPU oracle's kernels: the scalar paths (the cpu plugin's tests check IFMA against them).
inline const pm::CpuKernels kCpuOracle{false, 0};

// h = A·B − C on the odd coset, in Montgomery form (b and c are clobbered): the cpu kernels' steps.
template <class Fr>
void odd_coset_h(const pm::Radix2Domain<Fr>& domain, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                 pacer::ThreadPool* pool) {
  domain.to_odd_coset(a, pool, kCpuOracle);
  domain.to_odd_coset(b, pool, kCpuOracle);
  domain.to_odd_coset(c, pool, kCpuOracle);
  for (size_t i = 0; i < a.size(); ++i) a[i] = a[i] * b[i] - c[i];
}

// --- reporting ----------------------------------------------------------------------------------
struct Report {
  int failed = 0, passed = 0;
  void check(bool ok, const std::string& what) {
    if (ok) ++passed;
    else ++failed;
    std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what.c_str());
    std::fflush(stdout);
  }
};

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// --- randomness ---------------------------------------------------------------------------------
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {  // splitmix64
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Uniform integer below `mod` (rejection on the top limb's range).
template <size_t N>
pm::Limbs<N> random_below(Rng& rng, const pm::Limbs<N>& mod) {
  for (;;) {
    pm::Limbs<N> x;
    for (auto& l : x) l = rng.next();
    const int top_bits = 64 - __builtin_clzll(mod[N - 1]);
    x[N - 1] &= top_bits == 64 ? ~0ull : ((1ull << top_bits) - 1);
    if (!pm::limbs_geq(x, mod)) return x;
  }
}

template <class F>
F random_field(Rng& rng) {
  if constexpr (requires { typename F::Base; }) return F(random_field<typename F::Base>(rng), random_field<typename F::Base>(rng));
  else return F::from_mont(random_below<F::N>(rng, F::P));
}

// Scalars: mostly uniform below r, with the special values the MSM must survive.
template <class Curve>
Fr256 random_scalar(Rng& rng) {
  using Fr = typename Curve::Fr;
  const uint64_t kind = rng.next() % 64;
  Fr256 k{};
  if (kind == 0) return k;  // zero
  if (kind == 1) {          // r - 1
    k = Fr::P;
    k[0] -= 1;
    return k;
  }
  if (kind == 2) {  // one
    k[0] = 1;
    return k;
  }
  if (kind == 3) {  // small
    k[0] = rng.next() % 16;
    return k;
  }
  return random_below<4>(rng, Fr::P);
}

// --- field element bytes <-> framework types (identical little-endian layout) --------------------
template <class F>
void put(std::vector<uint8_t>& out, const F& f) {
  if constexpr (requires { typename F::Base; }) {
    put(out, f.c0);
    put(out, f.c1);
  } else {
    const auto* p = reinterpret_cast<const uint8_t*>(f.v.data());
    out.insert(out.end(), p, p + F::kBytes);
  }
}
template <class F>
F get(const uint8_t* p) {
  if constexpr (requires { typename F::Base; }) {
    return F(get<typename F::Base>(p), get<typename F::Base>(p + pm::field_bytes<typename F::Base>()));
  } else {
    F f;
    std::memcpy(f.v.data(), p, F::kBytes);
    return f;
  }
}

// A Jacobian result of Lane::msm as the framework's type.
template <class Group>
pm::Jacobian<Group> jacobian_from_bytes(const uint8_t* p) {
  using F = typename Group::Field;
  constexpr size_t fb = pm::field_bytes<F>();
  pm::Jacobian<Group> j;
  j.X = get<F>(p);
  j.Y = get<F>(p + fb);
  j.Z = get<F>(p + 2 * fb);
  return j;
}

// --- points k·G from a fixed-base table (32 byte-windows: 32 mixed additions per point) ---------
template <class Group>
class FixedBase {
 public:
  explicit FixedBase(const pm::Affine<Group>& g) {
    pm::Jacobian<Group> base = pm::Jacobian<Group>::from(g);
    table_.resize(32 * 256);
    for (int i = 0; i < 32; ++i) {
      pm::Jacobian<Group> acc;
      for (int j = 0; j < 256; ++j) {
        table_[size_t(i) * 256 + j] = acc.to_affine();
        acc = acc + base;
      }
      base = acc;  // 256·base: the next byte's unit
    }
  }
  pm::Jacobian<Group> mul(const Fr256& k) const {
    pm::Jacobian<Group> acc;
    for (int i = 0; i < 32; ++i) {
      const unsigned byte = unsigned(k[i / 8] >> (8 * (i % 8))) & 255;
      if (byte) acc = acc.add_affine(table_[size_t(i) * 256 + byte]);
    }
    return acc;
  }

 private:
  std::vector<pm::Affine<Group>> table_;
};

// count points k_i·G (k_i random, some zero -> infinity, some repeated), and their k_i.
template <class Curve, class Group>
void make_points(size_t count, uint64_t seed, const pm::Affine<Group>& g, pacer::ThreadPool& pool,
                 std::vector<pm::Affine<Group>>& points, std::vector<Fr256>& ks) {
  FixedBase<Group> fb(g);
  points.assign(count, pm::Affine<Group>::identity());
  ks.assign(count, Fr256{});
  Rng rng(seed);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t kind = rng.next() % 97;
    if (kind == 0) continue;                     // infinity
    if (kind == 1 && i > 0) ks[i] = ks[i - 1];   // repeated point
    else if (kind == 2 && i > 0) {               // the opposite of the previous point
      using Fr = typename Curve::Fr;
      ks[i] = (Fr::zero() - Fr::from_std(ks[i - 1])).to_std();
    } else ks[i] = random_below<4>(rng, Curve::Fr::P);
  }
  pool.parallel_for(count, [&](size_t i) { points[i] = fb.mul(ks[i]).to_affine(); });
}

// Σ s_i·k_i mod r: the MSM's result is this multiple of G when P_i = k_i·G.
template <class Curve>
Fr256 dot_mod_r(const std::vector<Fr256>& s, const std::vector<Fr256>& k, size_t count, size_t k_period,
                pacer::ThreadPool& pool) {
  using Fr = typename Curve::Fr;
  const size_t chunks = 64;
  std::vector<Fr> part(chunks, Fr::zero());
  pool.parallel_for(chunks, [&](size_t c) {
    Fr acc = Fr::zero();
    for (size_t i = c * count / chunks; i < (c + 1) * count / chunks; ++i)
      acc += Fr::from_std(s[i]) * Fr::from_std(k[i % k_period]);
    part[c] = acc;
  });
  Fr total = Fr::zero();
  for (auto& p : part) total += p;
  return total.to_std();
}

// Host-only checks (no GPU): constants, field arithmetic incl. the emulated PTX chain, point
// formulas, the NTT pass structure and the MSM pipeline simulated on the host.
void run_host_checks(Report& report, uint64_t seed);
// Synthesis (synthesis_checks.cpp): the row sums on the host; the on-device proof vectors on a GPU.
void run_synthesis_host_checks(Report& report, uint64_t seed);
void check_synthesis_on_device(Report& report, int dev, Rng& rng, pacer::ThreadPool& pool, bool small);
// Device synthesis of 2^log_n rows of `density` terms (gen-circuit's shape), median of reps.
void bench_synthesis(int dev, Rng& rng, unsigned log_n, unsigned density, int reps);

}  // namespace selftest

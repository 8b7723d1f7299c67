// Kernel benchmark (a program, not a test): times the CPU backend's building blocks in isolation
// so that a change to one of them can be measured without a whole proof.
//   pacer_bench_kernels [log2 n = 16] [threads = all] [repeats = 3] [ifma: auto | off]
// Environment: PACER_BENCH_CURVE=bn254|bls12_381 and PACER_BENCH_ONLY=field,g1,g2,ntt (a
// comma-separated subset; default all) narrow the run, e.g. for a profiler;
// PACER_BENCH_MSM_WINDOW=c fixes the MSMs' window width ([backend.params] msm_window).
// Prints one line per kernel: best-of-repeats wall time and a per-element figure.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string_view>
#include <vector>

#include "pacer/dev/fixed_base.hpp"
#include "pacer/cpu/kernels.hpp"
#include "pacer/thread_pool.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

template <class Fn>
double best_seconds(int repeats, Fn&& fn) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// n distinct points G·(k + i): consecutive additions, then one batch normalisation.
template <class Group>
std::vector<Affine<Group>> points(const Affine<Group>& gen, size_t n) {
  std::vector<Jacobian<Group>> jac(n);
  Jacobian<Group> acc = Jacobian<Group>::from(gen).mul(Limbs<1>{12345});
  for (auto& p : jac) {
    p = acc;
    acc = acc.add_affine(gen);
  }
  std::vector<Affine<Group>> out(n);
  dev::batch_to_affine<Group>(jac, out);
  return out;
}

std::vector<Fr256> scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr256> s(n);
  for (auto& k : s) {
    for (auto& l : k) l = rng();
    k[3] &= (~uint64_t(0)) >> 3;  // below r for both curves' scalar fields
  }
  return s;
}

template <class F>
double field_mul_ns() {
  F xs[8], b = F::from_u64(0x1234567);
  for (int i = 0; i < 8; ++i) xs[i] = F::from_u64(i + 3);
  const int rounds = 2000000;
  double s = best_seconds(3, [&] {
    for (int i = 0; i < rounds; ++i)
      for (auto& x : xs) x = x * b;
  });
  if (xs[0].is_zero()) std::puts("");  // keeps the loop
  return s * 1e9 / (8.0 * rounds);
}

bool wanted(const char* kernel) {
  const char* only = std::getenv("PACER_BENCH_ONLY");
  if (!only) return true;
  std::string_view list(only), name(kernel);
  for (size_t pos = 0; pos <= list.size();) {
    size_t end = std::min(list.find(',', pos), list.size());
    if (list.substr(pos, end - pos) == name) return true;
    pos = end + 1;
  }
  return false;
}

template <class Curve>
void run_curve(const char* name, size_t n, ThreadPool& pool, int repeats, const CpuKernels& kernels) {
  std::mt19937_64 rng(7);
  auto k = scalars(n, rng);
  if (wanted("field"))
    std::printf("%s  Fq mul %.2f ns, Fr mul %.2f ns\n", name, field_mul_ns<typename Curve::Fq>(),
                field_mul_ns<typename Curve::Fr>());
  if (wanted("g1")) {
    auto g1 = points<typename Curve::G1>(Curve::g1_generator(), n);
    double t = best_seconds(repeats, [&] { (void)msm<typename Curve::G1>(g1, k, &pool, kernels); });
    std::printf("%s  G1 MSM n=%zu: %8.1f ms  (%.0f ns/point)\n", name, n, t * 1e3, t * 1e9 / double(n));
  }
  if (wanted("g2")) {
    auto g2 = points<typename Curve::G2>(Curve::g2_generator(), n);
    double t = best_seconds(repeats, [&] { (void)msm<typename Curve::G2>(g2, k, &pool, kernels); });
    std::printf("%s  G2 MSM n=%zu: %8.1f ms  (%.0f ns/point)\n", name, n, t * 1e3, t * 1e9 / double(n));
  }
  if (wanted("ntt")) {
    using Fr = typename Curve::Fr;
    Radix2Domain<Fr> domain(n);
    std::vector<Fr> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = Fr::from_u64(i * 31 + 7);
    double t = best_seconds(repeats, [&] { domain.ntt(v, &pool); });
    std::printf("%s  NTT n=%zu: %8.1f ms\n", name, n, t * 1e3);
    t = best_seconds(repeats, [&] { domain.to_odd_coset(v, &pool, kernels); });
    std::printf("%s  odd coset (iNTT, shift, NTT) n=%zu: %8.1f ms\n", name, n, t * 1e3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned log_n = argc > 1 ? unsigned(std::atoi(argv[1])) : 16;
  const unsigned threads = argc > 2 ? unsigned(std::atoi(argv[2])) : 0;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::string_view ifma = argc > 4 ? argv[4] : "auto";
  if (log_n < 1 || log_n > 26 || repeats < 1 || (ifma != "auto" && ifma != "off")) {
    std::fprintf(stderr, "usage: pacer_bench_kernels [log2 n, 1..26] [threads] [repeats] [ifma: auto | off]\n");
    return 2;
  }
  CpuKernels kernels = CpuKernels::detect();
  if (ifma == "off") kernels.ifma = false;
  if (const char* window = std::getenv("PACER_BENCH_MSM_WINDOW")) kernels.msm_window = unsigned(std::atoi(window));
  ThreadPool pool(threads);
  std::printf("threads %u, n = 2^%u, best of %d, IFMA %s, field products %s\n", pool.size(), log_n, repeats,
              kernels.ifma ? "on" : "off", kCpuHasAdx ? "mulx/adx" : "portable");
  const size_t n = size_t(1) << log_n;
  const char* only = std::getenv("PACER_BENCH_CURVE");
  if (!only || std::string_view(only) == "bn254") run_curve<CpuBn254>("bn254", n, pool, repeats, kernels);
  if (!only || std::string_view(only) == "bls12_381") run_curve<CpuBls12_381>("bls12_381", n, pool, repeats, kernels);
}

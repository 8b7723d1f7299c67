// Verification-cost benchmark (a program, not a test): what a Groth16 verification costs (four
// pairings through one shared Miller loop and one final exponentiation, as verify.cpp runs them)
// and what the key-load subgroup check costs per point (subgroup.hpp), on each curve, one thread;
// then check_key_subgroups over a section of 2^15 points, one point at a time and in batches.
//   pacer_bench_verify [repeats = 20]
// Prints best-of-repeats and median per operation.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pacer/key_check.hpp"
#include "math/host_curves.hpp"  // the framework's own arithmetic, which verify.cpp and key_check.cpp run
#include "pacer/math/curves.hpp"
#include "pacer/math/pairing.hpp"
#include "pacer/math/subgroup.hpp"
#include "pacer/thread_pool.hpp"

using namespace pacer::math;

namespace {

template <class Fn>
void report(const char* curve, const char* what, int repeats, int per_repeat, Fn&& fn) {
  std::vector<double> us;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < per_repeat; ++i) fn();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / per_repeat);
  }
  std::sort(us.begin(), us.end());
  std::printf("%-10s %-44s best %9.1f us   median %9.1f us\n", curve, what, us.front(), us[us.size() / 2]);
}

template <class Curve>
void run(const char* name, int repeats) {
  using J1 = Jacobian<typename Curve::G1>;
  using J2 = Jacobian<typename Curve::G2>;
  const auto p = J1::from(Curve::g1_generator()).mul(Limbs<1>{0x1234567}).to_affine();
  const auto q = J2::from(Curve::g2_generator()).mul(Limbs<1>{0x7654321}).to_affine();
  const PairingInput<Curve> four[] = {{-p, q}, {p, q}, {p, Curve::g2_generator()}, {-p, Curve::g2_generator()}};
  volatile bool sink = false;
  report(name, "verification: 4 pairings, 1 final exp.", repeats, 1,
         [&] { sink = pairing_product_is_one<Curve>(four); });
  report(name, "one pairing", repeats, 1, [&] { sink = pairing<Curve>(p, q).is_one(); });
  report(name, "G1 subgroup check, per point", repeats, 50, [&] { sink = in_g1<Curve>(p); });
  report(name, "G2 subgroup check, per point", repeats, 20, [&] { sink = in_g2<Curve>(q); });
  report(name, "G2 [r]Q = O (the definition), per point", std::max(3, repeats / 4), 5,
         [&] { sink = J2::from(q).mul(Curve::Fr::P).is_identity(); });
  (void)sink;
}

// check_key_subgroups on one section of `count` multiples of the generator, one thread.
template <class Curve, class Group>
void section_check(const char* name, const Affine<Group>& generator, bool g2, size_t count) {
  constexpr size_t stride = point_bytes<Group>();
  std::vector<std::byte> bytes(count * stride);
  const auto g = Jacobian<Group>::from(generator);
  auto p = g;
  for (size_t i = 0; i < count; ++i, p = p + g) encode_point(p.to_affine(), bytes.data() + i * stride);
  pacer::ProvingKey key;
  key.path = "bench";
  key.curve = Curve::id;
  (g2 ? key.b2 : key.a) = bytes;
  pacer::ThreadPool pool(1);
  for (const size_t batch : {size_t(0), pacer::KeyCheckTuning{}.batch_min_points_per_task}) {
    const auto t0 = std::chrono::steady_clock::now();
    pacer::check_key_subgroups(key, pool, pacer::KeyCheckTuning{batch});
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-10s %s key section of %zu points, %-13s %9.2f us a point\n", name, g2 ? "G2" : "G1", count,
                batch ? "in batches:" : "one by one:", us / double(count));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  run<HostBn254>("bn254", repeats);
  run<HostBls12_381>("bls12_381", repeats);
  const size_t points = size_t(1) << 15;
  section_check<HostBn254>("bn254", HostBn254::g2_generator(), true, points);
  section_check<HostBls12_381>("bls12_381", HostBls12_381::g1_generator(), false, points);
  section_check<HostBls12_381>("bls12_381", HostBls12_381::g2_generator(), true, points);
}

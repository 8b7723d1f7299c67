// Verification-cost benchmark (a program, not a test): what a Groth16 verification costs (four
// pairings through one shared Miller loop and one final exponentiation, as verify.cpp runs them)
// and what the key-load subgroup check costs per point (subgroup.hpp), on each curve, one thread.
//   pacer_bench_verify [repeats = 20]
// Prints best-of-repeats and median per operation.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pacer/math/pairing.hpp"
#include "pacer/math/subgroup.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  run<Bn254>("bn254", repeats);
  run<Bls12_381>("bls12_381", repeats);
}

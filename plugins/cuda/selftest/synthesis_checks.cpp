// Synthesis checks: the device's row sums (synth/rows.hpp) run on the host against the framework's
// field math (no GPU needed), and on the GPU the whole on-device path of a proof's vectors
// (upload_witness, synthesize, compute_h_on_device, msm_witness, msm_h) against the same sums and
// the host-vector calls.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common.hpp"
#include "ff/fp.hpp"
#include "synth/rows.hpp"

namespace selftest {
namespace {

namespace ff = pacer::cuda::ff;
namespace cu = pacer::cuda;

// Random rows in the framework's ConstraintRows layout: 2n rows of 0..max_terms terms over
// `wires` wires (empty rows, repeated wires, and coefficients 0, 1 and r-1 among them).
struct Rows {
  size_t n = 0, wires = 0;
  std::vector<uint32_t> start, wire;
  std::vector<Fr256> coef;  // v·R², as the zkey stores it
};

template <class Fr>
Rows random_rows(Rng& rng, size_t n, size_t wires, unsigned max_terms) {
  Rows r;
  r.n = n;
  r.wires = wires;
  r.start.push_back(0);
  for (size_t row = 0; row < 2 * n; ++row) {
    const unsigned terms = unsigned(rng.next() % (max_terms + 1));
    for (unsigned t = 0; t < terms; ++t) {
      r.wire.push_back(uint32_t(rng.next() % wires));
      const uint64_t kind = rng.next() % 16;
      Fr v = kind == 0 ? Fr::zero() : kind == 1 ? Fr::one() : kind == 2 ? Fr::zero() - Fr::one() : random_field<Fr>(rng);
      r.coef.push_back((v * Fr::from_mont(Fr::R2)).v);  // Montgomery form of v·R
    }
    r.start.push_back(uint32_t(r.wire.size()));
  }
  return r;
}

template <class Fr>
std::vector<Fr256> random_witness(Rng& rng, size_t wires) {
  std::vector<Fr256> w(wires);
  for (auto& x : w) x = random_below<4>(rng, Fr::P);  // standard form
  w[0] = Fr256{1, 0, 0, 0};
  return w;
}

// The oracle, from the framework's field math: row r's value is Σ v·w (stored limbs v·R² are the
// field element v·R, hence the R^-1), whose Montgomery limbs synthesis must produce.
template <class Fr>
std::vector<Fr> expected_rows(const Rows& r, const std::vector<Fr256>& w) {
  const Fr r_inv = Fr::from_mont(Fr::R2).inv();
  std::vector<Fr> out(2 * r.n, Fr::zero());
  for (size_t row = 0; row < 2 * r.n; ++row)
    for (uint32_t k = r.start[row]; k < r.start[row + 1]; ++k)
      out[row] += Fr::from_mont(r.coef[k]) * r_inv * Fr::from_std(w[r.wire[k]]);
  return out;
}

template <class Fr, class Mine>
void check_rows_on_host(Report& report, Rng& rng, const std::string& name) {
  size_t bad = 0, rows = 0;
  for (size_t n : {1u, 7u, 64u, 1000u}) {
    const Rows r = random_rows<Fr>(rng, n, 50, 9);
    const auto w = random_witness<Fr>(rng, r.wires);
    const auto want = expected_rows<Fr>(r, w);
    const auto load_f = [](const Mine* p) { return *p; };
    const auto load_u32 = [](const uint32_t* p) { return *p; };
    for (size_t row = 0; row < 2 * n; ++row, ++rows) {
      const Mine got = pacer::cuda::synth::row_sum<Mine>(r.start[row], r.start[row + 1], r.wire.data(),
                                                         reinterpret_cast<const Mine*>(r.coef.data()),
                                                         reinterpret_cast<const Mine*>(w.data()), load_f, load_u32);
      Fr256 got_limbs;
      std::memcpy(got_limbs.data(), got.l, sizeof got_limbs);
      bad += got_limbs != want[row].v;
    }
  }
  report.check(bad == 0, name + ": the device's row sums run on the host = framework A·w, B·w (" +
                             std::to_string(rows) + " rows of 0..9 terms)");
}

template <class Curve>
constexpr cu::Curve gpu_curve() {
  return Curve::id == pacer::CurveId::bn254 ? cu::Curve::bn254 : cu::Curve::bls12_381;
}

template <class Group>
pm::Jacobian<Group> msm_result(const std::vector<uint8_t>& out) {
  return jacobian_from_bytes<Group>(out.data());
}

template <class Curve>
void check_on_device(Report& report, int dev, Rng& rng, pacer::ThreadPool& pool, const std::string& name, bool small) {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  size_t bad_ab = 0, bad_h = 0, bad_msm = 0, runs = 0;
  bool refused = false;
  for (size_t log_n : {0u, 4u, 10u, 16u}) {
    if (small && log_n > 10) continue;
    const size_t n = size_t(1) << log_n, wires = n + 7;
    const Rows r = random_rows<Fr>(rng, n, wires, 6);
    const auto w = random_witness<Fr>(rng, wires);
    const auto want = expected_rows<Fr>(r, w);
    const auto rows = cu::upload_rows(dev, gpu_curve<Curve>(), n, r.start.data(), r.wire.data(),
                                      reinterpret_cast<const uint64_t*>(r.coef.data()), r.wire.size());
    cu::Lane lane(dev, gpu_curve<Curve>(), n, wires);
    lane.upload_witness(reinterpret_cast<const uint64_t*>(w.data()), wires);
    lane.synthesize(*rows);
    std::vector<Fr> a(n), b(n);
    lane.read_vector(false, reinterpret_cast<uint64_t*>(a.data()), n);
    lane.read_vector(true, reinterpret_cast<uint64_t*>(b.data()), n);
    for (size_t i = 0; i < n; ++i) bad_ab += a[i] != want[i] || b[i] != want[n + i];
    // h on the device = h from the host-vector call on the same a and b.
    lane.compute_h_on_device(n);
    std::vector<Fr> h_device(n);
    lane.read_vector(false, reinterpret_cast<uint64_t*>(h_device.data()), n);
    // MSMs over the device witness and h = MSMs over the same scalars from the host.
    std::vector<pm::Affine<G1>> points;
    std::vector<Fr256> ks;
    make_points<Curve, G1>(wires, rng.next(), Curve::g1_generator(), pool, points, ks);
    std::vector<uint8_t> bytes;
    for (const auto& p : points) {
      put(bytes, p.x);
      put(bytes, p.y);
    }
    const auto resident = cu::upload_points(dev, gpu_curve<Curve>(), false, bytes.data(), wires);
    std::vector<uint8_t> out(3 * pm::field_bytes<typename G1::Field>()), ref(out.size());
    lane.msm_h(*resident, n, out.data());
    const auto h_sum = msm_result<G1>(out);
    const size_t offset = wires > 3 ? 3 : 0;
    lane.msm_witness(*resident, offset, wires - offset, out.data());
    const auto w_sum = msm_result<G1>(out);
    lane.forget_proof();
    try {
      lane.msm_witness(*resident, 0, wires, out.data());
    } catch (const std::logic_error&) {
      refused = true;
    }
    std::vector<Fr> host_a(want.begin(), want.begin() + long(n)), host_b(want.begin() + long(n), want.end());
    lane.compute_h(reinterpret_cast<uint64_t*>(host_a.data()), reinterpret_cast<const uint64_t*>(host_b.data()),
                   nullptr, n);
    for (size_t i = 0; i < n; ++i) bad_h += h_device[i] != host_a[i];
    lane.msm(*resident, reinterpret_cast<const uint64_t*>(host_a.data()), n, ref.data());
    bad_msm += !(msm_result<G1>(ref) == h_sum);
    lane.msm(*resident, reinterpret_cast<const uint64_t*>(w.data()) + 4 * offset, wires - offset, ref.data());
    bad_msm += !(msm_result<G1>(ref) == w_sum);
    ++runs;
  }
  report.check(bad_ab == 0, name + ": a, b synthesized on the device = framework A·w, B·w (" + std::to_string(runs) +
                                " sizes, n = 1..2^16)");
  report.check(bad_h == 0, name + ": compute_h on the device's a, b = compute_h from host vectors");
  report.check(bad_msm == 0, name + ": MSMs over the device's witness and h = MSMs over the host's scalars");
  report.check(refused, name + ": after forget_proof the lane refuses an MSM over the witness it forgot");
}

}  // namespace

void check_synthesis_on_device(Report& report, int dev, Rng& rng, pacer::ThreadPool& pool, bool small) {
  check_on_device<pm::Bn254>(report, dev, rng, pool, "BN254 synthesis", small);
  check_on_device<pm::Bls12_381>(report, dev, rng, pool, "BLS12-381 synthesis", small);
}

void bench_synthesis(int dev, Rng& rng, unsigned log_n, unsigned density, int reps) {
  using Fr = pm::Bn254::Fr;
  const size_t n = size_t(1) << log_n, wires = n + 3;
  // Shaped like gen-circuit's rows: `density` terms, half of them over the 64 latest wires.
  Rows r;
  r.n = n;
  r.wires = wires;
  r.start.reserve(2 * n + 1);
  r.wire.reserve(2 * n * density);
  r.coef.reserve(2 * n * density);
  r.start.push_back(0);
  const Fr256 coef = (random_field<Fr>(rng) * Fr::from_mont(Fr::R2)).v;
  for (size_t row = 0; row < 2 * n; ++row) {
    const size_t at = row % n + 3;
    for (unsigned t = 0; t < density; ++t) {
      const uint64_t x = rng.next();
      r.wire.push_back(uint32_t((x & 1) ? at - 1 - (x >> 1) % std::min<size_t>(at, 64) : (x >> 1) % at));
      r.coef.push_back(coef);
    }
    r.start.push_back(uint32_t(r.wire.size()));
  }
  const auto w = random_witness<Fr>(rng, wires);
  const auto rows = cu::upload_rows(dev, cu::Curve::bn254, n, r.start.data(), r.wire.data(),
                                    reinterpret_cast<const uint64_t*>(r.coef.data()), r.wire.size());
  cu::Lane lane(dev, cu::Curve::bn254, n, 0);
  std::vector<double> kernel_ms, upload_ms;
  void* pinned = cu::testing::alloc_pinned(wires * 32);
  std::memcpy(pinned, w.data(), wires * 32);
  for (int rep = 0; rep <= reps; ++rep) {
    const double t0 = now_ms();
    lane.upload_witness(static_cast<const uint64_t*>(pinned), wires);
    lane.synthesize(*rows);
    const double total = now_ms() - t0;
    lane.forget_proof();
    if (rep == 0) continue;  // warm-up
    kernel_ms.push_back(lane.last_synthesis_timing().total_ms - lane.last_synthesis_timing().witness_wait_ms);
    upload_ms.push_back(total);
  }
  cu::testing::free_pinned(pinned);
  std::sort(kernel_ms.begin(), kernel_ms.end());
  std::sort(upload_ms.begin(), upload_ms.end());
  std::printf("  %-44s median %9.3f ms kernel, %9.3f ms with the witness's copy (%zu terms, %.1f GB rows)\n",
              ("BN254 synthesis 2^" + std::to_string(log_n) + " density " + std::to_string(density)).c_str(),
              kernel_ms[kernel_ms.size() / 2], upload_ms[upload_ms.size() / 2], r.wire.size(),
              double(rows->bytes()) / 1e9);
  std::fflush(stdout);
}

void run_synthesis_host_checks(Report& report, uint64_t seed) {
  Rng rng(seed ^ 0x5eed);
  check_rows_on_host<pm::Bn254::Fr, ff::bn254_fr>(report, rng, "BN254 synthesis");
  check_rows_on_host<pm::Bls12_381::Fr, ff::bls12_381_fr>(report, rng, "BLS12-381 synthesis");
}

}  // namespace selftest

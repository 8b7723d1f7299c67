// pacer_cuda_selftest: correctness of the CUDA kernels against the framework's CPU math, then
// benchmarks. Exit 0 when everything passed (or no device: the host checks still run), 1 on a
// failed check. Options: --quick (no benchmarks), --no-host, --seed N, --max-log K (largest
// benchmark size 2^K, default 24); --msm-window-bits, --msm-chunk, --msm-pieces, --ntt-pass-bits, --ntt-log-cols N
// tune the benchmarks' kernels (cuda::KernelConfig; the correctness checks use the defaults);
// --dump-msm DIR writes the G1 MSM benchmarks' inputs for the sppark anchor (docs/benchmarks.md).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <thread>

#include "common.hpp"

using namespace selftest;
namespace cu = pacer::cuda;

namespace {

struct Options {
  bool quick = false, host = true, bench_only = false, small = false;
  uint64_t seed = 20261117;
  unsigned max_log = 24;
  std::vector<std::string> only;  // phases to run (empty: all)
  cu::KernelConfig kernels;       // for the benchmarks' lanes and NTTs
  std::string dump_msm;           // --dump-msm DIR: the G1 MSM benchmarks' inputs, for an outside MSM
  bool wants(const std::string& phase) const {
    return only.empty() || std::find(only.begin(), only.end(), phase) != only.end();
  }
};
Options g_opt;

// Runs one phase; an exception fails it without stopping the others.
template <class Fn>
void phase(Report& report, const std::string& name, Fn&& fn) {
  if (!g_opt.wants(name)) return;
  const double t0 = now_ms();
  try {
    fn();
  } catch (const std::exception& e) {
    report.check(false, name + ": exception: " + e.what());
  }
  std::printf("  (%s: %.1f s)\n", name.c_str(), (now_ms() - t0) / 1e3);
  std::fflush(stdout);
}

struct Row {
  std::string what;
  double median_ms, min_ms, max_ms;
  std::string note;
};
std::vector<Row> g_rows;

Row summarize(const std::string& what, std::vector<double> ms, const std::string& note = "") {
  std::sort(ms.begin(), ms.end());
  Row r{what, ms[ms.size() / 2], ms.front(), ms.back(), note};
  g_rows.push_back(r);
  std::printf("  %-44s median %9.3f ms  (min %.3f, max %.3f, %zu runs) %s\n", what.c_str(), r.median_ms, r.min_ms,
              r.max_ms, ms.size(), note.c_str());
  std::fflush(stdout);
  return r;
}

void summarize(const std::string& what, const cu::testing::Bench& b, int reps) {
  g_rows.push_back({what, b.median_ms, b.min_ms, b.max_ms, ""});
  std::printf("  %-44s median %9.3f ms  (min %.3f, max %.3f, %d runs)\n", what.c_str(), b.median_ms, b.min_ms, b.max_ms, reps);
  std::fflush(stdout);
}

template <class Curve>
constexpr cu::Curve cu_curve() {
  return Curve::id == pacer::CurveId::bn254 ? cu::Curve::bn254 : cu::Curve::bls12_381;
}
template <class Curve>
std::string curve_name() {
  return Curve::id == pacer::CurveId::bn254 ? "BN254" : "BLS12-381";
}

// --- fields -------------------------------------------------------------------------------------
template <class F>
void check_field_on_device(Report& report, int dev, cu::Curve curve, cu::testing::Field field, Rng& rng,
                           const std::string& name) {
  const size_t count = 1 << 14;
  std::vector<F> a(count), b(count);
  for (size_t i = 0; i < count; ++i) {
    a[i] = i == 0 ? F::zero() : i == 1 ? F::one() : i == 2 ? F::zero() - F::one() : random_field<F>(rng);
    b[i] = i % 5 == 0 ? a[i] : i % 7 == 0 ? F::zero() - a[i] : random_field<F>(rng);
  }
  std::vector<uint8_t> ab, bb;
  for (auto& x : a) put(ab, x);
  for (auto& x : b) put(bb, x);
  const size_t fb = pm::field_bytes<F>();
  std::vector<uint8_t> out(4 * count * fb);
  cu::testing::field_ops(dev, curve, field, ab.data(), bb.data(), count, out.data());
  size_t bad = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* o = out.data() + 4 * i * fb;
    bad += get<F>(o) != a[i] * b[i] || get<F>(o + fb) != a[i] + b[i] || get<F>(o + 2 * fb) != a[i] - b[i] ||
           get<F>(o + 3 * fb) != a[i].sqr();
  }
  report.check(bad == 0, name + ": device product/sum/difference/square = framework (" + std::to_string(count) + " pairs)");
}

// --- NTT and compute_h --------------------------------------------------------------------------
template <class Curve>
void check_ntt_on_device(Report& report, int dev, Rng& rng, pacer::ThreadPool& pool) {
  using Fr = typename Curve::Fr;
  const auto cc = cu_curve<Curve>();
  const std::string name = curve_name<Curve>();
  size_t bad_small = 0, bad_large = 0;
  for (uint32_t L : {1u, 2u, 3u, 5u, 8u, 9u, 10u, 12u, 16u, 17u, 20u}) {
    if (g_opt.small && L > 12) continue;
    const size_t n = size_t(1) << L;
    pm::Radix2Domain<Fr> dom(n);
    std::vector<Fr> x(n);
    for (auto& v : x) v = random_field<Fr>(rng);
    for (bool inverse : {false, true}) {
      std::vector<Fr> ref = x;
      if (inverse) dom.intt(ref, &pool);
      else dom.ntt(ref, &pool);
      if (L <= 8) {  // and an independent naive DFT
        std::vector<Fr> naive(n, Fr::zero());
        const Fr w0 = inverse ? dom.omega().inv() : dom.omega();
        for (size_t k = 0; k < n; ++k) {
          Fr wk = w0.pow(pm::Limbs<1>{k}), w = Fr::one();
          for (size_t j = 0; j < n; ++j, w *= wk) naive[k] += x[j] * w;
          if (inverse) naive[k] *= Fr::from_u64(n).inv();
        }
        bad_small += naive != ref;
      }
      std::vector<Fr> got = x;
      cu::testing::ntt(dev, cc, reinterpret_cast<uint64_t*>(got.data()), n, inverse);
      (L <= 10 ? bad_small : bad_large) += got != ref;
    }
  }
  report.check(bad_small == 0, name + ": device NTT/iNTT natural order = naive DFT and framework (n = 2^1..2^10)");
  report.check(bad_large == 0, name + ": device NTT/iNTT natural order = framework (n = 2^12..2^20)");

  cu::Lane lane(dev, cc, size_t(1) << 20, 0);
  size_t bad_h = 0, runs = 0;
  for (uint32_t L : {0u, 1u, 2u, 4u, 7u, 8u, 9u, 11u, 16u, 19u, 20u}) {
    if (g_opt.small && L > 11) continue;
    const size_t n = size_t(1) << L;
    pm::Radix2Domain<Fr> dom(n);
    for (bool with_c : {true, false}) {
      std::vector<Fr> a(n), b(n), c(n);
      for (size_t i = 0; i < n; ++i) {
        a[i] = random_field<Fr>(rng);
        b[i] = random_field<Fr>(rng);
        c[i] = with_c ? random_field<Fr>(rng) : a[i] * b[i];
      }
      std::vector<Fr> ra = a, rb = b, rc = c;
      odd_coset_h(dom, std::span(ra), std::span(rb), std::span(rc), &pool);
      std::vector<Fr> ga = a;
      lane.compute_h(reinterpret_cast<uint64_t*>(ga.data()), reinterpret_cast<const uint64_t*>(b.data()),
                     with_c ? reinterpret_cast<const uint64_t*>(c.data()) : nullptr, n);
      for (size_t i = 0; i < n; ++i) bad_h += Fr::from_mont(ra[i].to_std()) != ga[i];
      ++runs;
    }
  }
  report.check(bad_h == 0, name + ": compute_h = framework odd_coset_h, standard form (" + std::to_string(runs) +
                               " runs, n = 1..2^20, c given and c = a∘b)");
}

// --- MSM ----------------------------------------------------------------------------------------
template <class Curve, class Group>
struct MsmFixture {
  std::vector<pm::Affine<Group>> base;  // 2^16 points k_i·G
  std::vector<Fr256> ks;
  size_t period = 0;
  std::vector<uint8_t> bytes;                    // base tiled to `count` points
  std::unique_ptr<cu::ResidentPoints> resident;  // the same on the device
  static constexpr bool g2 = !std::is_same_v<Group, typename Curve::G1>;

  MsmFixture(int dev, size_t count, uint64_t seed, const pm::Affine<Group>& g, pacer::ThreadPool& pool) {
    period = std::min<size_t>(count, 1 << 16);
    make_points<Curve, Group>(period, seed, g, pool, base, ks);
    bytes.reserve(count * pm::point_bytes<Group>());
    for (size_t i = 0; i < count; ++i) {
      put(bytes, base[i % period].x);
      put(bytes, base[i % period].y);
    }
    // Through staging buffers of a few hundred points and a stray byte: every MSM check below also
    // checks the chunked upload a key load uses (chunks of whole points, the last one short).
    cu::UploadStaging staging(pm::point_bytes<Group>() * 300 + 5);
    resident = cu::upload_points(dev, cu_curve<Curve>(), g2, count, staging, [&](size_t offset, size_t n, void* dst) {
      if (offset % pm::point_bytes<Group>() || n % pm::point_bytes<Group>())
        throw std::logic_error("staged upload: a chunk that splits a point");
      std::memcpy(dst, bytes.data() + offset, n);
    });
  }
  // The first n points again, with window copies computed on the device.
  std::unique_ptr<cu::ResidentPoints> copied(int dev, size_t n, const cu::WindowCopies& copies) const {
    return cu::upload_points(dev, cu_curve<Curve>(), g2, bytes.data(), n, copies);
  }
  // The expected Σ s_i·P_i, from Σ s_i·k_i.
  pm::Jacobian<Group> expected(const std::vector<Fr256>& s, size_t count, const pm::Affine<Group>& g,
                               pacer::ThreadPool& pool) const {
    return pm::Jacobian<Group>::from(g).mul(dot_mod_r<Curve>(s, ks, count, period, pool));
  }
};

template <class Curve, class Group>
pm::Jacobian<Group> run_msm(cu::Lane& lane, const cu::ResidentPoints& pts, const std::vector<Fr256>& s, size_t n) {
  std::vector<uint8_t> out(3 * pm::field_bytes<typename Group::Field>());
  lane.msm(pts, reinterpret_cast<const uint64_t*>(s.data()), n, out.data());
  return jacobian_from_bytes<Group>(out.data());
}

template <class Curve, class Group>
void check_msm_on_device(Report& report, int dev, Rng& rng, pacer::ThreadPool& pool, const pm::Affine<Group>& g,
                         const std::string& name, size_t max_n) {
  if (g_opt.small) max_n = std::min<size_t>(max_n, 1 << 13);
  MsmFixture<Curve, Group> fx(dev, max_n, rng.next(), g, pool);
  cu::Lane lane(dev, cu_curve<Curve>(), 0, 1 << 16);
  // Scalars forced into 5 pieces (the automatic split uses one below 2^17 points): every piece
  // after the first adds into buckets the earlier ones filled.
  cu::Lane pieced(dev, cu_curve<Curve>(), 0, 1 << 16, cu::KernelConfig{.msm_pieces = 5});
  size_t bad_naive = 0, bad_cpu = 0, bad_id = 0, runs_naive = 0, runs_cpu = 0, runs_id = 0;
  size_t bad_pieces = 0, runs_pieces = 0;
  auto scalars = [&](size_t n, int dist) {
    std::vector<Fr256> s(n);
    Fr256 rm1 = Curve::Fr::P;
    rm1[0] -= 1;
    for (size_t i = 0; i < n; ++i) {
      switch (dist) {
        case 0: s[i] = random_scalar<Curve>(rng); break;
        case 1: s[i] = Fr256{1, 0, 0, 0}; break;                       // one giant bucket per window 0
        case 2: s[i] = i % 3 ? Fr256{} : random_scalar<Curve>(rng); break;  // mostly zeros
        case 3: s[i] = rm1; break;                                      // r - 1 everywhere
        default: s[i] = Fr256{}; break;                                 // all zero: infinity
      }
    }
    return s;
  };
  // G1 also with window copies: c = 16 (16 copies) on 1000 points, the planned ones from 2^17.
  std::unique_ptr<cu::ResidentPoints> copied_small, copied_large;
  if constexpr (!MsmFixture<Curve, Group>::g2) {
    copied_small = fx.copied(dev, std::min<size_t>(max_n, 1000), cu::WindowCopies{16, 16});
    if (max_n >= (size_t(1) << 17))
      copied_large = fx.copied(dev, max_n, cu::plan_window_copies(cu_curve<Curve>(), false, max_n));
  }
  size_t bad_copies = 0, runs_copies = 0;
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(17), size_t(100), size_t(1000)}) {
    if (n > max_n) continue;
    for (int dist = 0; dist < 5; ++dist) {
      const auto s = scalars(n, dist);
      const auto ref = pm::detail::small_msm<Group>(std::span(fx.base).first(n), s, 256);
      bad_naive += run_msm<Curve, Group>(lane, *fx.resident, s, n) != ref;
      ++runs_naive;
      bad_pieces += run_msm<Curve, Group>(pieced, *fx.resident, s, n) != ref;
      ++runs_pieces;
      if (copied_small) {
        bad_copies += run_msm<Curve, Group>(lane, *copied_small, s, n) != ref;
        bad_pieces += run_msm<Curve, Group>(pieced, *copied_small, s, n) != ref;
        ++runs_copies;
        ++runs_pieces;
      }
    }
  }
  for (size_t n : {size_t(1) << 10, size_t(1) << 13, size_t(1) << 16}) {
    if (n > max_n) continue;
    for (int dist = 0; dist < 4; ++dist) {
      const auto s = scalars(n, dist);
      const auto ref = pm::msm<Group>(std::span<const pm::Affine<Group>>(fx.base).first(n), s, &pool, kCpuOracle);
      bad_cpu += run_msm<Curve, Group>(lane, *fx.resident, s, n) != ref;
      ++runs_cpu;
      bad_pieces += run_msm<Curve, Group>(pieced, *fx.resident, s, n) != ref;
      ++runs_pieces;
    }
  }
  for (size_t n = size_t(1) << 17; n <= max_n; n <<= 2) {
    for (int dist : {0, 1}) {
      const auto s = scalars(n, dist);
      const auto want = fx.expected(s, n, g, pool);
      bad_id += run_msm<Curve, Group>(lane, *fx.resident, s, n) != want;
      ++runs_id;
      if (copied_large) {
        bad_copies += run_msm<Curve, Group>(lane, *copied_large, s, n) != want;
        ++runs_copies;
      }
    }
  }
  report.check(bad_naive == 0, name + ": MSM = naive sum (" + std::to_string(runs_naive) +
                                   " runs, n = 1..1000; random/ones/zeros/r-1/all-zero scalars)");
  report.check(bad_cpu == 0, name + ": MSM = framework CPU msm (" + std::to_string(runs_cpu) + " runs, n = 2^10..2^16)");
  report.check(bad_pieces == 0, name + ": MSM with the scalars in 5 pieces = the same sums (" +
                                    std::to_string(runs_pieces) + " runs, n = 1..2^16)");
  if (runs_id)
    report.check(bad_id == 0, name + ": MSM = (Σ s_i·k_i)·G for P_i = k_i·G (" + std::to_string(runs_id) +
                                  " runs, n = 2^17..2^" + std::to_string(63 - __builtin_clzll(max_n)) + ")");
  if (runs_copies) {
    const auto planned = copied_large ? copied_large->copies() : cu::WindowCopies{};
    report.check(bad_copies == 0, name + ": MSM with window copies = the same sums (" + std::to_string(runs_copies) +
                                      " runs: 16 copies at c = 16 for n <= 1000; " + std::to_string(planned.copies) +
                                      " at c = " + std::to_string(planned.window_bits) + " from 2^17)");
  }
}

// Two lanes on one device, driven from two host threads at once.
template <class Curve>
void check_two_lanes(Report& report, int dev, Rng& rng, pacer::ThreadPool& pool) {
  using Group = typename Curve::G1;
  using Fr = typename Curve::Fr;
  const size_t n = size_t(1) << 18;
  MsmFixture<Curve, Group> fx(dev, n, rng.next(), Curve::g1_generator(), pool);
  std::vector<Fr256> s(n);
  for (auto& k : s) k = random_scalar<Curve>(rng);
  const auto expect = fx.expected(s, n, Curve::g1_generator(), pool);
  std::vector<Fr> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = random_field<Fr>(rng);
    b[i] = random_field<Fr>(rng);
  }
  pm::Radix2Domain<Fr> dom(n);
  std::vector<Fr> ra = a, rb = b, rc(n);
  for (size_t i = 0; i < n; ++i) rc[i] = a[i] * b[i];
  odd_coset_h(dom, std::span(ra), std::span(rb), std::span(rc), &pool);
  bool ok[2] = {true, true};
  std::string err[2];
  auto worker = [&](int id) {
    try {
      cu::Lane lane(dev, cu_curve<Curve>(), n, n);
      for (int rep = 0; rep < 3; ++rep) {
        ok[id] &= run_msm<Curve, Group>(lane, *fx.resident, s, n) == expect;
        std::vector<Fr> h = a;
        lane.compute_h(reinterpret_cast<uint64_t*>(h.data()), reinterpret_cast<const uint64_t*>(b.data()), nullptr, n);
        for (size_t i = 0; i < n; ++i) ok[id] &= Fr::from_mont(ra[i].to_std()) == h[i];
      }
    } catch (const std::exception& e) {
      ok[id] = false;
      err[id] = e.what();
    }
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  report.check(ok[0] && ok[1], curve_name<Curve>() + ": two lanes from two threads at once (MSM 2^18 + compute_h 2^18, x3)" +
                                   (err[0].empty() ? "" : " [" + err[0] + "]") + (err[1].empty() ? "" : " [" + err[1] + "]"));
}

void check_errors(Report& report, int dev) {
  bool oom = false, bad_size = false, too_many = false;
  try {
    cu::Lane lane(dev, cu::Curve::bn254, 0, size_t(1) << 30);
  } catch (const std::runtime_error& e) {
    oom = std::string(e.what()).find("out of device memory") != std::string::npos;
    std::printf("    (expected) %s\n", e.what());
  }
  try {
    cu::Lane lane(dev, cu::Curve::bn254, 1 << 4, 16);
    std::vector<uint64_t> a(4 * 32);
    lane.compute_h(a.data(), a.data(), a.data(), 32);
  } catch (const std::invalid_argument&) {
    bad_size = true;
  }
  try {
    cu::Lane lane(dev, cu::Curve::bn254, 0, 16);
    std::vector<uint8_t> p(64 * 4, 0);
    auto pts = cu::upload_points(dev, cu::Curve::bn254, false, p.data(), 4);
    std::vector<uint64_t> s(4 * 8, 0);
    std::vector<uint8_t> out(96);
    lane.msm(*pts, s.data(), 8, out.data());
  } catch (const std::invalid_argument&) {
    too_many = true;
  }
  report.check(oom && bad_size && too_many, "errors surface as exceptions (out of memory, bad size, too many scalars)");
}

// --- benchmarks ---------------------------------------------------------------------------------
// --dump-msm DIR: the benchmark's points (x, y in Montgomery form, (0, 0) = infinity), scalars
// (standard form) and, per size, the expected affine result over the first 2^lg of them, so that
// another MSM (the sppark anchor of docs/benchmarks.md) runs the very same MSMs in the same call.
template <class Curve, class Fixture>
void dump_msm_inputs(const Fixture& fx, const std::vector<Fr256>& s, const std::vector<unsigned>& logs,
                     pacer::ThreadPool& pool) {
  const std::string stem = g_opt.dump_msm + (Curve::id == pacer::CurveId::bn254 ? "/bn254" : "/bls12_381");
  auto write = [](const std::string& path, const void* data, size_t bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    const bool ok = f && std::fwrite(data, 1, bytes, f) == bytes;
    if (!f || std::fclose(f) != 0 || !ok) throw std::runtime_error("--dump-msm: cannot write " + path);
  };
  write(stem + ".points", fx.bytes.data(), fx.bytes.size());
  write(stem + ".scalars", s.data(), s.size() * sizeof(Fr256));
  std::vector<uint8_t> expected;
  for (unsigned lg : logs) {
    const auto r = fx.expected(s, size_t(1) << lg, Curve::g1_generator(), pool).to_affine();
    const uint32_t tag = lg;
    const auto* tag_bytes = reinterpret_cast<const uint8_t*>(&tag);
    expected.insert(expected.end(), tag_bytes, tag_bytes + sizeof tag);
    put(expected, r.x);
    put(expected, r.y);
  }
  write(stem + ".expected", expected.data(), expected.size());
  std::printf("%s G1 MSM inputs written to %s.{points,scalars,expected}\n", curve_name<Curve>().c_str(),
              stem.c_str());
  std::fflush(stdout);
}

template <class Curve>
void bench_msm(int dev, Rng& rng, pacer::ThreadPool& pool, Report& report, const std::vector<unsigned>& logs, int reps) {
  using Group = typename Curve::G1;
  const size_t max_n = size_t(1) << logs.back();
  MsmFixture<Curve, Group> fx(dev, max_n, rng.next(), Curve::g1_generator(), pool);
  auto* pinned = static_cast<Fr256*>(cu::testing::alloc_pinned(max_n * sizeof(Fr256)));
  std::vector<Fr256> s(max_n);
  for (auto& k : s) k = random_below<4>(rng, Curve::Fr::P);
  std::copy(s.begin(), s.end(), pinned);
  cu::Lane lane(dev, cu_curve<Curve>(), 0, max_n, g_opt.kernels);
  if (!g_opt.dump_msm.empty()) dump_msm_inputs<Curve>(fx, s, logs, pool);
  // One size over one resident basis: plain, or with window copies (their c, not the lane's).
  auto measure = [&](unsigned lg, const cu::ResidentPoints& pts, const std::string& tag) {
    const size_t n = size_t(1) << lg;
    std::vector<double> total, upload, wait, compute, digits, sort, acc, red, fin;
    std::vector<uint8_t> out(3 * pm::field_bytes<typename Group::Field>());
    for (int r = 0; r <= reps; ++r) {
      lane.msm(pts, reinterpret_cast<const uint64_t*>(pinned), n, out.data());
      if (r == 0) {
        const bool ok = jacobian_from_bytes<Group>(out.data()) == fx.expected(s, n, Curve::g1_generator(), pool);
        report.check(ok, tag + " benchmark result = (Σ s_i·k_i)·G");
        continue;
      }
      const auto& t = lane.last_msm_timing();
      total.push_back(t.total_ms);
      upload.push_back(t.upload_ms);
      wait.push_back(t.upload_wait_ms);
      compute.push_back(t.compute_ms);
      digits.push_back(t.digits_ms);
      sort.push_back(t.sort_ms);
      acc.push_back(t.accumulate_ms);
      red.push_back(t.reduce_ms);
      fin.push_back(t.finish_ms);
    }
    const auto& t = lane.last_msm_timing();
    summarize(tag + " total", total,
              "(c=" + std::to_string(t.window_bits) + ", " + std::to_string(t.windows) + " windows" +
                  (t.copies > 1 ? ", " + std::to_string(t.copies) + " copies" : "") + ", " +
                  std::to_string(t.pieces) + (t.pieces > 1 ? " scalar pieces)" : " scalar piece)"));
    summarize(tag + "   scalar upload (pinned, overlaps the sums)", upload);
    summarize(tag + "   waiting for scalars", wait);
    summarize(tag + "   computing (total - waiting)", compute);
    summarize(tag + "     digits", digits);
    summarize(tag + "     sort (CUB, per region)", sort);
    summarize(tag + "     bucket sums", acc);
    summarize(tag + "     bucket weighting + copy", red);
    summarize(tag + "     host finish", fin);
  };
  for (unsigned lg : logs) {
    const size_t n = size_t(1) << lg;
    const std::string tag = curve_name<Curve>() + " G1 MSM 2^" + std::to_string(lg);
    measure(lg, *fx.resident, tag);
    const cu::WindowCopies plan = cu::plan_window_copies(cu_curve<Curve>(), false, n);
    if (plan.copies > 1 && !g_opt.kernels.msm_window_bits) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto copied = fx.copied(dev, n, plan);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s with window copies: upload + %u copies at c = %u in %.1f ms (%.0f MiB on the device)\n",
                  tag.c_str(), plan.copies, plan.window_bits, ms, double(copied->bytes()) / (1 << 20));
      measure(lg, *copied, tag + " copies");
    }
  }
  cu::testing::free_pinned(pinned);
}

template <class Curve>
void bench_msm_g2(int dev, Rng& rng, pacer::ThreadPool& pool, Report& report, unsigned lg, int reps) {
  using Group = typename Curve::G2;
  const size_t n = size_t(1) << lg;
  MsmFixture<Curve, Group> fx(dev, n, rng.next(), Curve::g2_generator(), pool);
  std::vector<Fr256> s(n);
  for (auto& k : s) k = random_below<4>(rng, Curve::Fr::P);
  cu::Lane lane(dev, cu_curve<Curve>(), 0, 0);
  std::vector<double> total;
  std::vector<uint8_t> out(3 * pm::field_bytes<typename Group::Field>());
  for (int r = 0; r <= reps; ++r) {
    lane.msm(*fx.resident, reinterpret_cast<const uint64_t*>(s.data()), n, out.data());
    if (r == 0)
      report.check(jacobian_from_bytes<Group>(out.data()) == fx.expected(s, n, Curve::g2_generator(), pool),
                   curve_name<Curve>() + " G2 MSM 2^" + std::to_string(lg) + " benchmark result = (Σ s_i·k_i)·G2");
    else total.push_back(lane.last_msm_timing().total_ms);
  }
  summarize(curve_name<Curve>() + " G2 MSM 2^" + std::to_string(lg) + " total (pageable)", total);
}

template <class Curve>
void bench_ntt(int dev, const std::vector<unsigned>& logs, int reps) {
  using Fr = typename Curve::Fr;
  const auto cc = cu_curve<Curve>();
  const std::string name = curve_name<Curve>();
  for (unsigned lg : logs) {
    const size_t n = size_t(1) << lg;
    auto b = cu::testing::bench_ntt(dev, cc, n, reps, false, g_opt.kernels);
    summarize(name + " NTT 2^" + std::to_string(lg) + " (DIF, bit-rev out)", b, reps);
    b = cu::testing::bench_ntt(dev, cc, n, reps, true, g_opt.kernels);
    summarize(name + " NTT 2^" + std::to_string(lg) + " natural order", b, reps);
    b = cu::testing::bench_compute_h_device(dev, cc, n, reps, g_opt.kernels);
    summarize(name + " compute_h 2^" + std::to_string(lg) + " on device", b, reps);
    // Full compute_h through a lane, pinned host buffers, c = a∘b formed on the device.
    auto* a = static_cast<Fr*>(cu::testing::alloc_pinned(2 * n * sizeof(Fr)));
    Fr* bb = a + n;
    Rng rng(lg);
    for (size_t i = 0; i < 2 * n; ++i) a[i] = random_field<Fr>(rng);
    cu::Lane lane(dev, cc, n, 0, g_opt.kernels);
    std::vector<double> total, up;
    for (int r = 0; r <= reps; ++r) {
      lane.compute_h(reinterpret_cast<uint64_t*>(a), reinterpret_cast<const uint64_t*>(bb), nullptr, n);
      if (r) {
        total.push_back(lane.last_h_timing().total_ms);
        up.push_back(lane.last_h_timing().upload_ms);
      }
    }
    summarize(name + " compute_h 2^" + std::to_string(lg) + " with transfers", total, "(pinned, c = a∘b on device)");
    summarize(name + " compute_h 2^" + std::to_string(lg) + "   upload a, b", up);
    cu::testing::free_pinned(a);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options& opt = g_opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") opt.quick = true;
    else if (a == "--no-host") opt.host = false;
    else if (a == "--bench-only") opt.bench_only = true;
    else if (a == "--small") opt.small = true;
    else if (a == "--seed" && i + 1 < argc) opt.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--max-log" && i + 1 < argc) opt.max_log = unsigned(std::atoi(argv[++i]));
    else if (a == "--msm-window-bits" && i + 1 < argc) opt.kernels.msm_window_bits = unsigned(std::atoi(argv[++i]));
    else if (a == "--msm-chunk" && i + 1 < argc) opt.kernels.msm_chunk = unsigned(std::atoi(argv[++i]));
    else if (a == "--msm-pieces" && i + 1 < argc) opt.kernels.msm_pieces = unsigned(std::atoi(argv[++i]));
    else if (a == "--ntt-pass-bits" && i + 1 < argc) opt.kernels.ntt_pass_bits = unsigned(std::atoi(argv[++i]));
    else if (a == "--ntt-log-cols" && i + 1 < argc) opt.kernels.ntt_log_cols = unsigned(std::atoi(argv[++i]));
    else if (a == "--dump-msm" && i + 1 < argc) opt.dump_msm = argv[++i];
    else if (a == "--only" && i + 1 < argc) {
      std::string list = argv[++i];
      for (size_t p = 0; p <= list.size();) {
        const size_t q = std::min(list.find(',', p), list.size());
        opt.only.push_back(list.substr(p, q - p));
        p = q + 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--no-host] [--bench-only] [--small] [--seed N] [--max-log K] [--only P,Q]\n"
                   "       [--msm-window-bits C] [--msm-chunk N] [--msm-pieces N] [--ntt-pass-bits K] [--ntt-log-cols N]\n"
                   "       [--dump-msm DIR]  (the G1 MSM benchmarks' points, scalars and results, for an outside MSM)\n"
                   "phases: host field ntt msm-bn254-g1 msm-bls-g1 msm-bn254-g2 msm-bls-g2 synthesis lanes errors\n"
                   "        bench-field bench-ntt bench-synthesis bench-msm-bn254 bench-msm-bls bench-g2 tune-ntt tune-msm\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    cu::check_kernel_config(opt.kernels);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
  Report report;
  if (opt.host && !opt.bench_only) phase(report, "host", [&] {
    run_host_checks(report, opt.seed);
    run_synthesis_host_checks(report, opt.seed);
  });
  const auto devices = cu::list_devices();
  if (devices.empty()) {
    std::printf("no CUDA device: skipped the device tests and benchmarks (%s)\n", cu::last_error().c_str());
    std::printf("%d checks passed, %d failed\n", report.passed, report.failed);
    return report.failed ? 1 : 0;
  }
  const auto& d = devices[0];
  std::printf("device 0: %s, sm_%d%d, %d SMs, %.1f GiB (%.1f free)\n", d.name.c_str(), d.cc_major, d.cc_minor, d.sms,
              d.total_bytes / 1073741824.0, d.free_bytes / 1073741824.0);
  const int dev = 0;
  pacer::ThreadPool pool(0);
  Rng rng(opt.seed + 1);
  if (!opt.bench_only) {
    std::printf("device checks\n");
    phase(report, "field", [&] {
      check_field_on_device<pm::Bn254::Fq>(report, dev, cu::Curve::bn254, cu::testing::Field::fq, rng, "BN254 Fq");
      check_field_on_device<pm::Bn254::Fr>(report, dev, cu::Curve::bn254, cu::testing::Field::fr, rng, "BN254 Fr");
      check_field_on_device<pm::Bn254::Fq2>(report, dev, cu::Curve::bn254, cu::testing::Field::fq2, rng, "BN254 Fq2");
      check_field_on_device<pm::Bls12_381::Fq>(report, dev, cu::Curve::bls12_381, cu::testing::Field::fq, rng, "BLS12-381 Fq");
      check_field_on_device<pm::Bls12_381::Fr>(report, dev, cu::Curve::bls12_381, cu::testing::Field::fr, rng, "BLS12-381 Fr");
      check_field_on_device<pm::Bls12_381::Fq2>(report, dev, cu::Curve::bls12_381, cu::testing::Field::fq2, rng, "BLS12-381 Fq2");
    });
    phase(report, "ntt", [&] {
      check_ntt_on_device<pm::Bn254>(report, dev, rng, pool);
      check_ntt_on_device<pm::Bls12_381>(report, dev, rng, pool);
    });
    phase(report, "msm-bn254-g1", [&] {
      check_msm_on_device<pm::Bn254, pm::Bn254::G1>(report, dev, rng, pool, pm::Bn254::g1_generator(), "BN254 G1", 1 << 21);
    });
    phase(report, "msm-bls-g1", [&] {
      check_msm_on_device<pm::Bls12_381, pm::Bls12_381::G1>(report, dev, rng, pool, pm::Bls12_381::g1_generator(),
                                                            "BLS12-381 G1", 1 << 21);
    });
    phase(report, "msm-bn254-g2", [&] {
      check_msm_on_device<pm::Bn254, pm::Bn254::G2>(report, dev, rng, pool, pm::Bn254::g2_generator(), "BN254 G2", 1 << 17);
    });
    phase(report, "msm-bls-g2", [&] {
      check_msm_on_device<pm::Bls12_381, pm::Bls12_381::G2>(report, dev, rng, pool, pm::Bls12_381::g2_generator(),
                                                            "BLS12-381 G2", 1 << 17);
    });
    phase(report, "synthesis", [&] { check_synthesis_on_device(report, dev, rng, pool, opt.small); });
    if (!opt.small) phase(report, "lanes", [&] { check_two_lanes<pm::Bn254>(report, dev, rng, pool); });
    phase(report, "errors", [&] { check_errors(report, dev); });
  }
  if (!opt.quick) {
    std::printf("benchmarks (median of 5 after a warm-up; CUDA events)\n");
    phase(report, "bench-field", [&] {
      for (auto [curve, field, name] : {std::tuple{cu::Curve::bn254, cu::testing::Field::fq, "BN254 Fq"},
                                        {cu::Curve::bn254, cu::testing::Field::fr, "BN254 Fr"},
                                        {cu::Curve::bls12_381, cu::testing::Field::fq, "BLS12-381 Fq"},
                                        {cu::Curve::bn254, cu::testing::Field::fq2, "BN254 Fq2"}}) {
        const double rate = cu::testing::field_mul_rate(dev, curve, field);
        std::printf("  %-44s %.1f G products/s\n", (std::string(name) + " multiplication throughput").c_str(), rate / 1e9);
        g_rows.push_back({std::string(name) + " products/s (G)", rate / 1e9, 0, 0, "throughput"});
      }
    });
    std::vector<unsigned> logs;
    for (unsigned lg : {20u, 22u, 24u})
      if (lg <= opt.max_log) logs.push_back(lg);
    if (!logs.empty()) {
      phase(report, "bench-ntt", [&] { bench_ntt<pm::Bn254>(dev, logs, 5); });
      phase(report, "bench-synthesis", [&] {
        for (unsigned lg : logs) bench_synthesis(dev, rng, lg, 3, 5);
      });
      phase(report, "bench-msm-bn254", [&] { bench_msm<pm::Bn254>(dev, rng, pool, report, logs, 5); });
      phase(report, "bench-msm-bls", [&] { bench_msm<pm::Bls12_381>(dev, rng, pool, report, logs, 5); });
      // Tuning (only when named with --only; run with the experiment knobs of internal.hpp set).
      if (!opt.only.empty()) phase(report, "tune-ntt", [&] {
        for (unsigned lg : logs) {
          if (lg < 22) continue;
          const auto b = cu::testing::bench_ntt(dev, cu::Curve::bn254, size_t(1) << lg, 5, false);
          summarize("tune BN254 NTT 2^" + std::to_string(lg) + " (DIF)", b, 5);
        }
        const auto h = cu::testing::bench_compute_h_device(dev, cu::Curve::bn254, size_t(1) << logs.back(), 5);
        summarize("tune BN254 compute_h 2^" + std::to_string(logs.back()) + " on device", h, 5);
      });
      if (!opt.only.empty()) phase(report, "tune-msm", [&] { bench_msm<pm::Bn254>(dev, rng, pool, report, {logs.back()}, 5); });
      phase(report, "bench-g2", [&] {
        bench_msm_g2<pm::Bn254>(dev, rng, pool, report, 20, 3);
        bench_msm_g2<pm::Bls12_381>(dev, rng, pool, report, 20, 3);
      });
    }
    if (!g_rows.empty()) {
      std::printf("\nsummary (ms; field rows: G products/s)\n");
      for (const auto& r : g_rows) std::printf("| %-46s | %10.3f | %s\n", r.what.c_str(), r.median_ms, r.note.c_str());
    }
  }
  std::printf("%d checks passed, %d failed\n", report.passed, report.failed);
  return report.failed ? 1 : 0;
}

// sppark anchor (issue 10, docs/benchmarks.md): times supranational/sppark's GPU Pippenger MSM
// (msm_t of msm/pippenger.cuh, the path of sppark's poc/msm-cuda) on the very inputs of Pacer's MSM
// benchmark, written by `pacer_cuda_selftest --dump-msm DIR`, and checks every result against the
// expected one. sppark and blst are never part of this repository: scripts/anchor/build.sh builds
// this file against checkouts given by path. The curve is chosen at compile time with
// -DFEATURE_BN254 or -DFEATURE_BLS12_381 (sppark's own macros).
//
// Usage: sppark_bench_<curve> DIR [timed_runs (default 7, min 5)] [--host-ref]
//   DIR/<curve>.points    N affine points, x||y, Montgomery form, LE 64-bit limbs (infinity = 0, 0)
//   DIR/<curve>.scalars   N scalars, 32 bytes each, standard form, LE
//   DIR/<curve>.expected  records: uint32 log2(n), the expected affine x||y (Montgomery) over the first n
//   --host-ref            also recompute every record up to 2^12 on the CPU with sppark's host field
//                         code (double-and-add) before any CUDA call: checks the layouts without a GPU.
// Timed: one msm_t::invoke (scalar upload from pinned memory, sppark's kernels, its host finish),
// wall clock, median of the timed runs after a warm-up; the points are uploaded beforehand.

#include <cuda.h>

#if defined(FEATURE_BN254)
#include <ff/alt_bn128.hpp>
#define CURVE_NAME "bn254"
#define FP_BYTES 32
#elif defined(FEATURE_BLS12_381)
#include <ff/bls12-381.hpp>
#define CURVE_NAME "bls12_381"
#define FP_BYTES 48
#else
#error "define FEATURE_BN254 or FEATURE_BLS12_381"
#endif

#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

// Exactly the type choices of sppark/poc/msm-cuda/cuda/pippenger.cu:
typedef jacobian_t<fp_t> point_t;     // result type: Jacobian (X/Z^2, Y/Z^3)
typedef xyzz_t<fp_t> bucket_t;        // bucket type: XYZZ (GPU side only)
typedef bucket_t::affine_t affine_t;  // Affine_t: {fp X, Y}, inf = (0,0)
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>

#ifdef __CUDA_ARCH__
// device pass: the in-memory (mem_t) layout the kernels read
static_assert(sizeof(fp_t) == FP_BYTES, "device fp_t size");
static_assert(sizeof(affine_t::mem_t) == 2 * FP_BYTES, "device affine mem_t size");
static_assert(sizeof(scalar_t) == 32, "device scalar size");
#else

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>
#include <algorithm>
#include <chrono>

// host pass: sppark's host types are blst_256_t / blst_384_t (vec256/vec384 of
// 64-bit limbs, Montgomery form with R = 2^256 / 2^384).
static_assert(sizeof(fp_t) == FP_BYTES, "host fp_t size");
static_assert(sizeof(affine_t) == 2 * FP_BYTES, "host affine_t size");
static_assert(sizeof(affine_t::mem_t) == 2 * FP_BYTES, "host affine mem_t size");
static_assert(sizeof(scalar_t) == 32, "host scalar size");
static_assert(sizeof(point_t) == 3 * FP_BYTES, "host jacobian size");

typedef msm_t<bucket_t, point_t, affine_t, scalar_t> msm_type;

static const size_t AFF_BYTES = 2 * FP_BYTES;

#define LOG(...)         \
  do {                   \
    printf(__VA_ARGS__); \
    fflush(stdout);      \
  } while (0)

static std::vector<uint8_t> read_file(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) {
    LOG("error: cannot open %s: %s\n", path.c_str(), strerror(errno));
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  std::vector<uint8_t> buf((size_t)std::max(sz, 0L));
  if (sz > 0 && fread(buf.data(), 1, buf.size(), f) != buf.size()) {
    LOG("error: short read on %s\n", path.c_str());
    exit(2);
  }
  fclose(f);
  return buf;
}

struct record_t {
  uint32_t lg;
  uint8_t xy[AFF_BYTES];
};

static void hex(const char* tag, const uint8_t* p, size_t n) {
  printf("    %s = 0x", tag);
  for (size_t i = n; i--;) printf("%02x", p[i]);  // big-endian print of LE value
  printf("\n");
}

static bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

// Compare a Jacobian result with the expected affine (Montgomery) point.
static bool check(const point_t& out, const record_t& rec, bool verbose) {
  bool exp_inf = all_zero(rec.xy, AFF_BYTES);
  bool ok;
  if (out.is_inf()) {
    ok = exp_inf;
  } else if (exp_inf) {
    ok = false;
  } else {
    affine_t e;
    memcpy((void*)&e, rec.xy, AFF_BYTES);
    ok = (out == e);  // X == x*Z^2 && Y == y*Z^3, host field ops
  }
  if (!ok && verbose) {
    LOG("  mismatch (Montgomery-form limbs, printed as big-endian hex):\n");
    hex("expected x", rec.xy, FP_BYTES);
    hex("expected y", rec.xy + FP_BYTES, FP_BYTES);
    if (out.is_inf()) {
      printf("    got: point at infinity\n");
    } else {
      affine_t a = out;  // 1/Z on the host
      uint8_t buf[AFF_BYTES];
      memcpy(buf, (const void*)&a, AFF_BYTES);
      hex("got x     ", buf, FP_BYTES);
      hex("got y     ", buf + FP_BYTES, FP_BYTES);
    }
    fflush(stdout);
  }
  return ok;
}

// Plain double-and-add on the host with sppark's host curve code.
static point_t host_msm(const affine_t* pts, const scalar_t* scs, size_t n) {
  point_t acc;
  acc.inf();
  for (size_t i = 0; i < n; i++) {
    point_t P = pts[i];  // Affine_t -> jacobian (Z = 0 if (0,0))
    uint64_t limbs[4];
    memcpy(limbs, (const void*)&scs[i], 32);
    point_t r;
    r.inf();
    for (int b = 255; b >= 0; b--) {
      r.dbl();
      if ((limbs[b / 64] >> (b % 64)) & 1) r.add(P);
    }
    acc.add(r);
  }
  return acc;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

#define CHECK_CUDA(expr)                                                                       \
  do {                                                                                         \
    cudaError_t e_ = (expr);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      LOG("error: %s failed: %s (%s)\n", #expr, cudaGetErrorString(e_), cudaGetErrorName(e_)); \
      exit(3);                                                                                 \
    }                                                                                          \
  } while (0)

int main(int argc, char* argv[]) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [timed_runs>=5] [--host-ref]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  int runs = 7;
  bool host_ref = false;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--host-ref"))
      host_ref = true;
    else
      runs = std::max(5, atoi(argv[i]));
  }
  const std::string base = dir + "/" CURVE_NAME;

  LOG("sppark anchor (" CURVE_NAME "): reading %s.{points,scalars,expected}\n", base.c_str());
  std::vector<uint8_t> pbuf = read_file(base + ".points");
  std::vector<uint8_t> sbuf = read_file(base + ".scalars");
  std::vector<uint8_t> ebuf = read_file(base + ".expected");

  if (pbuf.size() % AFF_BYTES || sbuf.size() % 32) {
    LOG("error: file sizes not multiples of %zu / 32 bytes (points %zu, scalars %zu)\n", AFF_BYTES, pbuf.size(),
        sbuf.size());
    return 2;
  }
  size_t npts = pbuf.size() / AFF_BYTES;
  size_t nscs = sbuf.size() / 32;
  size_t N = std::min(npts, nscs);

  const size_t REC = 4 + AFF_BYTES;
  if (ebuf.size() == 0 || ebuf.size() % REC) {
    LOG("error: %s.expected size %zu is not a positive multiple of %zu\n", base.c_str(), ebuf.size(), REC);
    return 2;
  }
  std::vector<record_t> recs(ebuf.size() / REC);
  size_t nmax = 0;
  for (size_t i = 0; i < recs.size(); i++) {
    memcpy(&recs[i].lg, &ebuf[i * REC], 4);
    memcpy(recs[i].xy, &ebuf[i * REC + 4], AFF_BYTES);
    if (recs[i].lg > 31 || ((size_t)1 << recs[i].lg) > N) {
      LOG("error: record %zu asks for 2^%u points, files hold %zu points, %zu scalars\n", i, recs[i].lg, npts, nscs);
      return 2;
    }
    nmax = std::max(nmax, (size_t)1 << recs[i].lg);
  }
  LOG("  %zu points, %zu scalars, %zu size record(s), largest 2^%d; %d timed runs each\n", npts, nscs, recs.size(),
      __builtin_ctzll(nmax), runs);

  const affine_t* points = reinterpret_cast<const affine_t*>(pbuf.data());
  bool all_ok = true;

  if (host_ref) {
    const scalar_t* hs = reinterpret_cast<const scalar_t*>(sbuf.data());
    for (auto& r : recs) {
      size_t n = (size_t)1 << r.lg;
      if (n > 4096) {
        LOG("host-ref: skipping 2^%u (too large for the CPU double-and-add)\n", r.lg);
        continue;
      }
      point_t out = host_msm(points, hs, n);
      bool ok = check(out, r, true);
      all_ok &= ok;
      LOG("host-ref " CURVE_NAME
          " 2^%u (sppark host field ops, double-and-add): "
          "result = expected: %s\n",
          r.lg, ok ? "yes" : "no");
    }
  }

  // ---- first CUDA call ----
  LOG("checking for a CUDA device\n");
  int ndev = 0;
  cudaError_t err = cudaGetDeviceCount(&ndev);
  if (err != cudaSuccess || ndev == 0) {
    LOG("error: no usable CUDA device (cudaGetDeviceCount: %s, count %d); "
        "cannot run sppark's GPU MSM\n",
        err == cudaSuccess ? "ok" : cudaGetErrorString(err), ndev);
    return 3;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  LOG("  device 0: %s, %d SMs, sm_%d%d, cooperativeLaunch=%d\n", prop.name, prop.multiProcessorCount, prop.major,
      prop.minor, prop.cooperativeLaunch);

  LOG("copying %zu scalars to pinned host memory (cudaHostAlloc)\n", nmax);
  scalar_t* h_scalars = nullptr;
  CHECK_CUDA(cudaHostAlloc((void**)&h_scalars, nmax * sizeof(scalar_t), cudaHostAllocDefault));
  memcpy((void*)h_scalars, sbuf.data(), nmax * sizeof(scalar_t));

  for (auto& r : recs) {
    size_t n = (size_t)1 << r.lg;
    try {
      LOG("2^%u: uploading %zu points to the GPU (msm_t constructor, outside timing)\n", r.lg, n);
      // msm_t(points, n): selects the current GPU (spawns sppark's host thread
      // pool for it on first use), picks the window size for n, allocates the
      // bucket/histogram blob plus room for n points and copies the points.
      msm_type msm{points, n};
      CHECK_CUDA(cudaDeviceSynchronize());

      // Points pre-loaded: points argument == nullptr -> uses msm's d_points.
      // Host scalars: copied from (pinned) host memory inside invoke, in
      // stride-sized batches on sppark's stream, i.e. part of the timed call.
      auto run_host = [&](point_t& out) {
        RustError e = msm.invoke(out, (const affine_t*)nullptr, n, (const scalar_t*)h_scalars, false);
        if (e.code != 0) {
          LOG("error: sppark invoke failed: code %d: %s\n", e.code, e.message ? e.message : "(no message)");
          exit(4);
        }
      };

      // A warm-up, then the timed runs; every result checked (outside the timing).
      bool ok = true;
      auto measure = [&](const char* what, auto&& run) {
        LOG("2^%u: warm-up (%s)\n", r.lg, what);
        point_t out;
        run(out);
        ok &= check(out, r, ok);
        std::vector<double> t;
        for (int i = 0; i < runs; i++) {
          auto t0 = std::chrono::steady_clock::now();
          run(out);
          auto t1 = std::chrono::steady_clock::now();
          t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
          ok &= check(out, r, ok);
        }
        LOG("sppark " CURVE_NAME " G1 MSM 2^%u (%s): median %.2f ms, min %.2f ms (%d runs)\n", r.lg, what, median(t),
            *std::min_element(t.begin(), t.end()), runs);
      };
      measure("scalars from pinned host memory", run_host);

      // Scalars already resident on the GPU: sppark's templated invoke with a
      // dev_ptr_t (is_device_ptr) -> no HtoD copy of scalars inside invoke.
      scalar_t* d_scalars = nullptr;
      CHECK_CUDA(cudaMalloc((void**)&d_scalars, n * sizeof(scalar_t)));
      CHECK_CUDA(cudaMemcpy(d_scalars, h_scalars, n * sizeof(scalar_t), cudaMemcpyHostToDevice));
      auto run_dev = [&](point_t& out) {
        RustError e = msm.invoke<const affine_t*, dev_ptr_t<scalar_t> >(out, (const affine_t*)nullptr, n,
                                                                        dev_ptr_t<scalar_t>(d_scalars, n), false);
        if (e.code != 0) {
          LOG("error: sppark invoke (device scalars) failed: code %d: %s\n", e.code,
              e.message ? e.message : "(no message)");
          exit(4);
        }
      };
      measure("scalars resident on the GPU", run_dev);
      CHECK_CUDA(cudaFree(d_scalars));

      LOG("sppark " CURVE_NAME " 2^%u result = expected: %s\n", r.lg, ok ? "yes" : "no");
      all_ok &= ok;
    } catch (const cuda_error& e) {
      LOG("error: CUDA error inside sppark at 2^%u: code %d: %s\n", r.lg, e.code(), e.what());
      return 3;
    }
  }

  CHECK_CUDA(cudaFreeHost(h_scalars));
  LOG("sppark " CURVE_NAME ": all results = expected: %s\n", all_ok ? "yes" : "no");
  return all_ok ? 0 : 1;
}

#endif  // !__CUDA_ARCH__

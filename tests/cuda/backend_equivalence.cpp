// The cuda backend against the cpu backend, both loaded as plugins through the ABI: compute_h and
// the G1 and G2 MSMs on random inputs of 2^10..2^22 points for both curves, with zero scalars,
// scalars 1 and r-1, repeated points, a point and its negation, and points at infinity. The
// results must be equal, not close. Exits 77 (ctest: skipped) with a message where no GPU is usable.
//   PACER_CUDA_TEST_MAX_LOG=N  largest size 2^N (default 22; CI never gets here without a GPU)
#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>
#include <filesystem>
#include <random>
#include <sstream>
#include <vector>

#include "pacer/dev/fixed_base.hpp"
#include "pacer/config.hpp"
#include "pacer/error.hpp"
#include "pacer/logging.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/plugin_loader.hpp"
#include "pacer/thread_pool.hpp"

using namespace pacer;
using namespace pacer::math;

namespace pacer::test {
bool cuda_backend_usable(std::string& why);
}

namespace {

std::vector<std::filesystem::path> plugin_search_path() {
  auto path = PluginRegistry::search_path_for(Config{});
  path.emplace_back(PACER_PLUGIN_BUILD_DIR);
  return path;
}

struct Rig {
  ThreadPool pool{0};
  HostServices host;
  // $PACER_PLUGIN_PATH and lib/pacer beside the binary first (a packed copy on the GPU machine),
  // then the build tree this binary came from.
  PluginRegistry registry{plugin_search_path()};
  std::shared_ptr<Allocator> allocator;
  std::shared_ptr<Backend> cpu, cuda;

  Rig() {
    host.log = make_logger("warn");
    host.pool = &pool;
    allocator = registry.create_allocator("plain", Params(toml::table{}, "[allocator.params]"), host);
    host.allocator = host.staging = allocator.get();
    cpu = registry.create_backend("cpu", Params(toml::table{}, "[backend.params]"), host);
    // The GPU's own G2 MSM: with g2 = "cpu" it would be the cpu kernels compared with themselves.
    cuda = registry.create_backend("cuda", Params(toml::table{{"g2", "gpu"}}, "[backend.params]"), host);
  }
};

Rig& rig() {
  static Rig r;
  return r;
}

// n points (k0 + i·step)·G, encoded as a key stores them, then the edge cases written over some.
template <class Group>
std::vector<std::byte> key_points(const Affine<Group>& gen, size_t n, ThreadPool& pool) {
  using J = Jacobian<Group>;
  constexpr size_t kChunk = 1 << 14;
  const J step = J::from(gen).mul(Limbs<1>{7});
  const Affine<Group> step_affine = step.to_affine();
  std::vector<Affine<Group>> points(n);
  run_tasks(&pool, (n + kChunk - 1) / kChunk, [&](size_t c) {
    const size_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    std::vector<J> jac(end - begin);
    J acc = J::from(gen).mul(Limbs<1>{1000003 + 7 * begin});
    for (auto& p : jac) {
      p = acc;
      acc = acc.add_affine(step_affine);
    }
    dev::batch_to_affine<Group>(jac, std::span(points).subspan(begin, end - begin));
  });
  for (size_t i = 997; i < n; i += 1009) points[i] = Affine<Group>::identity();
  if (n > 8) {
    points[3] = points[0];  // repeated
    points[5] = Affine<Group>::identity();
    points[7] = -points[0];  // cancels points[0] under equal scalars
  }
  std::vector<std::byte> bytes(n * point_bytes<Group>());
  for (size_t i = 0; i < n; ++i) encode_point(points[i], bytes.data() + i * point_bytes<Group>());
  return bytes;
}

template <class Fr>
std::vector<Fr256> scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr256> s(n);
  const size_t top_bits = limbs_bit_length(Fr::P) - 192;
  for (auto& k : s) {
    do {
      for (auto& l : k) l = rng();
      k[3] &= (uint64_t(1) << top_bits) - 1;
    } while (limbs_geq(k, Fr::P));
  }
  for (size_t i = 0; i < n; i += 5) s[i] = Fr256{};
  for (size_t i = 11; i < n; i += 13) s[i] = Fr256{rng() % 4, 0, 0, 0};  // small (bit-like witness values)
  if (n > 8) {
    s[1] = Fr::P;
    s[1][0] -= 1;  // r - 1
    s[2] = Fr256{1, 0, 0, 0};
    s[7] = s[0] = Fr256{12345, 0, 0, 0};
  }
  return s;
}

// Random constraint rows as a key's section 4 stores them: 3 terms a row of A and B, some rows empty.
constexpr size_t kRecordBytes = 3 * 4 + 32;
template <class Fr>
std::vector<std::byte> constraint_records(size_t n, std::mt19937_64& rng) {
  std::vector<std::byte> records;
  auto u32 = [&](uint32_t v) {
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    records.insert(records.end(), p, p + 4);
  };
  for (uint32_t matrix = 0; matrix < 2; ++matrix)
    for (uint32_t row = 0; row < n; ++row)
      for (int t = 0; t < (row % 7 == 3 ? 0 : 3); ++t) {
        u32(matrix);
        u32(row);
        u32(uint32_t(rng() % n));
        const Fr256 v = scalars<Fr>(1, rng)[0];
        const auto* p = reinterpret_cast<const std::byte*>(v.data());
        records.insert(records.end(), p, p + 32);
      }
  return records;
}

template <class Curve>
void compare_backends(size_t log_n) {
  using Fr = typename Curve::Fr;
  Rig& r = rig();
  const size_t n = size_t(1) << log_n;
  std::mt19937_64 rng(log_n * 31 + (Curve::id == CurveId::bn254 ? 1 : 2));
  const auto g1 = key_points<typename Curve::G1>(Curve::g1_generator(), n, r.pool);
  const auto g2 = key_points<typename Curve::G2>(Curve::g2_generator(), n, r.pool);
  auto key = std::make_shared<ProvingKey>();
  key->path = "equivalence key 2^" + std::to_string(log_n);
  key->curve = Curve::id;
  key->n8q = curve_n8q(Curve::id);
  key->n8r = 32;
  key->n_vars = uint32_t(n);
  key->n_public = 0;
  key->domain_size = uint32_t(n);
  key->a = key->b1 = key->h = g1;
  key->c = std::span(g1).first((n - 1) * point_bytes<typename Curve::G1>());
  key->b2 = g2;
  auto cpu_key = r.cpu->load(key);
  auto cuda_key = r.cuda->load(key);

  const auto k = scalars<Fr>(n, rng);
  INFO(curve_json_name(Curve::id) << " n = 2^" << log_n);
  for (const Basis basis : {Basis::A, Basis::C}) {
    const auto s = basis == Basis::C ? std::span<const Fr256>(k).first(n - 1) : std::span<const Fr256>(k);
    const PointBytes want = r.cpu->msm_g1(*cpu_key, 0, basis, s, {});
    const PointBytes got = r.cuda->msm_g1(*cuda_key, 0, basis, s, {});
    REQUIRE(got.size == want.size);
    REQUIRE(std::equal(got.data.begin(), got.data.begin() + got.size, want.data.begin()));
  }
  {
    const PointBytes want = r.cpu->msm_g2(*cpu_key, 0, k, {});
    const PointBytes got = r.cuda->msm_g2(*cuda_key, 1, k, {});  // another lane, same answer
    REQUIRE(got.size == want.size);
    REQUIRE(std::equal(got.data.begin(), got.data.begin() + got.size, want.data.begin()));
  }
  // compute_h: a, b, c in Montgomery form (any value below r is one), zero and r-1 included.
  std::vector<Fr256> a = scalars<Fr>(n, rng), b = scalars<Fr>(n, rng), c = scalars<Fr>(n, rng);
  auto a2 = a, b2 = b, c2 = c;
  r.cpu->compute_h(*cpu_key, 0, a, b, c, {});
  r.cuda->compute_h(*cuda_key, 0, a2, b2, c2, {});
  REQUIRE(a2 == a);
  // A proof's vectors on the GPU: synthesis over random constraint rows (3 terms a row of A and B,
  // some rows empty), then compute_h and the H MSM over what stayed there, and the A MSM over the
  // witness uploaded by synthesis; the cpu backend the same way through host buffers.
  const auto records = constraint_records<Fr>(n, rng);
  key->coeffs = records;
  key->n_coeffs = uint32_t(records.size() / kRecordBytes);
  auto cpu_rows_key = r.cpu->load(key);
  auto cuda_rows_key = r.cuda->load(key);
  REQUIRE(r.cuda->vectors(*cuda_rows_key) == VectorHome::device);
  std::vector<Fr256> ha(n), hb(n), hc(n);
  r.cpu->synthesize(*cpu_rows_key, 0, k, ha, hb, hc, {});
  r.cpu->compute_h(*cpu_rows_key, 0, ha, hb, hc, {});
  const PointBytes want_h = r.cpu->msm_g1(*cpu_rows_key, 0, Basis::H, ha, {});
  const PointBytes want_a = r.cpu->msm_g1(*cpu_rows_key, 0, Basis::A, k, {});
  for (const Lane lane : {Lane(0), Lane(1)}) {  // a second proof on another lane: nothing left behind
    r.cuda->synthesize(*cuda_rows_key, lane, k, {}, {}, {}, {});
    const PointBytes got_a = r.cuda->msm_g1(*cuda_rows_key, lane, Basis::A, k, {});
    r.cuda->compute_h(*cuda_rows_key, lane, {}, {}, {}, {});
    const PointBytes got_h = r.cuda->msm_g1(*cuda_rows_key, lane, Basis::H, {}, {});
    r.cuda->end_proof(lane);
    REQUIRE(std::equal(got_h.data.begin(), got_h.data.begin() + got_h.size, want_h.data.begin()));
    REQUIRE(std::equal(got_a.data.begin(), got_a.data.begin() + got_a.size, want_a.data.begin()));
  }
}

size_t max_log() {
  const char* v = std::getenv("PACER_CUDA_TEST_MAX_LOG");
  return v ? size_t(std::atoi(v)) : 22;
}

}  // namespace

TEST_CASE("cuda backend equals the cpu backend on BN254 from 2^10 to 2^22", "[cuda]") {
  for (size_t log_n = 10; log_n <= max_log(); log_n += 2) compare_backends<Bn254>(log_n);
}

TEST_CASE("cuda backend equals the cpu backend on BLS12-381 from 2^10 to 2^22", "[cuda]") {
  for (size_t log_n = 10; log_n <= max_log(); log_n += 2) compare_backends<Bls12_381>(log_n);
}

TEST_CASE("cuda backend refuses a key made resident by the cpu backend", "[cuda]") {
  Rig& r = rig();
  auto key = std::make_shared<ProvingKey>();
  key->curve = CurveId::bn254;
  key->n8q = 32;
  key->n_vars = key->domain_size = 1;
  auto cpu_key = r.cpu->load(key);
  std::vector<Fr256> one(1);
  CHECK_THROWS_AS(r.cuda->msm_g1(*cpu_key, 0, Basis::A, one, {}), FailedError);
}

TEST_CASE("cuda backend whose device cannot hold the constraint rows synthesises on the CPU, warns once "
          "naming the shortfall, and proves the same", "[cuda]") {
  Rig& r = rig();
  constexpr size_t n = size_t(1) << 16;
  std::mt19937_64 rng(4242);
  const auto g1 = key_points<Bn254::G1>(Bn254::g1_generator(), n, r.pool);
  const auto g2 = key_points<Bn254::G2>(Bn254::g2_generator(), n, r.pool);
  const auto records = constraint_records<Bn254::Fr>(n, rng);
  auto key = std::make_shared<ProvingKey>();
  key->path = "rows-do-not-fit key";
  key->curve = CurveId::bn254;
  key->n8q = 32;
  key->n8r = 32;
  key->n_vars = key->domain_size = uint32_t(n);
  key->a = key->b1 = key->h = g1;
  key->c = std::span(g1).first((n - 1) * point_bytes<Bn254::G1>());
  key->b2 = g2;
  key->coeffs = records;
  key->n_coeffs = uint32_t(records.size() / kRecordBytes);
  // A limit that holds the points and one lane's scratch (the backend's own estimate: 480 bytes a
  // point and 32 a wire) but only half the rows ((2n+1)·4 offsets, 36 bytes a term).
  const uint64_t points = 3 * g1.size() + key->c.size() + g2.size(), scratch = 512 * n,
                 rows = (2 * n + 1) * 4 + uint64_t(key->n_coeffs) * 36;
  const int64_t limit_mb = int64_t((points + scratch + rows / 2) >> 20);
  std::ostringstream captured;
  HostServices host = r.host;
  host.log = std::make_shared<spdlog::logger>("rows-fallback", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured));
  auto small = r.registry.create_backend(
      "cuda",
      Params(toml::table{{"g2", "gpu"}, {"lanes_per_device", 1}, {"vram_limit_mb", limit_mb}}, "[backend.params]"),
      host);
  auto cuda_key = small->load(key);
  auto cpu_key = r.cpu->load(key);
  const std::string log = captured.str();
  INFO(log);
  CHECK(small->vectors(*cuda_key) == VectorHome::host);
  CHECK(log.find("constraint rows need") != std::string::npos);
  CHECK(log.find("MiB short") != std::string::npos);
  size_t warnings = 0;
  for (size_t at = log.find("constraint rows need"); at != std::string::npos; at = log.find("constraint rows need", at + 1))
    ++warnings;
  CHECK(warnings == 1);

  const auto w = scalars<Bn254::Fr>(n, rng);
  std::vector<Fr256> a(n), b(n), c(n), a2(n), b2(n), c2(n);
  r.cpu->synthesize(*cpu_key, 0, w, a, b, c, {});
  small->synthesize(*cuda_key, 0, w, a2, b2, c2, {});
  REQUIRE(a2 == a);
  REQUIRE(b2 == b);
  REQUIRE(c2 == c);
  r.cpu->compute_h(*cpu_key, 0, a, b, c, {});
  small->compute_h(*cuda_key, 0, a2, b2, c2, {});
  REQUIRE(a2 == a);
  const PointBytes want = r.cpu->msm_g1(*cpu_key, 0, Basis::H, a, {});
  const PointBytes got = small->msm_g1(*cuda_key, 0, Basis::H, a2, {});
  small->end_proof(0);
  REQUIRE(std::equal(got.data.begin(), got.data.begin() + got.size, want.data.begin()));
}

bool pacer::test::cuda_backend_usable(std::string& why) {
  try {
    (void)rig();
    return true;
  } catch (const InputError& e) {  // no GPU, or no usable one
    why = e.what();
    return false;
  }
}

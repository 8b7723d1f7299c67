// Pippenger MSM against the naive sum Σ k_i·P_i (double-and-add per term).
#include <bit>
#include <catch2/catch.hpp>

#include <random>

#include "generators.hpp"
#include "gmp_oracle.hpp"
#include "ifma_paths.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/cpu/msm.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

template <class Group>
std::vector<Affine<Group>> make_bases(const Affine<Group>& gen, size_t n, std::mt19937_64& rng) {
  std::vector<Affine<Group>> bases(n);
  Jacobian<Group> acc = Jacobian<Group>::from(gen).mul(Limbs<1>{rng() | 1});
  Jacobian<Group> step = Jacobian<Group>::from(gen).mul(Limbs<1>{rng() | 1});
  for (size_t i = 0; i < n; ++i) {
    bases[i] = acc.to_affine();
    acc += step;
  }
  return bases;
}

template <class Group, class Fr>
void check_msm(const Affine<Group>& gen, const std::vector<size_t>& sizes, ThreadPool* pool, const CpuKernels& kernels) {
  std::mt19937_64 rng(99);
  for (size_t n : sizes) {
    auto bases = make_bases(gen, n, rng);
    std::vector<Fr256> scalars(n);
    for (auto& k : scalars) k = test::random_below_p<Fr>(rng);
    // Edge cases mixed in: zero scalars, r-1, tiny scalars, duplicated points, infinity bases.
    for (size_t i = 0; i < n; i += 5) scalars[i] = Fr256{};
    if (n > 1) scalars[1] = Fr::P, scalars[1][0] -= 1;
    if (n > 2) scalars[2] = Fr256{1, 0, 0, 0};
    if (n > 3) bases[3] = bases[0];
    if (n > 4) bases[4] = Affine<Group>::identity();
    if (n > 6) bases[6] = -bases[0], scalars[6] = scalars[0];
    Jacobian<Group> want;
    for (size_t i = 0; i < n; ++i) want += Jacobian<Group>::from(bases[i]).mul(scalars[i]);
    INFO("n = " << n);
    REQUIRE(msm<Group>(bases, scalars, pool, kernels) == want);
  }
  // Hot buckets: most scalars 1, 2 or 3 (a witness of bits), so points keep meeting their bucket
  // in the pending batch: the deferred list fills, overflows into Jacobian twins and is drained.
  {
    const size_t n = 3000;
    auto hot_bases = make_bases(gen, n, rng);
    std::vector<Fr256> small(n);
    for (size_t i = 0; i < n; ++i) small[i] = i % 7 == 6 ? test::random_below_p<Fr>(rng) : Fr256{1 + i % 3, 0, 0, 0};
    Jacobian<Group> want;
    for (size_t i = 0; i < n; ++i) want += Jacobian<Group>::from(hot_bases[i]).mul(small[i]);
    REQUIRE(msm<Group>(hot_bases, small, pool, kernels) == want);
  }
  // Scalars below 2^128 (no GLV split on curves that have one: the plain batched path).
  {
    const size_t n = 500;
    auto short_bases = make_bases(gen, n, rng);
    std::vector<Fr256> short_scalars(n);
    for (auto& k : short_scalars) k = Fr256{rng(), rng(), 0, 0};
    Jacobian<Group> want;
    for (size_t i = 0; i < n; ++i) want += Jacobian<Group>::from(short_bases[i]).mul(short_scalars[i]);
    REQUIRE(msm<Group>(short_bases, short_scalars, pool, kernels) == want);
  }
  // All scalars zero, and all bases infinity.
  auto bases = make_bases(gen, 16, rng);
  std::vector<Fr256> zeros(16);
  REQUIRE(msm<Group>(bases, zeros, pool, kernels).is_identity());
  std::vector<Affine<Group>> infs(16);
  std::vector<Fr256> ones(16, Fr256{1, 0, 0, 0});
  REQUIRE(msm<Group>(infs, ones, pool, kernels).is_identity());
}

}  // namespace

TEMPLATE_TEST_CASE("G1 MSM matches the naive sum", "[msm]", Bn254, Bls12_381) {
  ThreadPool pool(2);
  test::for_each_ifma_setting("bucket additions", [&](const CpuKernels& kernels) {
    check_msm<typename TestType::G1, typename TestType::Fr>(TestType::g1_generator(),
                                                            {1, 2, 3, 5, 7, 33, 100, 257, 1000, 4096}, &pool, kernels);
    check_msm<typename TestType::G1, typename TestType::Fr>(TestType::g1_generator(), {1, 7, 64}, nullptr, kernels);
  });
}

TEMPLATE_TEST_CASE("G2 MSM matches the naive sum", "[msm]", Bn254, Bls12_381) {
  ThreadPool pool(2);
  test::for_each_ifma_setting("bucket additions", [&](const CpuKernels& kernels) {
    check_msm<typename TestType::G2, typename TestType::Fr>(test::g2_generator<TestType>(), {1, 3, 7, 50, 300}, &pool,
                                                            kernels);
  });
}

// Many threads and narrow windows, with the images never made (as for large MSMs): each half of
// the GLV split (the bases, and the units standing for their images, whose bucket sums take φ) is
// cut into several chunks per window. The G1/G2 cases above make the images (small n).
TEMPLATE_TEST_CASE("GLV MSM without images, cut into several chunks per half, matches the naive sum", "[msm]", Bn254,
                   Bls12_381) {
  ThreadPool pool(24);
  CpuKernels kernels = CpuKernels::detect();
  kernels.msm_window = 8;        // 17 windows of 128-bit halves: 24 threads give 2 chunks a half
  kernels.glv_images_below = 0;  // no images at any size: φ on the second half's bucket sums
  REQUIRE(msm_chunks(1500, 2 * 17, 128, 24) == 2);
  check_msm<typename TestType::G1, typename TestType::Fr>(TestType::g1_generator(), {3000}, &pool, kernels);
  check_msm<typename TestType::G2, typename TestType::Fr>(test::g2_generator<TestType>(), {1500}, &pool, kernels);
}

// Each chunk of a window pays a bucket reduction of its own: a window is split only where that
// shortens the rounds of tasks the pool runs.
TEST_CASE("MSM windows are cut into chunks only where that shortens the rounds of tasks", "[msm]") {
  // One thread: never (more chunks, more reductions, the same one thread).
  CHECK(msm_chunks(size_t(1) << 20, 18, 16384, 1) == 1);
  // 2^13 GLV points (16384 units, 10 windows of 4096 buckets) on 16 threads: 10 tasks fit one round.
  CHECK(msm_chunks(16384, 10, 4096, 16) == 1);
  // Twice as many windows as threads: a split would only add rounds.
  CHECK(msm_chunks(size_t(1) << 16, 32, 4096, 16) == 1);
  // 2^20 points in two halves of 9 windows on 16 threads: 18 tasks leave a second round of 2, so
  // the windows are split, each chunk still far above its 16384 buckets.
  const size_t big = msm_chunks(size_t(1) << 20, 18, 16384, 16);
  CHECK(big > 1);
  CHECK((size_t(1) << 20) / big >= 16384);
  // A chunk is never shorter than its buckets.
  CHECK(msm_chunks(5000, 1, 4096, 64) == 1);
}

// The segmented bucket sum (batched affine running sums) against Σ (d+1)·B_d summed naively:
// random points into `count` buckets, some left empty, with doublings (a point twice in one
// bucket) and cancellations (P and -P). Counts without segments (not a power of two, or too few)
// take the Jacobian sum alone.
template <class Group>
void check_bucket_sum(const Affine<Group>& gen, const CpuKernels& kernels, size_t count) {
  std::mt19937_64 rng(5);
  auto points = make_bases(gen, count + count / 2, rng);
  detail::AffineBuckets<Group> buckets(count, kernels.ifma);
  std::vector<Jacobian<Group>> naive(count);
  // The buckets reference their points until summed: negation goes through the flag.
  auto add = [&](uint32_t b, const Affine<Group>& p, bool negate = false) {
    buckets.add(b, p, negate);
    naive[b] = naive[b].add_affine(negate ? -p : p);
  };
  for (size_t i = 0; i < points.size(); ++i) {
    const uint32_t b = uint32_t(rng() % count);
    if (b % 9 == 4) continue;  // empty buckets
    add(b, points[i]);
    if (i % 97 == 0) add(b, points[i]);   // doubling
    if (i % 89 == 0) add(b, points[i], true);  // cancellation
  }
  Jacobian<Group> want;
  for (size_t d = 0; d < count; ++d) want += naive[d].mul(Limbs<1>{d + 1});
  REQUIRE(buckets.weighted_sum() == want);  // applies the pending additions first
  const bool segmented = std::has_single_bit(count) && count >= 256;
  REQUIRE((buckets.segments() != 0) == segmented);
  if (segmented) REQUIRE(buckets.segmented_sum() == want);
  REQUIRE(buckets.jacobian_sum() == want);
}

TEMPLATE_TEST_CASE("Segmented bucket sums match the naive weighted sum", "[msm]", Bn254, Bls12_381) {
  // 2048 buckets: 256 segments of 8; 1024 (a window one bit narrower): 128 segments; 256: the
  // fewest segments, 32; 128 and 1000: no segments.
  for (const size_t count : {2048, 1024, 256, 128, 1000}) {
    INFO(count << " buckets");
    test::for_each_ifma_setting("bucket additions", [&](const CpuKernels& kernels) {
      check_bucket_sum<typename TestType::G1>(TestType::g1_generator(), kernels, count);
      check_bucket_sum<typename TestType::G2>(test::g2_generator<TestType>(), kernels, count);
    });
  }
}

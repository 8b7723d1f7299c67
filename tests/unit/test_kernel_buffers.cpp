// The cpu kernels take their large buffers from the allocator in CpuKernels (MSM digits, GLV
// images and buckets, the NTT's working buffer, key points), give every one back, and compute the
// same results as with no allocator (operator new).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <random>
#include <type_traits>

#include "generators.hpp"
#include "gmp_oracle.hpp"
#include "pacer/allocator.hpp"
#include "pacer/buffer.hpp"
#include "pacer/cpu/kernels.hpp"

using namespace pacer;
using namespace pacer::math;

namespace {

// operator new underneath; records what each Usage asked for and what is still out.
class RecordingAllocator final : public Allocator {
 public:
  Block allocate(size_t bytes, const AllocHints& hints) override {
    Block b;
    b.bytes = bytes;
    b.data = static_cast<std::byte*>(::operator new(bytes, std::align_val_t(hints.align)));
    b.page_bytes = 4096;
    b.cookie = reinterpret_cast<void*>(hints.align);
    std::lock_guard lock(mu_);
    ++calls[hints.usage];
    live += bytes;
    peak = std::max(peak, live);
    return b;
  }
  void deallocate(Block b) noexcept override {
    ::operator delete(b.data, std::align_val_t(reinterpret_cast<size_t>(b.cookie)));
    std::lock_guard lock(mu_);
    live -= b.bytes;
  }
  AllocStats stats() const override { return {}; }

  std::map<Usage, int> calls;
  size_t live = 0, peak = 0;

 private:
  std::mutex mu_;
};

}  // namespace

TEST_CASE("AllocatedArray takes its storage from the allocator, or operator new without one", "[buffers]") {
  RecordingAllocator rec;
  {
    AllocatedArray<uint64_t> a(&rec, 1000, Usage::digits, BufferInit::value);
    CHECK(a.size() == 1000);
    CHECK(a[999] == 0);
    CHECK(reinterpret_cast<uintptr_t>(a.data()) % 64 == 0);
    AllocatedArray<uint64_t> moved = std::move(a);
    CHECK(a.empty());
    CHECK(rec.live == 8000);
  }
  CHECK(rec.live == 0);
  CHECK(rec.calls[Usage::digits] == 1);
  AllocatedArray<uint64_t> heap(nullptr, 10, Usage::scratch, BufferInit::value);
  CHECK(heap[9] == 0);
}

TEST_CASE("the cpu kernels take MSM, NTT and key-point buffers from the allocator they are given", "[buffers]") {
  ThreadPool pool(2);
  RecordingAllocator rec;
  CpuKernels with = CpuKernels::detect();
  with.allocator = &rec;
  const CpuKernels without = CpuKernels::detect();
  std::mt19937_64 rng(7);

  SECTION("MSM: digits, buckets, GLV images below the threshold only") {
    using G1 = Bn254::G1;
    const size_t n = 4096;
    std::vector<Affine<G1>> bases(n);
    Jacobian<G1> acc = Jacobian<G1>::from(Bn254::g1_generator());
    for (auto& b : bases) b = (acc += acc.dbl()).to_affine();
    std::vector<Fr256> scalars(n);
    for (auto& k : scalars) k = test::random_below_p<Bn254::Fr>(rng);
    CHECK(msm<G1>(bases, scalars, &pool, with) == msm<G1>(bases, scalars, &pool, without));
    CHECK(rec.calls[Usage::digits] == 1);
    CHECK(rec.calls[Usage::glv_images] == 1);  // 254-bit scalars, few points: the GLV images are made
    with.glv_images_below = 0;                 // as for large MSMs: φ on bucket sums, no images
    CHECK(msm<G1>(bases, scalars, &pool, with) == msm<G1>(bases, scalars, &pool, without));
    CHECK(rec.calls[Usage::glv_images] == 1);
    CHECK(rec.calls[Usage::buckets] > 0);
  }
  SECTION("NTT: the odd coset's working buffer (IFMA path)") {
    using Fr = Bn254::Fr;
    const Radix2Domain<Fr> domain(1 << 12);
    std::vector<Fr> a(domain.size()), b;
    for (auto& x : a) x = Fr::from_u64(rng());
    b = a;
    domain.to_odd_coset(a, &pool, with);
    domain.to_odd_coset(b, &pool, without);
    CHECK(a == b);
    CHECK(rec.calls[Usage::ntt] == (with.ifma ? 1 : 0));  // the scalar path works in place
  }
  SECTION("key points") {
    using G1 = Bn254::G1;
    std::vector<std::byte> bytes(64 * point_bytes<G1>());
    Jacobian<G1> p = Jacobian<G1>::from(Bn254::g1_generator());
    for (size_t i = 0; i < 64; ++i, p += p) encode_point(p.to_affine(), bytes.data() + i * point_bytes<G1>());
    {
      const KeyPoints<G1> points(bytes, &pool, with, "test.zkey", "5 (A)");
      CHECK(points.points().size() == 64);
      CHECK(rec.calls[Usage::key_points] == 1);
    }
  }
  CHECK(rec.live == 0);  // every buffer given back
}

TEMPLATE_TEST_CASE("the MSM's scratch estimate (msm_scratch_bytes, what backends report for admission) holds what "
                   "msm() allocates at its peak, with and without GLV images", "[buffers]", Bn254::G1, Bn254::G2,
                   Bls12_381::G1) {
  using Group = TestType;
  using Curve = std::conditional_t<std::is_same_v<Group, Bls12_381::G1>, Bls12_381, Bn254>;
  ThreadPool pool(2);
  std::mt19937_64 rng(9);
  for (const size_t n : {size_t(50), size_t(3000), size_t(1) << 14}) {
    std::vector<Affine<Group>> bases(n);
    Jacobian<Group> acc;
    if constexpr (std::is_same_v<Group, typename Curve::G1>)
      acc = Jacobian<Group>::from(Curve::g1_generator());
    else
      acc = Jacobian<Group>::from(Curve::g2_generator());
    for (auto& b : bases) b = (acc += acc.dbl()).to_affine();
    std::vector<Fr256> scalars(n);
    for (auto& k : scalars) k = test::random_below_p<typename Curve::Fr>(rng);
    for (const size_t images_below : {size_t(1) << 20, size_t(0)}) {
      RecordingAllocator rec;
      CpuKernels kernels = CpuKernels::detect();
      kernels.allocator = &rec;
      kernels.glv_images_below = images_below;
      (void)msm<Group>(bases, scalars, &pool, kernels);
      const size_t estimate = msm_scratch_bytes<Group>(n, pool.size(), kernels);
      INFO("n = " << n << ", GLV images below " << images_below << ": peak " << rec.peak << ", estimate " << estimate);
      CHECK(rec.live == 0);
      CHECK(estimate >= rec.peak);
      if (n >= 3000) CHECK(estimate <= 4 * rec.peak);  // an upper bound, not a guess far above it
    }
  }
}

#pragma once
// Key points made resident in host memory for the CPU kernels: decoded once, checked once, in
// parallel, in memory nobody zeroed first. Shared by the cpu backend (every basis) and by other
// backends that keep a basis on the CPU (the cuda backend's G2 MSM with g2 = "cpu").
#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>

#include "pacer/buffer.hpp"
#include "pacer/cpu/kernel_config.hpp"
#include "pacer/cpu/msm_ifma.hpp"
#include "pacer/error.hpp"
#include "pacer/math/curves.hpp"
#include "pacer/thread_pool.hpp"

namespace pacer::math {

// Index of the first point of `points` that fails is_valid_key_point, or points.size(). The
// curve equations run eight at a time on IFMA when `kernels` allows (a key's points are checked
// as it loads: scalar, that was ~5% of a 2^16 proof's CPU time).
template <class Group>
size_t first_invalid_key_point(std::span<const Affine<Group>> points, const CpuKernels& kernels) {
  size_t i = 0;
#if defined(PACER_HAVE_IFMA_CODE)
  if constexpr (ifma::supported<Group>()) {
    if (kernels.ifma) {
      for (; i + 8 <= points.size(); i += 8) {
        const unsigned on = ifma::on_curve_lanes<Group>(points.data() + i, 8);
        for (size_t j = 0; j < 8; ++j) {
          const auto& p = points[i + j];
          if (!(on >> j & 1) || !is_canonical(p.x) || !is_canonical(p.y)) return i + j;
        }
      }
    }
  }
#else
  (void)kernels;
#endif
  for (; i < points.size(); ++i)
    if (!is_valid_key_point(points[i])) return i;
  return points.size();
}

// Decodes `count` points of the file encoding at `bytes` into `out`; the index of the first that is
// not canonical and on the curve, or `count`.
template <class Group>
size_t decode_key_points(const std::byte* bytes, size_t count, Affine<Group>* out, const CpuKernels& kernels) {
  for (size_t i = 0; i < count; ++i) ::new (out + i) Affine<Group>(decode_point<Group>(bytes + i * point_bytes<Group>()));
  return first_invalid_key_point<Group>({out, count}, kernels);
}

// The error for point `index` of a key section that failed the check above.
inline InputError invalid_key_point(const std::string& path, const char* section, size_t index) {
  return InputError(path + ": section " + section + ", point " + std::to_string(index) +
                    " is not a point of the curve (coordinates must be below p and satisfy the curve equation): "
                    "the key is damaged; make or download it again");
}

// One section of key points, decoded into Affine<Group>, in memory from kernels.allocator
// (Usage::key_points: the allocator chooses the pages; thp or hugetlb take 512 times fewer page
// faults and TLB misses in every MSM). Each pool thread first-touches (faults in) the part it
// fills, where a std::vector would have one thread zero all of it before the parallel copy (at
// 2^20 that serial pass was most of the key's load time). Every point is checked once
// copied (the MSM's equal-x test relies on canonical coordinates): a damaged key fails here,
// naming the section and point, instead of giving a wrong proof.
template <class Group>
class KeyPoints {
 public:
  KeyPoints() = default;
  KeyPoints(std::span<const std::byte> bytes, ThreadPool* pool, const CpuKernels& kernels, const std::string& path,
            const char* section)
      : size_(bytes.size() / point_bytes<Group>()), data_(kernels.allocator, size_, Usage::key_points) {
    if (size_ == 0) return;
    std::atomic<size_t> first_bad{size_};
    // Small keys too are spread over the pool: one 2^14 chunk a task made a 2^13 section one task,
    // and the five sections of a small key's one-shot proof ~8 ms of a single thread.
    const size_t threads = pool ? std::max<size_t>(pool->size(), 1) : 1;
    const size_t chunk = std::clamp<size_t>(size_ / (4 * threads), 512, size_t(1) << 14);
    run_tasks(pool, (size_ + chunk - 1) / chunk, [&](size_t c) {
      const size_t begin = c * chunk, end = std::min(size_, begin + chunk);
      const size_t bad =
          begin + decode_key_points<Group>(bytes.data() + begin * point_bytes<Group>(), end - begin, data_.data() + begin,
                                           kernels);
      if (bad == end) return;
      size_t seen = first_bad.load();
      while (bad < seen && !first_bad.compare_exchange_weak(seen, bad)) {
      }
    });
    if (first_bad.load() < size_) throw invalid_key_point(path, section, first_bad.load());
  }
  std::span<const Affine<Group>> points() const { return {data_.data(), size_}; }
  size_t bytes() const { return size_ * sizeof(Affine<Group>); }

 private:
  size_t size_ = 0;
  AllocatedArray<Affine<Group>> data_;  // written in full by the constructor
};

}  // namespace pacer::math

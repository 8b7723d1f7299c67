#pragma once
// Multi-scalar multiplication Σ k_i·P_i (Pippenger) for any group of ec.hpp. Scalars are
// standard-form 256-bit integers. Large MSMs use signed window digits (half the buckets) and
// affine buckets filled by batched additions that share one field inversion per batch: ~6
// multiplications per point instead of ~11 for a Jacobian mixed addition. Work is split into
// (window, chunk of points) tasks on the thread pool.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

#include "pacer/buffer.hpp"
#include "pacer/cpu/glv.hpp"
#include "pacer/cpu/kernel_config.hpp"
#include "pacer/cpu/msm_ifma.hpp"
#include "pacer/math/batch_affine.hpp"
#include "pacer/math/ec.hpp"
#include "pacer/thread_pool.hpp"
#include "pacer/types.hpp"

namespace pacer::math {

namespace detail {

inline size_t scalar_bits(std::span<const Fr256> scalars) {
  uint64_t top[4] = {0, 0, 0, 0};
  for (const auto& k : scalars)
    for (int l = 0; l < 4; ++l) top[l] |= k[l];
  for (size_t l = 4; l-- > 0;)
    if (top[l]) return l * 64 + 64 - size_t(__builtin_clzll(top[l]));
  return 0;
}

// Affine buckets filled through batches of independent additions (no bucket twice in a batch);
// the denominators of a batch are inverted together (Montgomery's trick). A point whose bucket is
// already in the pending batch waits in a short deferred list and joins the next batch (a mixed
// Jacobian addition costs twice a batched one); once that list is full, further such points go
// to the bucket's Jacobian twin, so hot buckets (many equal digits) never stall or re-scan.
template <class Group>
class AffineBuckets {
 public:
  using F = typename Group::Field;
  using A = Affine<Group>;
  using J = Jacobian<Group>;

  // Batches of up to 2048 additions share one inversion (1024 was ~3% slower on 2^16 proofs).
  // `ifma`: flush batches on AVX-512 IFMA (only where the CPU has it: CpuKernels). The bucket
  // arrays come from `allocator` (Usage::buckets; null: operator new).
  AffineBuckets(size_t count, bool ifma, Allocator* allocator = nullptr)
      : AffineBuckets(count, std::clamp<size_t>(count / 4, 16, 2048), ifma, allocator) {}
  AffineBuckets(size_t count, size_t batch_limit, bool ifma, Allocator* allocator = nullptr)
      : buckets_(allocator, count, Usage::buckets, BufferInit::value),
        busy_(allocator, count, Usage::buckets, BufferInit::value),
        allocator_(allocator),
        batch_limit_(batch_limit),
        ifma_(ifma) {
    batch_bucket_.reserve(2 * batch_limit_);
    batch_point_.reserve(2 * batch_limit_);
    batch_negate_.reserve(2 * batch_limit_);
    deferred_.reserve(batch_limit_);
    replay_.reserve(batch_limit_);
  }

  // Bucket indices are random: fetching the line a few points ahead hides the cache miss.
  void prefetch(uint32_t b) const { __builtin_prefetch(&buckets_[b], 1); }

  // bucket b += p, or -= p with `negate`. The point is referenced, not copied: it must stay
  // unchanged until weighted_sum (the MSM's bases do; segmented_sum's own sums are flushed first).
  void add(uint32_t b, const A& p, bool negate = false) {
    insert(b, &p, negate);
    while (batch_bucket_.size() >= batch_limit_) {
      flush();
      replay_deferred();
    }
  }

  // Σ_{d} (d+1)·bucket_d; applies what is pending first.
  J weighted_sum() {
    flush();
    while (!deferred_.empty()) {
      replay_deferred();
      // What keeps coming back is a few hot buckets (many equal digits, e.g. a witness of bits):
      // once a batch would be too small to pay for its inversion, they take Jacobian additions.
      if (batch_bucket_.size() < kMinDrainBatch) {
        for (const auto& d : deferred_) overflow(d.bucket) = overflow(d.bucket).add_affine(value(d.point, d.negate));
        deferred_.clear();
      }
      flush();
    }
    const size_t overflowed =
        size_t(std::count_if(overflow_.begin(), overflow_.end(), [](const J& o) { return !o.is_identity(); }));
    if (segments() != 0 && overflowed * 32 <= buckets_.size()) return segmented_sum();
    return jacobian_sum();
  }

  // The running sums segmented_sum advances side by side: up to kSegments, each over kMinSegment
  // buckets or more; 0 where it does not apply (fewer than kMinSegments·kMinSegment buckets, or a
  // count that is not a power of two). A window one bit narrower than the others (1024 buckets
  // beside 2048) takes it too: there the Jacobian running sum was 5-8% of a 2^13 G2 MSM.
  size_t segments() const {
    const size_t count = buckets_.size();
    if (!std::has_single_bit(count) || count < kMinSegments * kMinSegment) return 0;
    return std::min(kSegments, count / kMinSegment);
  }

  // Both bucket sums are public for tests (segmented_sum needs segments() > 0).
  // Running sum from the top bucket down: two Jacobian additions per bucket.
  J jacobian_sum() const {
    J running, sum;
    for (size_t d = buckets_.size(); d-- > 0;) {
      running = running.add_affine(buckets_[d]);
      if (!overflow_.empty() && !overflow_[d].is_identity()) running += overflow_[d];
      sum += running;
    }
    return sum;
  }

  // The bucket sum as batched affine additions too: segments() running sums side by side, one per
  // run of len buckets, advance together, so each step is one batch (one inversion) instead of
  // two Jacobian additions per bucket (~27 multiplications each): with T_j = Σ (t+1)·B_{j·len+t}
  // and R_j = Σ B_{j·len+t} over t < len, Σ (d+1)·B_d = Σ T_j + len·Σ j·R_j, the last sum
  // over only segments() points. The few Jacobian twins (hot buckets) are weighted one by one.
  J segmented_sum() const {
    const size_t segments = this->segments();
    if (segments == 0) throw std::logic_error("segmented_sum: too few buckets, or not a power of two");
    const size_t len = buckets_.size() / segments;
    AffineBuckets runs(2 * segments, 2 * segments, ifma_);  // R_j at j, T_j at segments + j
    for (size_t t = len; t-- > 0;) {
      for (size_t j = 0; j < segments; ++j)
        if (const A& b = buckets_[j * len + t]; !b.is_identity()) runs.add(uint32_t(j), b);
      runs.flush();
      for (size_t j = 0; j < segments; ++j)
        if (const A& r = runs.buckets_[j]; !r.is_identity()) runs.add(uint32_t(segments + j), r);
      runs.flush();
    }
    J running, weighted;
    for (size_t j = segments; j-- > 1;) {
      running = running.add_affine(runs.buckets_[j]);
      weighted += running;
    }
    for (size_t k = len; k > 1; k /= 2) weighted = weighted.dbl();  // len is a power of two
    for (size_t j = 0; j < segments; ++j) weighted = weighted.add_affine(runs.buckets_[segments + j]);
    for (size_t d = 0; d < overflow_.size(); ++d)
      if (!overflow_[d].is_identity()) weighted += overflow_[d].mul(Limbs<1>{d + 1});
    return weighted;
  }

 private:
  static constexpr size_t kMinDrainBatch = 16;
  // Segmented bucket sums: at most kSegments running sums, at least kMinSegments (fewer would
  // leave batches too small for their inversion), of kMinSegment buckets or more each.
  static constexpr size_t kSegments = 256, kMinSegments = 32, kMinSegment = 8;

  struct Deferred {
    uint32_t bucket;
    uint8_t negate;
    const A* point;
  };

  static A value(const A* p, bool negate) { return negate ? -*p : *p; }

  void insert(uint32_t b, const A* p, bool negate) {
    if (busy_[b]) {
      if (deferred_.size() < batch_limit_) deferred_.push_back({b, uint8_t(negate), p});
      else overflow(b) = overflow(b).add_affine(value(p, negate));
      return;
    }
    if (buckets_[b].is_identity()) {
      buckets_[b] = value(p, negate);
      return;
    }
    busy_[b] = 1;
    batch_bucket_.push_back(b);
    batch_point_.push_back(p);
    batch_negate_.push_back(uint8_t(negate));
  }

  // b += p for points of equal x: 2P or P - P (rare).
  static void add_equal_x(A& b, const A& p) {
    b = (b.y == p.y && !b.y.is_zero()) ? J::from(b).dbl().to_affine() : A::identity();
  }

  // After a flush every bucket is free again: the deferred points start the next batch (those
  // that meet their bucket twice in the list wait once more).
  void replay_deferred() {
    replay_.swap(deferred_);
    for (const auto& d : replay_) insert(d.bucket, d.point, d.negate);
    replay_.clear();
  }

  void flush() {
    const size_t n = batch_bucket_.size();
    if (n == 0) return;
#if defined(PACER_HAVE_IFMA_CODE)
    if constexpr (ifma::supported<Group>()) {
      if (ifma_) {
        flush_ifma(n);
        return;
      }
    }
#endif
    if (scratch_.size() < n) {  // grows to the largest batch (below 2 * batch_limit_) once
      scratch_.resize(n);
      den_.resize(n);
    }
    add_affine_batch<Group>(
        n, [&](size_t k) -> A& { return buckets_[batch_bucket_[k]]; },
        [&](size_t k) { return value(batch_point_[k], batch_negate_[k]); }, std::span<F>(scratch_), std::span<F>(den_),
        [&](size_t k) { add_equal_x(buckets_[batch_bucket_[k]], value(batch_point_[k], batch_negate_[k])); });
    for (const uint32_t b : batch_bucket_) busy_[b] = 0;
    batch_bucket_.clear();
    batch_point_.clear();
    batch_negate_.clear();
  }

#if defined(PACER_HAVE_IFMA_CODE)
  void flush_ifma(size_t n) {
    const size_t groups = (n + 7) / 8;
    if (equal_x_.size() < 8 * groups) {  // grows to the largest batch once, like scratch_
      ifma_scratch_.resize(ifma::scratch_words<Group>() * groups);
      equal_x_.resize(8 * groups);
    }
    const size_t equal = ifma::add_batch<Group>(buckets_.data(), batch_bucket_.data(), batch_point_.data(),
                                                batch_negate_.data(), n, ifma_scratch_.data(), equal_x_.data());
    for (size_t e = 0; e < equal; ++e) {
      const uint32_t k = equal_x_[e];
      add_equal_x(buckets_[batch_bucket_[k]], value(batch_point_[k], batch_negate_[k]));
    }
    for (const uint32_t b : batch_bucket_) busy_[b] = 0;
    batch_bucket_.clear();
    batch_point_.clear();
    batch_negate_.clear();
  }
  std::vector<uint64_t> ifma_scratch_;
  std::vector<uint32_t> equal_x_;
#endif

  // The Jacobian twins of hot buckets, made at the first overflow: most tasks never need them, and
  // at 1.5x a bucket's size they were 60% of every task's bucket memory (tens of MB in flight on
  // 16 threads).
  J& overflow(uint32_t b) {
    if (overflow_.empty()) overflow_ = AllocatedArray<J>(allocator_, buckets_.size(), Usage::buckets, BufferInit::value);
    return overflow_[b];
  }

  AllocatedArray<A> buckets_;
  AllocatedArray<J> overflow_;  // empty until overflow() first needs it
  AllocatedArray<uint8_t> busy_;
  Allocator* allocator_;
  size_t batch_limit_;
  bool ifma_;
  std::vector<uint32_t> batch_bucket_;
  std::vector<const A*> batch_point_;
  std::vector<uint8_t> batch_negate_;
  std::vector<F> scratch_, den_;
  std::vector<Deferred> deferred_, replay_;
};

// Σ_{d=1..count} d·B_d as a running sum from the top bucket down.
template <class Group, class BucketVec>
Jacobian<Group> sum_buckets(const BucketVec& buckets) {
  Jacobian<Group> running, sum;
  for (size_t d = buckets.size(); d-- > 0;) {
    running += buckets[d];
    sum += running;
  }
  return sum;
}

// Cost model: per window, points·cost_point + buckets·cost_bucket (in field multiplications).
inline unsigned best_window(size_t n, bool signed_digits, double cost_point, double cost_bucket, size_t bits,
                            unsigned max_c = 16) {
  unsigned best = 1;
  double best_cost = 1e300;
  for (unsigned c = 1; c <= max_c; ++c) {
    double windows = std::ceil(double(bits + (signed_digits ? 1 : 0)) / c);
    double buckets = std::ldexp(1.0, int(c) - (signed_digits ? 1 : 0));
    double cost = windows * (double(n) * cost_point + buckets * cost_bucket);
    if (cost < best_cost) best_cost = cost, best = c;
  }
  return best;
}

}  // namespace detail

// Chunks of points per window (a chunk never spans the two GLV halves): `tasks_per_chunk` tasks
// (windows · halves) per chunk of `n` points with `buckets` buckets each, on `threads`. Every chunk
// pays a bucket reduction of its own, about kBucketCost point additions a bucket (measured with
// pacer_bench_kernels on one thread: a 2^13 G1 MSM does 1.5-2x the work in three chunks, 2^15
// 1.15-1.3x), so a window is split only where that shortens the rounds of tasks the threads run,
// each round as long as one task, by more than 3%; one chunk per window where it does not.
inline size_t msm_chunks(size_t n, size_t tasks_per_chunk, size_t buckets, size_t threads) {
  constexpr double kBucketCost = 4;
  size_t best = 1;
  double best_time = 0;
  for (size_t k = 1; k <= 4 * threads; ++k) {
    const size_t len = (n + k - 1) / k;
    if (k > 1 && len < buckets) break;
    const double rounds = double((tasks_per_chunk * k + threads - 1) / threads);
    const double time = rounds * (double(len) + kBucketCost * double(buckets));
    if (k == 1 || time < 0.97 * best_time) best = k, best_time = time;
  }
  return best;
}

// Window width of the plain (unsigned, Jacobian-bucket) variant of small MSMs.
inline unsigned msm_window_bits(size_t n) { return detail::best_window(n, false, 11, 27, 256); }

// Below this many points the batch machinery does not pay for itself.
inline constexpr size_t kMsmBatchAffineMin = 64;

namespace detail {

// The points of a batched MSM: the bases, then with GLV the images φ(bases[i]) of a second half
// of units. Small MSMs make the images (`second`). Large ones leave them unmade
// (`endomorphism_half`): φ is a group homomorphism, so the second half is bucketed over the bases
// themselves and each of its bucket sums takes φ once (Σ k·φ(P) = φ(Σ k·P)), at the price of a
// second bucket reduction per window (CpuKernels::glv_images_below).
template <class Group>
struct MsmPoints {
  std::span<const Affine<Group>> first, second;
  bool endomorphism_half = false;
  size_t size() const { return endomorphism_half ? 2 * first.size() : first.size() + second.size(); }
  const Affine<Group>& operator[](size_t i) const { return i < first.size() ? first[i] : second[i - first.size()]; }
};

// The window width c of a batched MSM over n points (`halves` bucket sets a window: 2 where the
// GLV images are left unmade) and the windows of scalars of `bits` bits: signed digits need one
// more bit for the final carry.
struct MsmShape {
  unsigned c;
  size_t windows;
};
inline MsmShape msm_shape(size_t n, size_t halves, size_t bits, const CpuKernels& kernels) {
  const unsigned c = kernels.msm_window ? std::clamp(kernels.msm_window, 2u, 15u)
                                        : best_window(n, true, 6.5, 6.5 * double(halves), bits, 15);
  return {c, (bits + 1 + c - 1) / c};
}

// Pippenger over `points` with signed digits and affine buckets. `scalars_of(u, emit)` calls
// emit(point index, magnitude, negative) for the scalars of unit u (units = points.size() without
// GLV, half of it with); every magnitude has at most `bits` bits.
template <class Group, class ScalarsOf>
Jacobian<Group> batched_msm(MsmPoints<Group> points, size_t units, size_t bits, const ScalarsOf& scalars_of,
                            ThreadPool* pool, const CpuKernels& kernels, const std::function<void()>* checkpoint) {
  using J = Jacobian<Group>;
  const size_t n = points.size();
  const size_t halves = points.endomorphism_half ? 2 : 1;
  const size_t half_n = n / halves;
  // Signed digits are stored as int16: |d| <= 2^(c-1) needs c <= 15.
  // Bucket costs as much as a point in the model: measured, not derived (2-core VM, 2^16 and 2^20
  // bn128 proofs, c = 13/14/15 alternated: 15 was fastest; the model gave 13 with 27 per bucket).
  // Each half has its own buckets (they are summed apart), so a window pays for them twice.
  const MsmShape shape = msm_shape(n, halves, bits, kernels);
  const unsigned c = shape.c;
  const size_t windows = shape.windows;
  // Windows of (nearly) equal widths, at most c: a narrow top window would send all its points to a
  // few hot buckets.
  const size_t covered = bits + 1;
  std::vector<unsigned> width(windows), offset(windows);
  for (size_t w = 0, off = 0; w < windows; ++w) {
    width[w] = unsigned(covered / windows + (w < covered % windows ? 1 : 0));
    offset[w] = unsigned(off);
    off += width[w];
  }
  const size_t threads = pool ? pool->size() : 1;
  size_t half_chunks = msm_chunks(half_n, windows * halves, size_t(1) << (c - 1), threads);
  const size_t chunk_len = (half_n + half_chunks - 1) / half_chunks;
  half_chunks = (half_n + chunk_len - 1) / chunk_len;
  const size_t chunks = half_chunks * halves;

  auto run = [&](size_t tasks, const std::function<void(size_t)>& fn) { run_tasks(pool, tasks, fn); };

  // Signed digits in [-2^(c-1), 2^(c-1)], computed once, stored window-major so that each window
  // task streams 2 bytes per point instead of touching a cache line per point.
  AllocatedArray<int16_t> digits(kernels.allocator, n * windows, Usage::digits);  // every entry written below
  const size_t uchunk = 1 << 12;
  run((units + uchunk - 1) / uchunk, [&](size_t ch) {
    for (size_t u = ch * uchunk, e = std::min(units, u + uchunk); u < e; ++u)
      scalars_of(u, [&](size_t i, const Fr256& k, bool negative) {
        int32_t carry = 0;
        for (size_t w = 0; w < windows; ++w) {
          const int32_t half = int32_t(1) << (width[w] - 1), full = int32_t(1) << width[w];
          int32_t d = int32_t(fr256_window(k, offset[w], width[w])) + carry;
          carry = d > half ? 1 : 0;  // d in (half, full] becomes d - full, borrowing from above
          d -= carry * full;
          digits[w * n + i] = int16_t(negative ? -d : d);
        }
      });
  });

  std::vector<J> partial(windows * chunks);
  run(windows * chunks, [&](size_t t) {
    if (checkpoint && *checkpoint) (*checkpoint)();
    const size_t w = t / chunks, ch = t % chunks, half = ch / half_chunks;
    const size_t begin = (ch % half_chunks) * chunk_len, end = std::min(half_n, begin + chunk_len);
    AffineBuckets<Group> buckets(size_t(1) << (width[w] - 1), kernels.ifma, kernels.allocator);
    const int16_t* dw = digits.data() + w * n + half * half_n;
    constexpr size_t kAhead = 8;
    for (size_t i = begin; i < end; ++i) {
      if (i + kAhead < end && dw[i + kAhead]) buckets.prefetch(uint32_t(std::abs(dw[i + kAhead])) - 1);
      const int32_t d = dw[i];
      if (d == 0) continue;
      const Affine<Group>& p = halves == 2 ? points.first[i] : points[i];
      if (p.is_identity()) continue;
      buckets.add(uint32_t(std::abs(d) - 1), p, d < 0);
    }
    const J sum = buckets.weighted_sum();
    if constexpr (HasGlv<Group>) {
      if (half == 1) {
        partial[t] = glv_endomorphism(sum, Group::glv_beta());
        return;
      }
    }
    partial[t] = sum;
  });

  J acc;
  for (size_t w = windows; w-- > 0;) {
    for (unsigned i = 0; i < width[w]; ++i) acc = acc.dbl();
    for (size_t ch = 0; ch < chunks; ++ch) acc += partial[w * chunks + ch];
  }
  return acc;
}

// Few points: unsigned digits, Jacobian buckets, one thread.
template <class Group>
Jacobian<Group> small_msm(std::span<const Affine<Group>> bases, std::span<const Fr256> scalars, size_t bits) {
  using J = Jacobian<Group>;
  const unsigned c = msm_window_bits(bases.size());
  J acc;
  for (size_t w = (bits + c - 1) / c; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    std::vector<J> buckets((size_t(1) << c) - 1);
    for (size_t i = 0; i < bases.size(); ++i) {
      if (bases[i].is_identity()) continue;
      const uint32_t d = fr256_window(scalars[i], w * c, c);
      if (d) buckets[d - 1] = buckets[d - 1].add_affine(bases[i]);
    }
    acc += sum_buckets<Group>(buckets);
  }
  return acc;
}

}  // namespace detail

// Σ scalars[i]·bases[i] over the common length, on `pool` (serially without one), with the paths
// `kernels` selects; `checkpoint` (when set) is called between tasks: the scheduler may pause there.
template <class Group>
Jacobian<Group> msm(std::span<const Affine<Group>> bases, std::span<const Fr256> scalars, ThreadPool* pool,
                    const CpuKernels& kernels, const std::function<void()>* checkpoint = nullptr) {
  const size_t n = std::min(bases.size(), scalars.size());
  if (n == 0) return Jacobian<Group>::identity();
  bases = bases.first(n);
  scalars = scalars.first(n);
  const size_t bits = detail::scalar_bits(scalars);
  if (bits == 0) return Jacobian<Group>::identity();
  if (n < kMsmBatchAffineMin) return detail::small_msm<Group>(bases, scalars, bits);
  if constexpr (HasGlv<Group>) {
    // Scalars that already fit in 128 bits (a witness of small values) gain nothing from a split.
    if (bits > kGlvBits) {
      AllocatedArray<Affine<Group>> images;
      if (n < kernels.glv_images_below) {
        images = AllocatedArray<Affine<Group>>(kernels.allocator, n, Usage::glv_images);  // written below, in parallel
        const auto beta = Group::glv_beta();
        const size_t chunk = 1 << 12;
        run_tasks(pool, (n + chunk - 1) / chunk, [&](size_t t) {
          for (size_t i = t * chunk, e = std::min(n, i + chunk); i < e; ++i) images[i] = glv_endomorphism(bases[i], beta);
        });
      }
      const GlvBasis& basis = Group::glv_basis();
      auto split = [&](size_t u, const auto& emit) {
        const GlvSplit s = glv_split(scalars[u], basis);
        // The bound is a property of the basis (tests/test_glv.cpp); a violation would corrupt the
        // sum silently, so it is checked rather than assumed.
        if (s.k1[2] | s.k1[3] | s.k2[2] | s.k2[3]) throw std::logic_error("GLV split exceeds 128 bits");
        emit(u, s.k1, s.k1_negative);
        emit(n + u, s.k2, s.k2_negative);
      };
      const detail::MsmPoints<Group> points =
          images.empty() ? detail::MsmPoints<Group>{bases, {}, true} : detail::MsmPoints<Group>{bases, images.span(), false};
      return detail::batched_msm<Group>(points, n, kGlvBits, split, pool, kernels, checkpoint);
    }
  }
  auto plain = [&](size_t u, const auto& emit) { emit(u, scalars[u], false); };
  return detail::batched_msm<Group>({bases, {}, false}, n, bits, plain, pool, kernels, checkpoint);
}

// At most what msm() allocates on the host over n points on `threads` threads: the window digits,
// the GLV images where it makes them, and the buckets of the tasks running at once (with their
// Jacobian twins, which a task makes only when a bucket overflows). For admission: an upper bound,
// taken at full-width scalars.
template <class Group>
size_t msm_scratch_bytes(size_t n, size_t threads, const CpuKernels& kernels) {
  using A = Affine<Group>;
  using J = Jacobian<Group>;
  if (n == 0) return 0;
  if (n < kMsmBatchAffineMin) return (size_t(1) << msm_window_bits(n)) * sizeof(J);
  size_t points = n, halves = 1, bits = 256, images = 0;
  if constexpr (HasGlv<Group>) {
    points = 2 * n;
    bits = kGlvBits;
    if (n < kernels.glv_images_below) images = n * sizeof(A);
    else halves = 2;
  }
  const detail::MsmShape shape = detail::msm_shape(points, halves, bits, kernels);
  const size_t buckets = size_t(1) << (shape.c - 1);
  const size_t tasks = std::max<size_t>(1, threads);  // a task's buckets live while it runs
  return images + points * shape.windows * sizeof(int16_t) + tasks * buckets * (sizeof(A) + sizeof(J) + 1) +
         shape.windows * halves * 4 * tasks * sizeof(J);  // the partial sums (msm_chunks: at most 4 a thread)
}

}  // namespace pacer::math

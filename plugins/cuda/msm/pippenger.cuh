#pragma once
// Pippenger MSM for one group (msm/logic.hpp has the algorithm): signed digits, CUB sort per
// window, chunked bucket sums with partial-sum levels, grouped bucket weighting, host finish.
// Included by one .cu per (curve, group).
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "internal.hpp"
#include "msm/logic.hpp"
#include "util/cuda_util.cuh"
#include "util/ldst.cuh"

namespace pacer::cuda::msm {

inline constexpr unsigned kThreads = 128;
inline constexpr uint32_t kLaterChunk = 8;  // entries per thread after the first level
inline constexpr int kMaxPartialLevels = 64;

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__global__ void digits_kernel(const uint32_t* __restrict__ scalars, uint32_t c, uint32_t windows, RegionLayout lay,
                              uint32_t* __restrict__ keys, uint32_t* __restrict__ vals);
__global__ void count_kernel(const uint32_t* __restrict__ keys, size_t region_len, uint32_t chunk,
                             uint32_t chunks_per_region, uint32_t regions, uint32_t* __restrict__ counts);

// Adds a later scalar piece's bucket sums into the first piece's and leaves its own at infinity
// for the next piece. A kernel of its own, one bucket a thread: merging inside the sum loops
// (each thread adding into the bucket it completes) made every iteration of a warp pay a general
// addition besides its mixed one, 2.4x slower bucket sums on the H100.
template <class P>
__global__ void merge_buckets_kernel(P* __restrict__ into, P* __restrict__ from, size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const P add = ld(from + i);
  if (add.is_inf()) return;
  P b = ld(into + i);
  b.add(add);
  st(into + i, b);
  st(from + i, P::inf());
}

// Level 1: chunks of one window's sorted (bucket, point) list; affine points, mixed additions.
template <class F>
__global__ void __launch_bounds__(kThreads) accumulate_points_kernel(
    const ec::affine_t<F>* __restrict__ points, const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals,
    uint32_t n, uint32_t chunk, uint32_t chunks_per_window, uint32_t windows, uint32_t buckets,
    const uint32_t* __restrict__ offsets, ec::xyzz_t<F>* __restrict__ bucket_out, uint32_t* __restrict__ part_keys,
    ec::xyzz_t<F>* __restrict__ part_vals) {
  using P = ec::xyzz_t<F>;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= size_t(windows) * chunks_per_window) return;
  const uint32_t w = uint32_t(t / chunks_per_window), ci = uint32_t(t % chunks_per_window);
  const size_t rb = size_t(w) * n, re = rb + n;
  const size_t begin = rb + size_t(ci) * chunk, end = min(begin + chunk, re);
  const uint32_t base = offsets[t], key_base = w * buckets;
  sum_chunk<P>(
      keys, begin, end, rb, re,
      [&](P& acc, size_t i) {
        const uint32_t v = vals[i];
        ec::affine_t<F> p = ld_ro(points + (v & 0x7fffffffu));
        if (p.is_inf()) return;
        if (v >> 31) p.y = -p.y;
        acc.add_affine(p);
      },
      [&](uint32_t key, const P& acc) { st(bucket_out + key_base + key, acc); },
      [&](uint32_t slot, uint32_t key, const P& acc) {
        part_keys[base + slot] = key_base + key;
        st(part_vals + base + slot, acc);
      });
}

// Later levels: chunks of the compacted partial-sum list (global bucket ids, XYZZ values).
template <class F>
__global__ void __launch_bounds__(kThreads) accumulate_partials_kernel(
    const uint32_t* __restrict__ in_keys, const ec::xyzz_t<F>* __restrict__ in_vals, uint32_t count, uint32_t chunk,
    const uint32_t* __restrict__ offsets, ec::xyzz_t<F>* __restrict__ bucket_out, uint32_t* __restrict__ out_keys,
    ec::xyzz_t<F>* __restrict__ out_vals) {
  using P = ec::xyzz_t<F>;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t chunks = (size_t(count) + chunk - 1) / chunk;
  if (t >= chunks) return;
  const size_t begin = t * chunk, end = min(begin + chunk, size_t(count));
  const uint32_t base = offsets[t];
  sum_chunk<P>(
      in_keys, begin, end, 0, count, [&](P& acc, size_t i) { acc.add(ld_ro(in_vals + i)); },
      [&](uint32_t key, const P& acc) { st(bucket_out + key, acc); },
      [&](uint32_t slot, uint32_t key, const P& acc) {
        out_keys[base + slot] = key;
        st(out_vals + base + slot, acc);
      });
}

// One level of the bucket weighting (logic.hpp, reduce_group): per window, m_in values -> m_in/S.
template <class F, bool kHasX>
__global__ void __launch_bounds__(kThreads) reduce_level_kernel(const ec::xyzz_t<F>* __restrict__ r_in,
                                                                const ec::xyzz_t<F>* __restrict__ x_in, uint32_t m_in,
                                                                uint32_t log_s, uint32_t windows, uint32_t scale_log2,
                                                                ec::xyzz_t<F>* __restrict__ r_out,
                                                                ec::xyzz_t<F>* __restrict__ x_out) {
  using P = ec::xyzz_t<F>;
  const uint32_t m_out = m_in >> log_s;
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= size_t(windows) * m_out) return;
  const size_t w = t / m_out, k = t % m_out;
  const size_t base = w * m_in + (k << log_s);
  P r, x;
  reduce_group<P, kHasX>([&](size_t i) { return ld_ro(r_in + i); }, x_in, base, 1u << log_s, scale_log2, r, x);
  st(r_out + t, r);
  st(x_out + t, x);
}

// Window copies 1..copies-1 of a basis whose copy 0 is in place: copy j = 2^c·copy j-1 (XYZZ
// doublings), made affine with one inversion per thread (Montgomery's trick over its copies).
template <class F>
__global__ void __launch_bounds__(kThreads) window_copies_kernel(ec::affine_t<F>* __restrict__ pts, size_t n,
                                                                 uint32_t c, uint32_t copies) {
  using P = ec::xyzz_t<F>;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  P acc = P::from_affine(pts[i]);
  F xn[kMaxCopies], yn[kMaxCopies], d[kMaxCopies], before[kMaxCopies];
  F run = F::one();
  for (uint32_t j = 1; j < copies; ++j) {
    for (uint32_t b = 0; b < c; ++b) acc.dbl();
    // x = X/ZZ = X·ZZZ/D, y = Y/ZZZ = Y·ZZ/D with D = ZZ·ZZZ; infinity (ZZ = 0) keeps D = 0.
    xn[j] = acc.X * acc.ZZZ;
    yn[j] = acc.Y * acc.ZZ;
    d[j] = acc.ZZ * acc.ZZZ;
    before[j] = run;
    if (!d[j].is_zero()) run = run * d[j];
  }
  F inv = run.inverse();  // 1 / (product of the nonzero D)
  for (uint32_t j = copies - 1; j >= 1; --j) {
    ec::affine_t<F> out{F::zero(), F::zero()};
    if (!d[j].is_zero()) {
      const F inv_d = inv * before[j];
      inv = inv * d[j];
      out = {xn[j] * inv_d, yn[j] * inv_d};
    }
    pts[size_t(j) * n + i] = out;
  }
}

template <class Group>
class MsmOpsImpl final : public detail::MsmOps {
 public:
  using F = typename Group::F;
  using P = ec::xyzz_t<F>;
  using A = ec::affine_t<F>;

  MsmOpsImpl(int device, const KernelConfig& kernels) : device_(device), kernels_(kernels) {}

  void reserve(detail::MsmScratch& sc, size_t n) override {
    const WindowPlan wp = plan(n);
    reserve(sc, wp, region_layout(wp.windows, 1, n, n));
  }

  void run(const void* points, size_t n, size_t stride, const WindowCopies& copies, const void* host_scalars,
           const void* device_scalars, detail::MsmScratch& sc, cudaStream_t s, cudaStream_t up, void* out,
           detail::MsmStats* stats) override {
    if ((host_scalars == nullptr) == (device_scalars == nullptr))
      throw std::invalid_argument("pacer::cuda: an MSM takes host scalars or device scalars, one of them");
    P result = P::inf();
    if (n > 0)
      result = run_device(static_cast<const A*>(points), n, stride, copies, host_scalars,
                          static_cast<const unsigned char*>(device_scalars), sc, s, up, stats);
    F X, Y, Z;
    result.to_jacobian(X, Y, Z);
    auto* o = static_cast<unsigned char*>(out);
    std::memcpy(o, &X, sizeof(F));
    std::memcpy(o + sizeof(F), &Y, sizeof(F));
    std::memcpy(o + 2 * sizeof(F), &Z, sizeof(F));
  }

  void precompute(void* points, size_t n, const WindowCopies& copies, cudaStream_t s) override {
    if constexpr (Group::g2) {
      throw std::invalid_argument("pacer::cuda: window copies are for G1 bases only");
    } else {
      if (copies.copies < 2) return;
      if (copies.copies > kMaxCopies || copies.window_bits < 16 || copies.window_bits > 22)
        throw std::invalid_argument("pacer::cuda: window copies need 2..16 copies and c = 16..22");
      if (n * copies.copies >= (size_t(1) << 31)) throw std::invalid_argument("pacer::cuda: too many window copies");
      window_copies_kernel<F><<<blocks_for(n, kThreads), kThreads, 0, s>>>(static_cast<A*>(points), n,
                                                                           copies.window_bits, copies.copies);
      CUDA_CHECK_LAUNCH();
    }
  }

 private:
  uint32_t first_chunk(size_t entries) const {
    if (kernels_.msm_chunk) return kernels_.msm_chunk;
    // Long chunks: fewer partials; short ones when the MSM is small. 128 from 2^27 entries (2^24
    // points): H200, BN254 2^24, 54.5 against 55.6 ms with window copies, 61.5 against 61.8 without.
    uint32_t chunk = entries >= (size_t(1) << 27) ? 128 : 64;
    while (chunk > 8 && entries / chunk < 132 * 512) chunk /= 2;
    return chunk;
  }

  void reserve(detail::MsmScratch& sc, const WindowPlan& wp, const RegionLayout& lay) {
    if (lay.region_len() >= (size_t(1) << 31) || lay.stride * lay.copies >= (size_t(1) << 31))
      throw std::invalid_argument("pacer::cuda: MSM of 2^31 or more points (window copies included)");
    const size_t n = lay.region_len();  // entries per region
    const size_t entries = lay.entries();
    const size_t chunks = lay.regions * ((n + first_chunk(entries) - 1) / first_chunk(entries));
    const size_t part_a = 2 * chunks + 2, part_b = 2 * ((part_a + kLaterChunk - 1) / kLaterChunk) + 2;
    const ReducePlan rp = plan_reduce(wp.buckets, lay.regions);
    const size_t m1 = rp.levels ? (wp.buckets >> rp.log_group[0]) : 0;
    sc.scalars.reserve(lay.n * 32, "MSM scalars", device_);
    sc.keys.reserve(entries * 4, "MSM digit keys", device_);
    sc.vals.reserve(entries * 4, "MSM digit values", device_);
    sc.keys_alt.reserve(entries * 4, "MSM sorted keys", device_);
    sc.vals_alt.reserve(entries * 4, "MSM sorted values", device_);
    sc.buckets.reserve(size_t(lay.regions) * wp.buckets * sizeof(P), "MSM buckets", device_);
    sc.part_a.reserve(part_a * sizeof(P), "MSM partial sums", device_);
    sc.part_keys_a.reserve(part_a * 4, "MSM partial keys", device_);
    sc.part_b.reserve(part_b * sizeof(P), "MSM partial sums", device_);
    sc.part_keys_b.reserve(part_b * 4, "MSM partial keys", device_);
    sc.counts.reserve((chunks + 1) * 4, "MSM chunk counts", device_);
    sc.offsets.reserve((chunks + 1) * 4, "MSM chunk offsets", device_);
    sc.reduce_a.reserve(2 * size_t(lay.regions) * std::max<size_t>(m1, 1) * sizeof(P), "MSM bucket sums", device_);
    sc.reduce_b.reserve(2 * size_t(lay.regions) * std::max<size_t>(m1 >> 1, 1) * sizeof(P), "MSM bucket sums",
                        device_);
    size_t sort_bytes = 0, scan_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                               (const uint32_t*)nullptr, (uint32_t*)nullptr, int(n), 0, int(wp.c)));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                             int(chunks + 1)));
    sc.cub_temp.reserve(std::max(sort_bytes, scan_bytes), "MSM sort scratch", device_);
  }

  // Exclusive scan of counts[0..chunks) into offsets[0..chunks]; returns the total (synchronises
  // on the copy only: the caller has queued the kernel that consumes the offsets after it).
  void scan_counts(detail::MsmScratch& sc, uint32_t chunks, cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(sc.counts.get<uint32_t>() + chunks, 0, 4, s));
    size_t bytes = sc.cub_temp.bytes();
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(sc.cub_temp.get(), bytes, sc.counts.get<uint32_t>(),
                                             sc.offsets.get<uint32_t>(), int(chunks + 1), s));
    CUDA_CHECK(cudaMemcpyAsync(sc.host_total.get(), sc.offsets.get<uint32_t>() + chunks, 4, cudaMemcpyDeviceToHost, s));
  }

  WindowPlan plan(size_t n) const { return plan_windows(n, Group::scalar_bits, kernels_.msm_window_bits); }

  // Events of one scalar piece: its copy done; its pass begun, its scalars in, digits, sorted, summed.
  struct PieceEvents {
    Event uploaded, begin, scalars_in, digits, sorted, summed;
  };

  // One scalar piece's pass: digits, a sort per region, level 1 over the sorted digits into
  // `into`, then levels over the partial sums until none is left. Returns the partial levels;
  // `level1_queued` runs once level 1 is queued.
  template <class OnLevel1Queued>
  uint32_t sum_piece(const A* points, const WindowPlan& wp, const RegionLayout& lay, const uint32_t* piece_scalars,
                     P* into, detail::MsmScratch& sc, cudaStream_t s, PieceEvents& e, OnLevel1Queued level1_queued) {
    const uint32_t W = lay.regions, B = wp.buckets, nn = uint32_t(lay.region_len());
    uint32_t* keys = sc.keys.get<uint32_t>();
    uint32_t* vals = sc.vals.get<uint32_t>();
    uint32_t* skeys = sc.keys_alt.get<uint32_t>();
    uint32_t* svals = sc.vals_alt.get<uint32_t>();
    digits_kernel<<<blocks_for(lay.n, 256), 256, 0, s>>>(piece_scalars, wp.c, wp.windows, lay, keys, vals);
    CUDA_CHECK_LAUNCH();
    e.digits.record(s);
    for (uint32_t w = 0; w < W; ++w) {
      size_t bytes = sc.cub_temp.bytes();
      CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sc.cub_temp.get(), bytes, keys + size_t(w) * nn,
                                                 skeys + size_t(w) * nn, vals + size_t(w) * nn,
                                                 svals + size_t(w) * nn, int(nn), 0, int(wp.c), s));
    }
    e.sorted.record(s);

    const uint32_t chunk = first_chunk(lay.entries());
    const uint32_t cpw = uint32_t((size_t(nn) + chunk - 1) / chunk), chunks = W * cpw;
    count_kernel<<<blocks_for(chunks, 256), 256, 0, s>>>(skeys, nn, chunk, cpw, W, sc.counts.get<uint32_t>());
    CUDA_CHECK_LAUNCH();
    scan_counts(sc, chunks, s);
    Event copied(false);
    copied.record(s);
    uint32_t* pk_in = sc.part_keys_a.get<uint32_t>();
    P* pv_in = sc.part_a.get<P>();
    uint32_t* pk_out = sc.part_keys_b.get<uint32_t>();
    P* pv_out = sc.part_b.get<P>();
    accumulate_points_kernel<F><<<blocks_for(chunks, kThreads), kThreads, 0, s>>>(
        points, skeys, svals, nn, chunk, cpw, W, B, sc.offsets.get<uint32_t>(), into, pk_in, pv_in);
    CUDA_CHECK_LAUNCH();
    level1_queued();
    const size_t cap_a = sc.part_keys_a.bytes() / 4, cap_b = sc.part_keys_b.bytes() / 4;
    copied.sync();
    uint32_t pending = *sc.host_total.get<uint32_t>();
    if (pending > cap_a) throw std::logic_error("pacer::cuda: MSM partial sums overflow their buffer");
    uint32_t levels = 0;
    while (pending > 0) {
      if (++levels > kMaxPartialLevels) throw std::logic_error("pacer::cuda: MSM partial sums do not converge");
      const uint32_t lchunks = (pending + kLaterChunk - 1) / kLaterChunk;
      count_kernel<<<blocks_for(lchunks, 256), 256, 0, s>>>(pk_in, pending, kLaterChunk, lchunks, 1,
                                                          sc.counts.get<uint32_t>());
      CUDA_CHECK_LAUNCH();
      scan_counts(sc, lchunks, s);
      copied.record(s);
      accumulate_partials_kernel<F><<<blocks_for(lchunks, kThreads), kThreads, 0, s>>>(
          pk_in, pv_in, pending, kLaterChunk, sc.offsets.get<uint32_t>(), into, pk_out, pv_out);
      CUDA_CHECK_LAUNCH();
      copied.sync();
      pending = *sc.host_total.get<uint32_t>();
      const size_t cap_out = pk_out == sc.part_keys_a.get<uint32_t>() ? cap_a : cap_b;
      if (pending > cap_out) throw std::logic_error("pacer::cuda: MSM partial sums overflow their buffer");
      std::swap(pk_in, pk_out);
      std::swap(pv_in, pv_out);
    }
    return levels;
  }

  // Without copies: one region per window. With them: the basis's c, copies·n entries a region.
  // Host scalars go up in pieces (logic.hpp, split_scalars); each piece is one pass (sum_piece)
  // into the same buckets, its copy overlapping the previous piece's pass. Device scalars are one
  // piece, read where they are.
  P run_device(const A* points, size_t n, size_t stride, const WindowCopies& copies, const void* host_scalars,
               const unsigned char* device_scalars, detail::MsmScratch& sc, cudaStream_t s, cudaStream_t up,
               detail::MsmStats* stats) {
    const WindowPlan wp =
        copies.copies > 1 ? plan_windows(n, Group::scalar_bits, copies.window_bits, true) : plan(n);
    const ScalarPieces pieces = split_scalars(n, device_scalars ? 1 : kernels_.msm_pieces);
    auto piece_layout = [&](uint32_t k) {
      return region_layout(wp.windows, copies.copies, pieces.size(k), stride, pieces.begin[k]);
    };
    // Every buffer sized before the first copy or launch: growing one frees memory in use.
    const RegionLayout whole = region_layout(wp.windows, copies.copies, n, stride);
    reserve(sc, wp, whole);
    for (uint32_t k = 0; k < pieces.count; ++k) reserve(sc, wp, piece_layout(k));
    if (pieces.count > 1)
      sc.buckets_alt.reserve(size_t(whole.regions) * wp.buckets * sizeof(P), "MSM piece buckets", device_);
    size_t sort_bytes = 0;  // the reserves above sized it; a check costs nothing
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                               (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                               int(piece_layout(pieces.count - 1).region_len()), 0, int(wp.c)));
    if (sort_bytes > sc.cub_temp.bytes()) throw std::logic_error("pacer::cuda: MSM sort scratch too small");
    auto* scalars = sc.scalars.get<unsigned char>();
    const auto* host = static_cast<const unsigned char*>(host_scalars);
    const unsigned char* source = device_scalars ? device_scalars : scalars;

    Event start, reduced;
    std::vector<PieceEvents> ev(pieces.count);
    start.record(s);
    CUDA_CHECK(cudaStreamWaitEvent(up, start, 0));  // the previous user of the scalar buffer is done
    auto copy_piece = [&](uint32_t k) {
      if (k >= pieces.count) return;
      if (device_scalars) {
        ev[k].uploaded.record(s);  // nothing to copy: "uploaded" when the sums may start
        return;
      }
      CUDA_CHECK(cudaMemcpyAsync(scalars + pieces.begin[k] * 32, host + pieces.begin[k] * 32, pieces.size(k) * 32,
                                 cudaMemcpyHostToDevice, up));
      ev[k].uploaded.record(up);
    };
    copy_piece(0);
    copy_piece(1);
    P* buckets = sc.buckets.get<P>();
    const uint32_t W = whole.regions, B = wp.buckets;
    const size_t bucket_count = size_t(W) * B;
    CUDA_CHECK(cudaMemsetAsync(buckets, 0, bucket_count * sizeof(P), s));  // ZZ = 0: infinity
    // Pieces after the first sum into their own buckets, merged after each (merge_buckets_kernel).
    P* later = nullptr;
    if (pieces.count > 1) {
      later = sc.buckets_alt.get<P>();
      CUDA_CHECK(cudaMemsetAsync(later, 0, bucket_count * sizeof(P), s));
    }
    uint32_t partial_levels = 0;
    for (uint32_t k = 0; k < pieces.count; ++k) {
      PieceEvents& e = ev[k];
      e.begin.record(s);
      CUDA_CHECK(cudaStreamWaitEvent(s, e.uploaded, 0));
      e.scalars_in.record(s);  // scalars_in - begin: the sums waited for this piece's scalars
      const uint32_t* piece_scalars = reinterpret_cast<const uint32_t*>(source + pieces.begin[k] * 32);
      // Piece k+2 is queued once piece k's sums are: from pageable memory the host stages it
      // while the GPU sums.
      const uint32_t levels = sum_piece(points, wp, piece_layout(k), piece_scalars, k == 0 ? buckets : later, sc, s, e,
                                        [&] { copy_piece(k + 2); });
      partial_levels = std::max(partial_levels, levels);
      if (k > 0) {
        merge_buckets_kernel<P><<<blocks_for(bucket_count, 128), 128, 0, s>>>(buckets, later, bucket_count);
        CUDA_CHECK_LAUNCH();
      }
      e.summed.record(s);
    }

    // Bucket weighting levels on the device, the last values per window on the host.
    const ReducePlan rp = plan_reduce(B, W);
    const P* r_cur = buckets;
    const P* x_cur = nullptr;
    uint32_t m = B, scale_log2 = 0;
    P* bufs[2] = {sc.reduce_a.get<P>(), sc.reduce_b.get<P>()};
    for (uint32_t l = 0; l < rp.levels; ++l) {
      const uint32_t log_s = rp.log_group[l], m_out = m >> log_s;
      P* r_out = bufs[l & 1];
      P* x_out = r_out + size_t(W) * m_out;
      const unsigned grid = blocks_for(size_t(W) * m_out, kThreads);
      if (x_cur)
        reduce_level_kernel<F, true><<<grid, kThreads, 0, s>>>(r_cur, x_cur, m, log_s, W, scale_log2, r_out, x_out);
      else
        reduce_level_kernel<F, false><<<grid, kThreads, 0, s>>>(r_cur, x_cur, m, log_s, W, scale_log2, r_out, x_out);
      CUDA_CHECK_LAUNCH();
      scale_log2 += log_s;
      m = m_out;
      r_cur = r_out;
      x_cur = x_out;
    }
    std::vector<P> r_host(size_t(W) * m), x_host(x_cur ? size_t(W) * m : 0);
    CUDA_CHECK(cudaMemcpyAsync(r_host.data(), r_cur, r_host.size() * sizeof(P), cudaMemcpyDeviceToHost, s));
    if (x_cur) CUDA_CHECK(cudaMemcpyAsync(x_host.data(), x_cur, x_host.size() * sizeof(P), cudaMemcpyDeviceToHost, s));
    reduced.record(s);
    reduced.sync();  // a blocking wait (Event), not a spin
    const double t0 = now_ms();
    // Region r holds windows r·copies..: consecutive regions are c·copies bits apart.
    const P result =
        finish_windows(r_host.data(), x_cur ? x_host.data() : nullptr, W, m, scale_log2, wp.c * whole.copies);
    if (stats) {
      *stats = {wp.c, wp.windows, rp.levels, partial_levels};
      stats->copies = whole.copies;
      stats->pieces = pieces.count;
      stats->digits_ms = stats->sort_ms = stats->accumulate_ms = stats->upload_wait_ms = 0;
      for (const PieceEvents& e : ev) {
        stats->upload_wait_ms += e.scalars_in.since(e.begin);
        stats->digits_ms += e.digits.since(e.scalars_in);
        stats->sort_ms += e.sorted.since(e.digits);
        stats->accumulate_ms += e.summed.since(e.sorted);
      }
      stats->upload_ms = ev.back().uploaded.since(start);
      stats->reduce_ms = reduced.since(ev.back().summed);
      stats->finish_ms = float(now_ms() - t0);
    }
    return result;
  }

  int device_;
  const KernelConfig kernels_;
};

}  // namespace pacer::cuda::msm

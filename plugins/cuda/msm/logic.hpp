#pragma once
// The MSM's per-thread logic, shared by the kernels and the host simulation in the self-test
// (plain C++: no CUDA headers).
//
// Pippenger with signed c-bit digits: window w of scalar k has digit d in [-2^(c-1), 2^(c-1)];
// point i goes to bucket |d|-1 of window w, negated when d < 0. Per window the (bucket, point)
// pairs are sorted by bucket (CUB), then summed in fixed chunks of the sorted list (so a huge
// bucket, e.g. a witness full of ones, costs the same as many small ones): a bucket that lies
// inside one chunk is written directly; the pieces of a bucket that crosses chunk boundaries go
// to a compacted list of partial sums, which the same chunked sum reduces again until none is
// left. Buckets are then weighted (Σ (d+1)·B_d) by a few levels of grouped running sums, the
// last few values per window and the window combination on the host.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ff/carry.hpp"

namespace pacer::cuda::msm {

inline constexpr uint32_t kNoKey = 0xffffffffu;  // sorts last; also the "zero digit" marker

struct WindowPlan {
  uint32_t c = 0;        // window bits
  uint32_t windows = 0;  // ceil((bits + 1) / c): the top digit's carry stays inside
  uint32_t buckets = 0;  // 2^(c-1) per window
};

// Cost model in mixed additions: n·W bucket additions, 2 general additions (~1.3 mixed) per
// bucket for the weighting, and the sort (~0.1 per entry and pass of 8 bits). copied: every window
// in one bucket set (window copies, below), so the weighting is paid once; c from 16 (copies pay
// off only for large MSMs).
inline WindowPlan plan_windows(size_t n, uint32_t bits, uint32_t c_override = 0, bool copied = false) {
  WindowPlan best;
  double best_cost = 0;
  for (uint32_t c = copied ? 16 : 4; c <= 22; ++c) {
    if (c_override && c != c_override) continue;
    const uint32_t w = (bits + 1 + c - 1) / c;
    const double buckets = double(1u << (c - 1));
    const double cost = double(n) * w * (1.0 + 0.1 * ((c + 7) / 8)) + 2.6 * buckets * (copied ? 1 : w);
    if (best.c == 0 || cost < best_cost) {
      best = {c, w, 1u << (c - 1)};
      best_cost = cost;
    }
  }
  return best;
}

// Window copies (fixed-base Pippenger): a basis stored as `copies` copies, copy j holding
// 2^(c·j)·P_i, lets window w of scalar i enter the buckets of region w / copies as point
// (w % copies)·stride + i. With copies = windows there is one region: one bucket set to sum and
// weight instead of one per window, so c can grow (fewer windows, fewer additions) while the
// bucket weighting shrinks. Region r lists copies·n entries, slot (w % copies)·n + i; the slots
// of windows past the last (copies not dividing the windows) hold kNoKey.
struct RegionLayout {
  uint32_t copies = 1, regions = 0;
  size_t n = 0, stride = 0;  // points in the MSM (or its piece); points per copy in the basis
  size_t first = 0;          // the piece's first point (scalar pieces, below)
  PACER_HD size_t region_len() const { return size_t(copies) * n; }
  PACER_HD size_t entries() const { return size_t(regions) * region_len(); }
  PACER_HD size_t slot(uint32_t w, size_t i) const {
    return size_t(w / copies) * region_len() + size_t(w % copies) * n + i;
  }
  PACER_HD uint32_t point(uint32_t w, size_t i) const { return uint32_t(size_t(w % copies) * stride + first + i); }
};

inline constexpr uint32_t kMaxCopies = 16;  // c >= 16 (plan_windows, copied): at most 16 windows

// n points from point `first` of a basis of `stride` points a copy.
inline RegionLayout region_layout(uint32_t windows, uint32_t copies, size_t n, size_t stride, size_t first = 0) {
  if (copies < 1) copies = 1;
  return {copies, (windows + copies - 1) / copies, n, copies > 1 ? stride : n, first};
}

// Scalar pieces: the scalars go to the device in pieces, and piece k+1 is copied while piece k's
// digits are sorted and summed into the buckets (the upload of 2^24 scalars, 9.8 ms at ~52 GB/s on
// the H200, is a sixth of a BN254 MSM). Every piece after the first sums into a second bucket
// array that a kernel then adds into the first: one general addition a bucket. Piece k+1 is
// `growth` times piece k, so that its copy ends before piece k's sums (a point's sums cost ~2.7 ns
// for BN254 with window copies at 2^24, 5.7 for BLS12-381, against ~0.6 ns to copy its scalar):
// only the first, smallest piece's copy stays exposed.
inline constexpr uint32_t kMaxPieces = 8;
inline constexpr uint32_t kPieceGrowth = 4;

struct ScalarPieces {
  uint32_t count = 1;
  size_t begin[kMaxPieces + 1] = {};  // piece k is [begin[k], begin[k+1])
  size_t size(uint32_t k) const { return begin[k + 1] - begin[k]; }
};

// pieces = 0: by size, as measured on an H100 (docs/benchmarks.md, 2026-12-06): two from 2^22
// points, one below, where merging a piece's buckets costs more than its copy hides (2^20: 6.24
// ms in one piece, 6.81 in two, 7.48 in three); three pieces gained nothing over two at 2^24.
inline ScalarPieces split_scalars(size_t n, uint32_t pieces, uint32_t growth = kPieceGrowth) {
  if (pieces == 0) pieces = n >= (size_t(1) << 22) ? 2 : 1;
  pieces = pieces > kMaxPieces ? kMaxPieces : pieces;
  for (;; --pieces) {
    ScalarPieces p;
    p.count = pieces;
    uint64_t total = 0, weight = 1, cum = 0;
    for (uint32_t k = 0; k < pieces; ++k, weight *= growth) total += weight;
    weight = 1;
    bool empty = false;
    for (uint32_t k = 0; k < pieces; ++k, weight *= growth) {
      p.begin[k] = size_t(uint64_t(n) * cum / total);
      cum += weight;
      empty |= k > 0 && p.begin[k] == p.begin[k - 1];
    }
    p.begin[pieces] = n;
    if (pieces <= 1 || (!empty && p.begin[pieces] > p.begin[pieces - 1])) return p;
  }
}

// Signed digit of window w (c <= 31) for a scalar of 8 little-endian 32-bit words: returns the
// bucket (|d|-1) or kNoKey for d = 0, and sets neg. Windows are processed from w = 0 up, and
// the carry of window w-1 is recomputed here from the bits below, so each window is independent:
// carry into w = 1 iff the raw digit of w-1 (with its own carry) exceeds 2^(c-1).
PACER_HD uint32_t raw_window(const uint32_t* s, uint32_t w, uint32_t c) {
  const uint32_t bit = w * c, word = bit / 32, shift = bit % 32;
  if (word >= 8) return 0;
  uint64_t v = s[word];
  if (word + 1 < 8) v |= uint64_t(s[word + 1]) << 32;
  return uint32_t((v >> shift) & ((uint64_t(1) << c) - 1));
}

// All windows of one scalar at once (the kernel's form): emit(w, key, neg).
template <class Emit>
PACER_HD void signed_digits(const uint32_t* s, uint32_t windows, uint32_t c, Emit&& emit) {
  uint32_t carry = 0;
  const uint32_t half = 1u << (c - 1), full = 1u << c;
  for (uint32_t w = 0; w < windows; ++w) {
    const uint32_t raw = raw_window(s, w, c) + carry;  // <= 2^c
    if (raw > half) {
      carry = 1;
      const uint32_t mag = full - raw;  // d = raw - 2^c < 0
      emit(w, mag ? mag - 1 : kNoKey, mag != 0);
    } else {
      carry = 0;
      emit(w, raw ? raw - 1 : kNoKey, false);
    }
  }
}

// One scalar's entries in the layout: every window's (bucket, point | sign), and kNoKey in the
// padding slots of the last region.
template <class Store>
PACER_HD void place_digits(const RegionLayout& lay, const uint32_t* s, uint32_t windows, uint32_t c, size_t i,
                           Store&& store) {
  signed_digits(s, windows, c, [&](uint32_t w, uint32_t key, bool neg) {
    store(lay.slot(w, i), key, lay.point(w, i) | (uint32_t(neg) << 31));
  });
  for (uint32_t w = windows; w < lay.regions * lay.copies; ++w) store(lay.slot(w, i), kNoKey, lay.point(w, i));
}

// --- chunked segmented sums ---------------------------------------------------------------------
// A chunk [begin, end) of a sorted key list inside region [rb, re) (one window for the first
// level, the whole list after). Segments are runs of equal keys. The first segment is partial
// if its key continues from before the chunk, the last if it continues after; the others are
// complete. Keys equal to kNoKey (zero digits, sorted last) end the work.
struct ChunkShape {
  bool empty, cont_in, cont_out, single;
  PACER_HD uint32_t partials() const {
    if (empty) return 0;
    return single ? uint32_t(cont_in || cont_out) : uint32_t(cont_in) + uint32_t(cont_out);
  }
};

PACER_HD ChunkShape chunk_shape(const uint32_t* keys, size_t begin, size_t end, size_t rb, size_t re) {
  ChunkShape s{};
  const uint32_t first = keys[begin], last = keys[end - 1];
  s.empty = first == kNoKey;
  s.cont_in = begin > rb && keys[begin - 1] == first;
  s.cont_out = end < re && last != kNoKey && keys[end] == last;
  s.single = first == last;
  return s;
}

// Sums the chunk. add(acc, i) adds entry i into acc; complete(key, acc) stores a finished
// bucket; partial(slot, key, acc) stores a piece at slot 0 or 1 of the chunk's partial range.
template <class Acc, class Add, class Complete, class Partial>
PACER_HD void sum_chunk(const uint32_t* keys, size_t begin, size_t end, size_t rb, size_t re, Add&& add,
                        Complete&& complete, Partial&& partial) {
  const ChunkShape shape = chunk_shape(keys, begin, end, rb, re);
  if (shape.empty) return;
  uint32_t cur = keys[begin];
  bool first_segment = true;
  Acc acc = Acc::inf();
  for (size_t i = begin; i < end; ++i) {
    const uint32_t k = keys[i];
    if (k != cur) {
      // The segment ends inside the chunk: partial only if it is the first one and continued.
      if (first_segment && shape.cont_in) partial(0u, cur, acc);
      else complete(cur, acc);
      if (k == kNoKey) return;
      first_segment = false;
      cur = k;
      acc = Acc::inf();
    }
    add(acc, i);
  }
  // The last segment reaches the chunk's end.
  if (first_segment) {
    if (shape.cont_in || shape.cont_out) partial(0u, cur, acc);
    else complete(cur, acc);
  } else {
    if (shape.cont_out) partial(shape.cont_in ? 1u : 0u, cur, acc);
    else complete(cur, acc);
  }
}

// --- bucket weighting ---------------------------------------------------------------------------
// F(V) = Σ_j (j+1)·V_j over a window's buckets. Grouping V by S: R_k = Σ_t V_{kS+t},
// Q_k = Σ_t t·V_{kS+t}; then Wsum(V) = Σ j·V_j = S·Wsum(R) + Σ Q_k. Level l keeps
// X'_l,k = (S_1···S_{l-1})·Q_l,k + Σ_t X'_{l-1,kS+t}, so after the last level L
//   F(B) = (S_1···S_L)·Wsum(R_L) + Σ X'_L + Σ R_L,
// which the host finishes over kHostValues values per window. One value: the device's last level
// (a few threads) is cheaper than the host's serial point arithmetic.
inline constexpr uint32_t kHostValues = 1;

struct ReducePlan {
  uint32_t levels = 0;
  uint32_t log_group[12] = {};  // log2 S_l
};

// regions: bucket sets reduced side by side. One region (window copies) starts with short runs
// too: runs of 32 over its 2^21 buckets were 65536 threads, too few to hide their serial additions.
inline ReducePlan plan_reduce(uint32_t buckets, uint32_t regions) {
  ReducePlan p;
  uint32_t m = buckets;
  while (m > kHostValues) {
    uint32_t log_s = p.levels == 0 && regions > 1 ? 5 : 3;  // long runs first (many threads), short after
    while (log_s > 1 && (m >> log_s) < kHostValues) --log_s;
    p.log_group[p.levels++] = log_s;
    m >>= log_s;
  }
  return p;
}

// One thread of a level: group [base, base + S) of R_in (and X_in when kHasX) into R, X. The
// first level has no X_in and no scaling: a separate instance keeps its register count down.
template <class Pt, bool kHasX, class Get>
PACER_HD void reduce_group(Get&& get_r, const Pt* x_in, size_t base, uint32_t S, uint32_t scale_log2, Pt& r_out,
                           Pt& x_out) {
  Pt run = Pt::inf(), acc = Pt::inf();
  for (uint32_t t = S - 1; t >= 1; --t) {
    run.add(get_r(base + t));
    acc.add(run);  // after the loop acc = Σ_{t>=1} t·V_t
  }
  run.add(get_r(base));
  if constexpr (kHasX) {
    for (uint32_t d = 0; d < scale_log2; ++d) acc.dbl();
    for (uint32_t t = 0; t < S; ++t) acc.add(x_in[base + t]);
  }
  r_out = run;
  x_out = acc;
}

// The host's part: per window F(B_w) = 2^scale·Wsum(R) + ΣX' + ΣR over the last m values
// (x may be null: no level ran), then Σ_w 2^(c·w)·S_w by Horner.
template <class Pt>
Pt finish_windows(const Pt* r, const Pt* x, uint32_t W, uint32_t m, uint32_t scale_log2, uint32_t c) {
  std::vector<Pt> window_sums(W);
  for (uint32_t w = 0; w < W; ++w) {
    Pt run = Pt::inf(), acc = Pt::inf(), xs = Pt::inf();
    for (uint32_t j = m - 1; j >= 1; --j) {
      run.add(r[size_t(w) * m + j]);
      acc.add(run);
    }
    run.add(r[size_t(w) * m]);
    if (x)
      for (uint32_t j = 0; j < m; ++j) xs.add(x[size_t(w) * m + j]);
    for (uint32_t d = 0; d < scale_log2; ++d) acc.dbl();
    acc.add(xs);
    acc.add(run);
    window_sums[w] = acc;
  }
  Pt total = window_sums[W - 1];
  for (uint32_t w = W - 1; w-- > 0;) {
    for (uint32_t d = 0; d < c; ++d) total.dbl();
    total.add(window_sums[w]);
  }
  return total;
}

}  // namespace pacer::cuda::msm
